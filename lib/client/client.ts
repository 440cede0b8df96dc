/**
 * The executor-side Countersign client (CONTRACT §3–§5): node built-ins, global
 * fetch, jose, and the digest / webhook modules only — no server code.
 */
import { argsDigest, isArgsSalt, newArgsSalt } from "../digest/args-digest";
import { generateWebhookId, signWebhookHeaders } from "../webhooks/standard-webhooks";
import { CountersignError, isContractErrorCode, type CountersignErrorCode } from "./errors";
import { verifyReceipt, type JwksSource, type VerifyReceiptOptions } from "./receipt";
import {
  checkApprovalCreated,
  checkApprovalState,
  checkCancelResult,
  checkConsumeResult,
  issuesOf,
  isObject,
  type Checked,
} from "./shape";
import type {
  ApprovalCreated,
  ApprovalRequestData,
  ApprovalRequestedEvent,
  ApprovalState,
  CancelResult,
  ConsumeBinding,
  ConsumeResult,
  ReceiptPayload,
} from "./types";

/** Largest inbound webhook body the contract accepts (§3). */
export const MAX_WEBHOOK_BODY_BYTES = 256 * 1024;
/** Longest long-poll the contract allows, in seconds (§4). */
export const MAX_WAIT_SECONDS = 30;
const DEFAULT_TIMEOUT_MS = 15_000;

export interface CountersignClientOptions {
  /** Countersign's base URL, e.g. "https://countersign.example.com" (a path prefix is kept). */
  baseUrl: string;
  /** This service's slug (§3 path). */
  serviceSlug: string;
  /** The service's webhook secret, `whsec_…`; several sign with one entry each (rotation). */
  webhookSecret: string | readonly string[];
  /** The service's API token for §4. */
  apiToken: string;
  /** Per-call timeout in ms (default 15 000); a long poll adds its `wait`. */
  timeoutMs?: number;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
}

export interface CallOptions {
  /** Overrides the client's per-call timeout. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * What an executor supplies to ask for approval; `args_digest` is computed.
 * `args_salt` is normally left out: the client makes a fresh one per call (and
 * reuses it when the same client asks again for the same run and call). Give
 * it only to resend a call from another process with the salt it was sent with.
 */
export type ApprovalRequestInput = Omit<ApprovalRequestData, "args_digest">;

/** The answer to requestApproval, with the salt the digest was made with (keep it to consume elsewhere). */
export type RequestedApproval = ApprovalCreated & { args_salt: string };

export interface RequestApprovalOptions extends CallOptions {
  /** webhook-id; reuse it when retrying the same request. Defaults to a random id. */
  webhookId?: string;
}

export interface GetApprovalOptions extends CallOptions {
  /** Long-poll for up to this many seconds (integer 0–30) while the request is pending. */
  wait?: number;
}

export interface WaitForDecisionOptions {
  /** Total time to wait; when it runs out the last (pending) state is returned. */
  timeoutMs: number;
  /** Seconds per long poll (1–30, default 30). */
  pollWaitSeconds?: number;
  signal?: AbortSignal;
}

/**
 * The consume binding, or the same with the arguments from which args_digest
 * is computed: salted with `args_salt` when given, else with the salt this
 * client sent for the same run and call, else unsalted (§2).
 */
export type ConsumeBindingInput =
  | ConsumeBinding
  | (Omit<ConsumeBinding, "args_digest"> & { arguments: Record<string, unknown>; args_salt?: string });

/** Calls whose salt a client remembers; the oldest is forgotten past this. */
const REMEMBERED_SALTS = 10_000;

interface HttpAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** Parses `Retry-After` (delta-seconds or HTTP-date) into whole seconds. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^[0-9]+$/.test(text)) return Number(text);
  const when = Date.parse(text);
  if (Number.isNaN(when)) return undefined;
  return Math.max(0, Math.ceil((when - now) / 1000));
}

function errorFromAnswer(answer: HttpAnswer): CountersignError {
  const { status, body } = answer;
  const serverCode = isObject(body) ? body.error : undefined;
  let code: CountersignErrorCode;
  if (isContractErrorCode(serverCode)) code = serverCode;
  else if (status === 429) code = "rate-limited";
  else if (status === 413) code = "too-large";
  else code = "unexpected-response";
  return new CountersignError({
    code,
    status,
    body,
    issues: code === "invalid-request" ? issuesOf(body) : undefined,
    retryAfter: code === "rate-limited" ? parseRetryAfter(answer.headers.get("retry-after")) : undefined,
  });
}

function unexpected(answer: HttpAnswer, detail: string): CountersignError {
  return new CountersignError({
    code: "unexpected-response",
    status: answer.status,
    body: answer.body,
    message: `Countersign answered ${answer.status} outside the contract: ${detail}`,
  });
}

