/**
 * Standard Webhooks (https://www.standardwebhooks.com/) signing and strict
 * verification, as docs/api.md use them.
 *
 *   webhook-signature: v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}." + raw body bytes)>
 *   key = base64-decode(secret without its "whsec_" prefix)
 *
 * Verification is stricter than the `standardwebhooks` package: the timestamp
 * must be digits only, the id must be 1–256 printable ASCII characters, the HMAC
 * covers the exact bytes received, and several secrets (rotation) may be tried.
 * Pure: node:crypto only, usable by the server and by external callers.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** Accepted clock skew, either way, in seconds (docs/api.md: 5 minutes). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

const TIMESTAMP_PATTERN = /^[0-9]{1,15}$/;
const WEBHOOK_ID_PATTERN = /^[\x20-\x7e]{1,256}$/;
const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export type WebhookVerifyFailure = "missing-headers" | "bad-timestamp" | "stale" | "bad-signature";
export type WebhookVerifyResult = { ok: true } | { ok: false; reason: WebhookVerifyFailure };

/** The three Standard Webhooks headers; any may be absent on an incoming request. */
export interface WebhookHeaderValues {
  id: string | null | undefined;
  timestamp: string | null | undefined;
  signature: string | null | undefined;
}

/** The headers as sent on the wire. */
export type WebhookHeaders = {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

/** True for a syntactically valid webhook-id: 1–256 printable ASCII characters. */
export function isValidWebhookId(id: unknown): id is string {
  return typeof id === "string" && WEBHOOK_ID_PATTERN.test(id);
}

/** True for a syntactically valid webhook-timestamp header: 1–15 decimal digits. */
export function isValidWebhookTimestamp(timestamp: unknown): timestamp is string {
  return typeof timestamp === "string" && TIMESTAMP_PATTERN.test(timestamp);
}

/**
 * The HMAC key of a `whsec_<base64>` secret.
 * @throws TypeError when the secret is not in that form or decodes to nothing.
 */
export function decodeWebhookSecret(secret: string): Buffer {
  if (typeof secret !== "string" || !secret.startsWith(WEBHOOK_SECRET_PREFIX)) {
    throw new TypeError(`webhook secret must start with "${WEBHOOK_SECRET_PREFIX}"`);
  }
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (encoded.length === 0 || !BASE64_PATTERN.test(encoded)) {
    throw new TypeError("webhook secret is not valid base64 after its prefix");
  }
  const key = Buffer.from(encoded, "base64");
  if (key.length === 0) throw new TypeError("webhook secret is empty");
  return key;
}

/** A new secret: "whsec_" + base64 of 32 bytes from the CSPRNG. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString("base64");
}

/** Unix seconds now. */
export function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}

/** A fresh webhook-id ("msg_" + 24 random base64url characters). */
export function generateWebhookId(): string {
  return `msg_${randomBytes(18).toString("base64url")}`;
}

function toBytes(body: string | Uint8Array): Uint8Array {
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return body;
  throw new TypeError("webhook body must be a string or bytes");
}

function hmac(key: Buffer, id: string, timestamp: string, body: Uint8Array): Buffer {
  return createHmac("sha256", key).update(`${id}.${timestamp}.`, "utf8").update(body).digest();
}

function timestampText(timestamp: number | Date): string {
  const seconds = timestamp instanceof Date ? Math.floor(timestamp.getTime() / 1000) : timestamp;
  const text = Number.isSafeInteger(seconds) ? String(seconds) : "";
  if (!isValidWebhookTimestamp(text)) {
    throw new TypeError("webhook timestamp must be a non-negative whole number of Unix seconds");
  }
  return text;
}

export interface SignWebhookInput {
  /** `whsec_<base64>` secret. */
  secret: string;
  /** webhook-id: 1–256 printable ASCII characters. */
  id: string;
  /** Unix seconds (or a Date, truncated to seconds). */
  timestamp: number | Date;
  /** The exact body bytes to be sent (a string is encoded as UTF-8). */
  body: string | Uint8Array;
}

/**
 * The `webhook-signature` value for one secret: `v1,<base64>`.
 * @throws TypeError for a malformed secret, id or timestamp (so that nothing
 *   unverifiable is ever produced).
 */
export function signWebhook({ secret, id, timestamp, body }: SignWebhookInput): string {
  if (!isValidWebhookId(id)) throw new TypeError("webhook id must be 1-256 printable ASCII characters");
  const key = decodeWebhookSecret(secret);
  const mac = hmac(key, id, timestampText(timestamp), toBytes(body));
  return `v1,${mac.toString("base64")}`;
}

