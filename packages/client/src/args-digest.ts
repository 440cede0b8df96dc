/**
 * Argument digest (docs/api.md, salted per docs/security.md).
 *
 *   args_digest = "sha256:" + lowercase_hex(SHA-256(UTF-8(JCS(arguments))))
 *   salted:       "sha256:" + lowercase_hex(SHA-256(UTF-8(args_salt + "." + JCS(arguments))))
 *
 * The salt keeps a digest shown next to redacted arguments from confirming a
 * guess of the hidden values (a card number's middle digits, a password).
 *
 * JCS is RFC 8785, delegated to the `canonicalize` package. This module is pure:
 * no server-only imports, usable by the server and by executors alike.
 */
import { createHash, randomBytes } from "node:crypto";
import canonicalize from "canonicalize";

export type ArgsDigest = `sha256:${string}`;

/** Shape of a well-formed digest: "sha256:" followed by 64 lowercase hex digits. */
export const ARGS_DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;

export type CanonicalJsonErrorReason = "lone-surrogate" | "non-finite-number" | "bigint" | "circular" | "not-representable" | "not-an-object";

/** Thrown when a value has no RFC 8785 representation (or is not an arguments object). */
export class CanonicalJsonError extends Error {
  override readonly name = "CanonicalJsonError";
  readonly reason: CanonicalJsonErrorReason;

  constructor(reason: CanonicalJsonErrorReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

function classify(error: unknown): CanonicalJsonError {
  const message = error instanceof Error ? error.message : String(error);
  let reason: CanonicalJsonErrorReason = "not-representable";
  if (/surrogate/i.test(message)) reason = "lone-surrogate";
  else if (/NaN|Infinity/.test(message)) reason = "non-finite-number";
  else if (/BigInt/i.test(message)) reason = "bigint";
  else if (/circular/i.test(message)) reason = "circular";
  return new CanonicalJsonError(reason, `value cannot be canonicalized (RFC 8785): ${message}`, {
    cause: error,
  });
}

/**
 * RFC 8785 canonical JSON text of `value`.
 *
 * Follows JSON.stringify for what it drops (undefined / function / symbol members
 * are omitted, and become null inside arrays; toJSON is honoured), because the
 * server recomputes the digest from the JSON text it receives.
 *
 * @throws CanonicalJsonError for lone surrogates, NaN, ±Infinity, BigInt, cycles,
 *   or a top-level value with no JSON form (undefined, a function, a symbol).
 */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = canonicalize(value);
  } catch (error) {
    throw classify(error);
  }
  if (typeof text !== "string") {
    throw new CanonicalJsonError("not-representable", "value has no JSON representation");
  }
  return text;
}

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`, prefixed with "sha256:". */
export function sha256Digest(text: string): ArgsDigest {
  return `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
}

/** Bytes a salt may decode to (docs/security.md). */
export const ARGS_SALT_MIN_BYTES = 16;
export const ARGS_SALT_MAX_BYTES = 64;
/** Bytes of the salts the clients make: 256 bits. */
export const ARGS_SALT_BYTES = 32;
/** Unpadded base64url of 16–64 bytes is 22–86 characters. */
export const ARGS_SALT_PATTERN = /^[A-Za-z0-9_-]{22,86}$/;

/**
 * True for a well-formed `args_salt`: unpadded base64url, in its one canonical
 * spelling (unused trailing bits zero), decoding to 16–64 bytes. Padding is
 * refused rather than stripped because the salt is hashed as the text sent.
 */
export function isArgsSalt(value: unknown): value is string {
  if (typeof value !== "string" || !ARGS_SALT_PATTERN.test(value)) return false;
  const bytes = Buffer.from(value, "base64url");
  return bytes.length >= ARGS_SALT_MIN_BYTES && bytes.length <= ARGS_SALT_MAX_BYTES && bytes.toString("base64url") === value;
}

/** A fresh random salt for one tool call: 32 bytes, unpadded base64url. */
export function newArgsSalt(): string {
  return randomBytes(ARGS_SALT_BYTES).toString("base64url");
}

/**
 * The contract's `args_digest` of a tool call's arguments, salted when a salt
 * is given (docs/security.md) and plain (docs/api.md) when it is undefined.
 *
 * @throws CanonicalJsonError if `args` is not a plain JSON object (arrays and null
 *   are refused: the contract says `arguments` is a JSON object) or holds a value
 *   JCS cannot represent.
 * @throws RangeError if `salt` is given but is not a well-formed salt.
 */
export function argsDigest(args: Record<string, unknown>, salt?: string): ArgsDigest {
  if (salt !== undefined && !isArgsSalt(salt)) {
    throw new RangeError("args_salt must be 16-64 bytes as unpadded base64url");
  }
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    throw new CanonicalJsonError("not-an-object", "arguments must be a JSON object");
  }
  const text = canonicalJson(args);
  if (!text.startsWith("{")) {
    // A toJSON method turned the object into something else.
    throw new CanonicalJsonError("not-an-object", "arguments must serialize to a JSON object");
  }
  return sha256Digest(salt === undefined ? text : `${salt}.${text}`);
}

/** True when `value` is a syntactically valid args_digest string. */
export function isArgsDigest(value: unknown): value is ArgsDigest {
  return typeof value === "string" && ARGS_DIGEST_PATTERN.test(value);
}
