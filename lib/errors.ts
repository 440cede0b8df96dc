// Errors that carry the contract's error codes (docs/api.md) plus the
// product's own. One table maps each code to its HTTP status; lib/http turns
// an AppError (or a ZodError) into a response.
import { ZodError, type ZodType, type output } from "zod";

export const ERROR_STATUS = {
  "invalid-request": 422,
  "digest-mismatch": 422,
  "reason-required": 422,
  "too-large": 413,
  "invalid-signature": 401,
  unauthorized: 401,
  forbidden: 403,
  "not-eligible": 403,
  "self-review": 403,
  // A policy with require_passkey (docs/passkeys.md): the vote carries no assertion, or one that does not verify.
  "passkey-required": 403,
  "passkey-invalid": 403,
  // A policy's anti-rubber-stamp rules (docs/insights.md): too soon after the page was served, or through a channel with no page; the arguments not yet seen in full.
  "review-too-early": 403,
  "full-view-required": 403,
  "not-found": 404,
  "call-reused": 409,
  "already-consumed": 409,
  "binding-mismatch": 409,
  "not-decided": 409,
  "already-decided": 409,
  "already-reviewed": 409,
  // A second revision of one proposal (docs/revisions.md).
  "already-revised": 409,
  // The execution report (docs/executions.md): accepted once, only after an approved consume.
  "already-reported": 409,
  "not-consumed": 409,
  expired: 409,
  conflict: 409,
  "last-admin": 409,
  "rate-limited": 429,
  unavailable: 503,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export type Issue = { path: string; message: string };

export class AppError extends Error {
  override name = "AppError";
  constructor(
    readonly code: ErrorCode,
    message: string = code,
    readonly details: { issues?: Issue[]; retryAfter?: number } = {},
  ) {
    super(message);
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** zod issues as {path, message}; zod's default messages never echo input values. */
export function issuesOf(error: ZodError, prefix: string[] = []): Issue[] {
  return error.issues.map((i) => ({
    path: [...prefix, ...i.path.map(String)].join("."),
    message: i.message,
  }));
}

export function invalidRequest(error: ZodError, prefix: string[] = []): AppError {
  return new AppError("invalid-request", "invalid request", { issues: issuesOf(error, prefix) });
}

/**
 * Parses one value as the named field of an input, so a refusal names the
 * field ("slug: must be …") as an object's would, not "value".
 */
export function parseField<T extends ZodType>(schema: T, value: unknown, field: string): output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ZodError(parsed.error.issues.map((i) => ({ ...i, path: [field, ...i.path] })));
}
