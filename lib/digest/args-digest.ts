/**
 * Argument digest (CONTRACT §2).
 *
 *   args_digest = "sha256:" + lowercase_hex(SHA-256(UTF-8(JCS(arguments))))
 *
 * JCS is RFC 8785, delegated to the `canonicalize` package. This module is pure:
 * no server-only imports, usable by the server and by executors alike.
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

export type ArgsDigest = `sha256:${string}`;

/** Shape of a well-formed digest: "sha256:" followed by 64 lowercase hex digits. */
export const ARGS_DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;

export type CanonicalJsonErrorReason =
  | "lone-surrogate"
  | "non-finite-number"
  | "bigint"
  | "circular"
  | "not-representable"
  | "not-an-object";

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

/**
 * The contract's `args_digest` of a tool call's arguments.
 *
 * @throws CanonicalJsonError if `args` is not a plain JSON object (arrays and null
 *   are refused: the contract says `arguments` is a JSON object) or holds a value
 *   JCS cannot represent.
 */
export function argsDigest(args: Record<string, unknown>): ArgsDigest {
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    throw new CanonicalJsonError("not-an-object", "arguments must be a JSON object");
  }
  const text = canonicalJson(args);
  if (!text.startsWith("{")) {
    // A toJSON method turned the object into something else.
    throw new CanonicalJsonError("not-an-object", "arguments must serialize to a JSON object");
  }
  return sha256Digest(text);
}

/** True when `value` is a syntactically valid args_digest string. */
export function isArgsDigest(value: unknown): value is ArgsDigest {
  return typeof value === "string" && ARGS_DIGEST_PATTERN.test(value);
}
