import type { RequestIssue } from "./types.js";

/** The error codes the contract's HTTP answers carry (docs/api.md). */
export const CONTRACT_ERROR_CODES = [
  "invalid-signature",
  "digest-mismatch",
  "call-reused",
  "invalid-request",
  "too-large",
  "rate-limited",
  "unauthorized",
  "not-found",
  "already-consumed",
  "binding-mismatch",
  "not-decided",
  "already-decided",
  // A second, different revision of a request that was already revised.
  "already-revised",
  // The execution report (docs/executions.md): sent twice, or for a call that never ran.
  "already-reported",
  "not-consumed",
] as const;

export type ContractErrorCode = (typeof CONTRACT_ERROR_CODES)[number];

/**
 * Codes raised by the client itself, with `status` 0 unless an HTTP answer was
 * received:
 * - "timeout": the per-call timeout elapsed;
 * - "aborted": the caller's AbortSignal fired;
 * - "network-error": no HTTP answer (connection refused, reset, DNS…);
 * - "unexpected-response": an answer outside the contract (5xx, non-JSON, a
 *   missing field, an unknown error code);
 * - "invalid-receipt": a receipt's signature, algorithm, key or payload is wrong.
 */
export type ClientErrorCode = "timeout" | "aborted" | "network-error" | "unexpected-response" | "invalid-receipt";

export type CountersignErrorCode = ContractErrorCode | ClientErrorCode;

export function isContractErrorCode(value: unknown): value is ContractErrorCode {
  return typeof value === "string" && (CONTRACT_ERROR_CODES as readonly string[]).includes(value);
}

export interface CountersignErrorInit {
  code: CountersignErrorCode;
  /** HTTP status of the answer, or 0 when there was none. */
  status: number;
  message?: string;
  /** Seconds to wait, from `Retry-After` (rate-limited answers). */
  retryAfter?: number;
  issues?: RequestIssue[];
  /** Why a callback or receipt was refused (e.g. "stale", "bad-signature"). */
  reason?: string;
  /** The parsed error body, when there was one. */
  body?: unknown;
  cause?: unknown;
}

export class CountersignError extends Error {
  override readonly name = "CountersignError";
  readonly code: CountersignErrorCode;
  readonly status: number;
  readonly retryAfter: number | undefined;
  readonly issues: RequestIssue[] | undefined;
  readonly reason: string | undefined;
  readonly body: unknown;

  constructor(init: CountersignErrorInit) {
    super(
      init.message ?? (init.status ? `Countersign answered ${init.status} ${init.code}` : `Countersign: ${init.code}`),
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.code = init.code;
    this.status = init.status;
    this.retryAfter = init.retryAfter;
    this.issues = init.issues;
    this.reason = init.reason;
    this.body = init.body;
  }
}

export function isCountersignError(error: unknown, code?: CountersignErrorCode): error is CountersignError {
  return error instanceof CountersignError && (code === undefined || error.code === code);
}