export interface SignWebhookHeadersInput {
  /** One secret, or several (each adds a `v1,` entry, e.g. during rotation). */
  secret: string | readonly string[];
  /** Defaults to a fresh random id. */
  id?: string;
  /** Unix seconds or Date; defaults to now. */
  timestamp?: number | Date;
  body: string | Uint8Array;
}

/** The three headers for sending `body`. */
export function signWebhookHeaders(input: SignWebhookHeadersInput): WebhookHeaders {
  const id = input.id ?? generateWebhookId();
  const timestamp = timestampText(input.timestamp ?? unixNow());
  const secrets = typeof input.secret === "string" ? [input.secret] : [...input.secret];
  if (secrets.length === 0) throw new TypeError("at least one webhook secret is required");
  const signature = secrets.map((secret) => signWebhook({ secret, id, timestamp: Number(timestamp), body: input.body })).join(" ");
  return { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature };
}

export interface VerifyWebhookInput {
  /** Active `whsec_…` secrets; a match with any of them passes. */
  secrets: readonly string[];
  headers: WebhookHeaderValues | null | undefined;
  /** The body exactly as received, before any JSON parsing. */
  rawBody: Uint8Array;
  /** Unix seconds; defaults to now. */
  now?: number;
  /** Seconds of skew allowed either way; defaults to 300. */
  toleranceSeconds?: number;
}

/**
 * Strict Standard Webhooks verification.
 *
 * - "missing-headers": a header is absent or empty, or webhook-id is not 1–256
 *   printable ASCII characters;
 * - "bad-timestamp": webhook-timestamp is not 1–15 decimal digits;
 * - "stale": the timestamp is more than the tolerance away from `now`;
 * - "bad-signature": no `v1,` entry matches the HMAC under any secret (entries
 *   of other versions, such as `v1a,` or `v2,`, are ignored).
 *
 * @throws TypeError when a configured secret is malformed (a configuration bug,
 *   never something a sender controls) or rawBody is not bytes.
 */
export function verifyWebhook(input: VerifyWebhookInput): WebhookVerifyResult {
  const keys = input.secrets.map(decodeWebhookSecret);
  if (!(input.rawBody instanceof Uint8Array)) throw new TypeError("rawBody must be the raw body bytes");

  const id = input.headers?.id;
  const timestamp = input.headers?.timestamp;
  const signature = input.headers?.signature;
  if (!id || !timestamp || !signature || !isValidWebhookId(id)) {
    return { ok: false, reason: "missing-headers" };
  }
  if (!isValidWebhookTimestamp(timestamp)) return { ok: false, reason: "bad-timestamp" };

  const now = Math.floor(input.now ?? Date.now() / 1000);
  const tolerance = input.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  if (Math.abs(now - Number(timestamp)) > tolerance) return { ok: false, reason: "stale" };

  const candidates: Buffer[] = [];
  for (const entry of signature.split(" ")) {
    if (entry.startsWith("v1,")) candidates.push(Buffer.from(entry.slice(3), "utf8"));
  }
  if (candidates.length === 0 || keys.length === 0) return { ok: false, reason: "bad-signature" };

  let matched = false;
  for (const key of keys) {
    const expected = Buffer.from(hmac(key, id, timestamp, input.rawBody).toString("base64"), "utf8");
    for (const candidate of candidates) {
      // Compare every pair (no early exit) so timing reveals nothing about which matched.
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
    }
  }
  return matched ? { ok: true } : { ok: false, reason: "bad-signature" };
}

/**
 * Picks the three webhook headers out of a Fetch `Headers` object or a Node
 * `IncomingHttpHeaders`-style record (case-insensitive names; a repeated header
 * counts as absent, since it is ambiguous).
 */
export function webhookHeadersFrom(headers: Headers | Record<string, string | string[] | undefined> | null | undefined): WebhookHeaderValues {
  const pick = (name: string): string | undefined => {
    if (!headers) return undefined;
    if (typeof (headers as Headers).get === "function" && typeof (headers as Headers).has === "function") {
      return (headers as Headers).get(name) ?? undefined;
    }
    const record = headers as Record<string, string | string[] | undefined>;
    const matches = Object.keys(record).filter((key) => key.toLowerCase() === name);
    if (matches.length !== 1) return undefined;
    const value = record[matches[0] as string];
    return typeof value === "string" ? value : undefined;
  };
  return {
    id: pick("webhook-id"),
    timestamp: pick("webhook-timestamp"),
    signature: pick("webhook-signature"),
  };
}