function accept<T>(answer: HttpAnswer, okStatuses: readonly number[], checked: (body: unknown) => Checked<T>): T {
  if (!okStatuses.includes(answer.status)) {
    throw answer.status >= 200 && answer.status < 300 ? unexpected(answer, "status") : errorFromAnswer(answer);
  }
  const result = checked(answer.body);
  if (!result.ok) throw unexpected(answer, `field ${result.field} is missing or invalid`);
  return result.value;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortedError(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(signal as AbortSignal));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function abortedError(signal: AbortSignal): CountersignError {
  return new CountersignError({ code: "aborted", status: 0, message: "the call was aborted", cause: signal.reason });
}

/** "2026-11-29T18:00:00Z": ISO 8601 to the second, as in the contract's example. */
function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

function callKey(call: { run_id: string; call_id: string }): string {
  return JSON.stringify([call.run_id, call.call_id]);
}

export class CountersignClient {
  readonly baseUrl: string;
  readonly serviceSlug: string;
  private readonly webhookSecrets: readonly string[];
  private readonly apiToken: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  /** Salt per (run_id, call_id) this client has sent: a retry and a consume reuse it. */
  private readonly salts = new Map<string, string>();

  constructor(options: CountersignClientOptions) {
    const base = new URL(options.baseUrl); // throws on a malformed URL
    this.baseUrl = base.href.replace(/\/+$/, "");
    this.serviceSlug = options.serviceSlug;
    this.webhookSecrets =
      typeof options.webhookSecret === "string" ? [options.webhookSecret] : [...options.webhookSecret];
    this.apiToken = options.apiToken;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** The JWKS URL of this Countersign (`/.well-known/jwks.json`). */
  get jwksUrl(): string {
    return `${this.baseUrl}/.well-known/jwks.json`;
  }

  /**
   * Sends an `approval.requested` webhook (§3), signed with the webhook secret,
   * with a salted args_digest (§19). Returns the 201 body of a new request, or
   * the 200 body of a replay, plus the `args_salt` that was sent.
   *
   * @throws CanonicalJsonError when the arguments have no RFC 8785 form.
   * @throws CountersignError "too-large" (status 0, before sending) when the body
   *   exceeds 256 KiB; otherwise the contract's code of the answer.
   */
  async requestApproval(input: ApprovalRequestInput, options: RequestApprovalOptions = {}): Promise<RequestedApproval> {
    if (input.args_salt !== undefined && !isArgsSalt(input.args_salt)) {
      throw new RangeError("args_salt must be 16-64 bytes as unpadded base64url");
    }
    const salt = input.args_salt ?? this.salts.get(callKey(input)) ?? newArgsSalt();
    const event: ApprovalRequestedEvent = {
      type: "approval.requested",
      timestamp: isoSeconds(new Date()),
      data: { ...input, args_salt: salt, args_digest: argsDigest(input.arguments, salt) },
    };
    const body = Buffer.from(JSON.stringify(event), "utf8");
    if (body.length > MAX_WEBHOOK_BODY_BYTES) {
      throw new CountersignError({
        code: "too-large",
        status: 0,
        message: `the request body is ${body.length} bytes; the limit is ${MAX_WEBHOOK_BODY_BYTES}`,
      });
    }
    const signed = signWebhookHeaders({
      secret: this.webhookSecrets,
      id: options.webhookId ?? generateWebhookId(),
      body,
    });
    // Remembered before sending: a retry after a lost answer must send the same salt.
    this.rememberSalt(callKey(input), salt);
    const answer = await this.send(
      "POST",
      `/api/v1/webhooks/${encodeURIComponent(this.serviceSlug)}`,
      { ...signed, "content-type": "application/json" },
      body,
      options,
    );
    return { ...accept(answer, [200, 201], checkApprovalCreated), args_salt: salt };
  }

  /** `GET /api/v1/approvals/{id}[?wait=N]` (§4). */
  async getApproval(approvalId: string, options: GetApprovalOptions = {}): Promise<ApprovalState> {
    const wait = options.wait ?? 0;
    if (!Number.isInteger(wait) || wait < 0 || wait > MAX_WAIT_SECONDS) {
      throw new RangeError(`wait must be an integer from 0 to ${MAX_WAIT_SECONDS}`);
    }
    const query = wait > 0 ? `?wait=${wait}` : "";
    const answer = await this.send(
      "GET",
      `/api/v1/approvals/${encodeURIComponent(approvalId)}${query}`,
      this.authHeaders(),
      undefined,
      { signal: options.signal, timeoutMs: (options.timeoutMs ?? this.timeoutMs) + wait * 1000 },
    );
    return accept(answer, [200], checkApprovalState);
  }

  /**
   * Long-polls (wait ≤ 30 s per call) until the request leaves `pending` or
   * `timeoutMs` runs out, and returns the last state seen — check `status`, it
   * may still be "pending". Network errors, timeouts, 5xx and 429 answers are
   * retried with back-off within the time budget; other errors are thrown.
   */
  async waitForDecision(approvalId: string, options: WaitForDecisionOptions): Promise<ApprovalState> {
    const deadline = Date.now() + options.timeoutMs;
    const pollWait = Math.min(MAX_WAIT_SECONDS, Math.max(1, Math.floor(options.pollWaitSeconds ?? MAX_WAIT_SECONDS)));
    let backoffMs = 500;
    let last: ApprovalState | undefined;
    for (;;) {
      const remainingMs = deadline - Date.now();
      const wait = Math.max(0, Math.min(pollWait, Math.floor(remainingMs / 1000)));
      const started = Date.now();
      try {
        last = await this.getApproval(approvalId, { wait, signal: options.signal });
        backoffMs = 500;
        if (last.status !== "pending" || Date.now() >= deadline) return last;
        // A server that answered early (or ignores wait) must not be hammered.
        const elapsed = Date.now() - started;
        if (elapsed < 1000) await sleep(Math.min(1000 - elapsed, Math.max(0, deadline - Date.now())), options.signal);
      } catch (error) {
        const retriable =
          error instanceof CountersignError &&
          (error.code === "timeout" ||
            error.code === "network-error" ||
            error.code === "rate-limited" ||
            (error.code === "unexpected-response" && error.status >= 500));
        if (!retriable) throw error;
        const delay = error.code === "rate-limited" ? (error.retryAfter ?? 1) * 1000 : backoffMs;
        backoffMs = Math.min(backoffMs * 2, 8000);
        if (Date.now() + delay >= deadline) {
          if (last) return last;
          throw error;
        }
        await sleep(delay, options.signal);
      }
      if (Date.now() >= deadline && last) return last;
    }
  }

  /**
   * `POST /api/v1/approvals/{id}/consume` (§4): takes the decision, once. Pass
   * `arguments` instead of `args_digest` to bind to the arguments about to run.
   */
  async consume(approvalId: string, binding: ConsumeBindingInput, options: CallOptions = {}): Promise<ConsumeResult> {
    const body: ConsumeBinding = {
      run_id: binding.run_id,
      call_id: binding.call_id,
      tool: binding.tool,
      args_digest:
        "args_digest" in binding
          ? binding.args_digest
          : argsDigest(binding.arguments, binding.args_salt ?? this.salts.get(callKey(binding))),
    };
    const answer = await this.send(
      "POST",
      `/api/v1/approvals/${encodeURIComponent(approvalId)}/consume`,
      { ...this.authHeaders(), "content-type": "application/json" },
      Buffer.from(JSON.stringify(body), "utf8"),
      options,
    );
    return accept(answer, [200], checkConsumeResult);
  }

  /** `POST /api/v1/approvals/{id}/cancel` (§4): withdraws a pending request. */
  async cancel(approvalId: string, options: CallOptions = {}): Promise<CancelResult> {
    const answer = await this.send(
      "POST",
      `/api/v1/approvals/${encodeURIComponent(approvalId)}/cancel`,
      this.authHeaders(),
      undefined,
      options,
    );
    const result = accept(answer, [200], checkCancelResult);
    return { ...result, approval_id: typeof result.approval_id === "string" ? result.approval_id : approvalId };
  }

  /** Verifies a receipt against this Countersign's JWKS (or the one given). */
  verifyReceipt(
    jws: string,
    jwksUrlOrJwks: JwksSource = this.jwksUrl,
    options?: VerifyReceiptOptions,
  ): Promise<ReceiptPayload> {
    return verifyReceipt(jws, jwksUrlOrJwks, options);
  }

  private rememberSalt(key: string, salt: string): void {
    this.salts.delete(key);
    this.salts.set(key, salt);
    if (this.salts.size > REMEMBERED_SALTS) this.salts.delete(this.salts.keys().next().value as string);
  }

  private authHeaders(): Record<string, string> {
    return { authorization: `Bearer ${this.apiToken}` };
  }

  private async send(
    method: "GET" | "POST",
    path: string,
    headers: Record<string, string>,
    body: Uint8Array | undefined,
    options: CallOptions,
  ): Promise<HttpAnswer> {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? this.timeoutMs);
    const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
    let response: Response;
    let text: string;
    try {
      response = await this.fetchImpl(`${this.baseUrl}${path}`, {
        method,
        headers: { accept: "application/json", ...headers },
        body: body === undefined ? undefined : new Uint8Array(body),
        signal,
        redirect: "manual",
      });
      text = await response.text();
    } catch (error) {
      if (options.signal?.aborted) throw abortedError(options.signal);
      if (timeout.aborted) {
        throw new CountersignError({ code: "timeout", status: 0, message: `${method} ${path} timed out`, cause: error });
      }
      throw new CountersignError({
        code: "network-error",
        status: 0,
        message: `${method} ${path} failed: ${error instanceof Error ? error.message : String(error)}`,
        cause: error,
      });
    }
    let parsed: unknown = undefined;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    const answer = { status: response.status, headers: response.headers, body: parsed };
    if (parsed === undefined && response.status >= 200 && response.status < 300) {
      throw unexpected(answer, "the body is not JSON");
    }
    return answer;
  }
}
