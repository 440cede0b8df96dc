// Web Push (RFC 8030) to one browser: the payload encrypted for that
// subscription (RFC 8291, aes128gcm) and the request signed with the
// deployment's VAPID key (RFC 8292), both by the `web-push` package. The
// request itself is sent here: the endpoint is a URL a user gave us, so it is
// checked again before each send under the push-target rule (push-target.ts:
// the callback-target rule, https on port 443, no private range) and
// connected to only at the addresses checked; no redirect is followed.
import "server-only";
import webpush from "web-push";
import { postPinned } from "./send-thread";
import { pushTargetPolicy, resolvePushTarget } from "./push-target";
import { env } from "../env";

export type PushTarget = { endpoint: string; p256dh: string; auth: string };
/** `refused`: the endpoint breaks the push-target rule; nothing was sent and nothing should be tried again. */
export type PushResult = { ok: true; statusCode: number } | { ok: false; gone: boolean; error: string; refused?: true };

const TIMEOUT_MS = 10_000;

// The VAPID token (RFC 8292) says "this server" to one push service until it
// expires, the same for every message to that service. The library signs a
// new one per message, which was the largest single cost of a push under
// load; one is kept per push service (by origin) and renewed an hour before
// it expires.
const VAPID_LIFETIME_S = 12 * 3600;
const vapidTokens = new Map<string, { authorization: string; renewAt: number }>();

function vapidAuthorization(endpoint: string, vapid: { subject: string; publicKey: string; privateKey: string }): string {
  const { protocol, host } = new URL(endpoint);
  const audience = `${protocol}//${host}`;
  const cached = vapidTokens.get(audience);
  if (cached && cached.renewAt > Date.now()) return cached.authorization;
  const expiresAt = Math.floor(Date.now() / 1000) + VAPID_LIFETIME_S;
  const { Authorization } = webpush.getVapidHeaders(audience, vapid.subject, vapid.publicKey, vapid.privateKey, "aes128gcm", expiresAt) as {
    Authorization: string;
  };
  if (vapidTokens.size >= 256) vapidTokens.clear(); // a handful of push services in practice
  vapidTokens.set(audience, { authorization: Authorization, renewAt: (expiresAt - 3600) * 1000 });
  return Authorization;
}

export function pushChannel(): "on" | "off" {
  const e = env();
  return e.VAPID_PUBLIC_KEY && e.VAPID_PRIVATE_KEY ? "on" : "off";
}

/** The key a browser subscribes with (PushManager.subscribe's applicationServerKey). */
export function vapidPublicKey(): string | null {
  return pushChannel() === "on" ? env().VAPID_PUBLIC_KEY! : null;
}

/**
 * Sends one push message. Never throws: every failure is a result whose
 * `error` names a status code or a kind of failure, never a value (the push
 * service's answer is not read). `gone`: the push service no longer knows the
 * subscription (404, 410), so the caller removes it. `refused`: the endpoint
 * breaks the push-target rule now (saved before the rule, or its name now
 * resolves somewhere refused): nothing is connected to.
 */
export async function sendWebPush(
  target: PushTarget,
  payload: string,
  opts: { ttlSeconds: number; topic?: string; urgency?: "normal" | "high" },
): Promise<PushResult> {
  const e = env();
  if (!e.VAPID_PUBLIC_KEY || !e.VAPID_PRIVATE_KEY) return { ok: false, gone: false, error: "Web Push is off (no VAPID keys)" };
  // First the endpoint, under the rule as it is now: a refused one gets no work and no VAPID token.
  const check = await resolvePushTarget(target.endpoint, pushTargetPolicy());
  if (!check.ok)
    return check.refused ? { ok: false, gone: false, error: check.reason, refused: true } : { ok: false, gone: false, error: check.reason };
  let request: webpush.RequestDetails;
  try {
    // Encrypted per message by the library; its VAPID header is the one kept for this push service.
    request = webpush.generateRequestDetails({ endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } }, payload, {
      contentEncoding: "aes128gcm",
      TTL: Math.max(0, Math.floor(opts.ttlSeconds)),
      topic: opts.topic,
      urgency: opts.urgency ?? "normal",
    });
    request.headers.Authorization = vapidAuthorization(target.endpoint, {
      subject: e.VAPID_SUBJECT,
      publicKey: e.VAPID_PUBLIC_KEY,
      privateKey: e.VAPID_PRIVATE_KEY,
    });
  } catch {
    return { ok: false, gone: false, error: "the message could not be encrypted for this subscription" };
  }
  // web-push gives numbers for some headers; node wants strings, and the length is set below.
  const headers = Object.fromEntries(
    Object.entries(request.headers as Record<string, string | number>)
      .filter(([k]) => k.toLowerCase() !== "content-length")
      .map(([k, v]) => [k, String(v)]),
  );
  try {
    // Sent on the sending thread (send-worker.mjs), to the checked addresses only.
    const statusCode = await postPinned({
      url: check.url.href,
      hostname: check.hostname,
      addresses: check.addresses,
      headers,
      body: request.body ?? Buffer.alloc(0),
      timeoutMs: TIMEOUT_MS,
    });
    if (statusCode >= 200 && statusCode < 300) return { ok: true, statusCode };
    return { ok: false, gone: statusCode === 404 || statusCode === 410, error: `HTTP ${statusCode} from the push service` };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const kind = (err as Error).name === "AbortError" || code === "ABORT_ERR" ? "no answer within 10 s" : `connection failed (${code ?? "error"})`;
    return { ok: false, gone: false, error: kind };
  }
}
