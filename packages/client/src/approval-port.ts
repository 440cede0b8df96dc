/**
 * The approval port: one tool call in, allow or deny out, failing closed.
 *
 * `port.ask(call)` requests approval through the signed webhook, long-polls
 * the request's state, consumes it once bound to the call (run, call, tool,
 * salted digest) and verifies the receipt against the JWKS. Only a verified
 * approval allows the call, and then `arguments` is a frozen copy of exactly
 * the arguments whose digest was approved: run the tool with those. Anything
 * else denies: a reviewer's denial, expiry, no decision in time (the request
 * is then withdrawn), an abort, a transport error, an answer outside the
 * contract, a bad or mismatched receipt. `ask` never throws.
 *
 * Replays: Countersign keeps one request per (service, run_id, call_id). A call
 * asked again after its decision was consumed is denied ("replayed"): the old
 * decision is never reused. Asked again before it was consumed (an executor
 * restarted), it resumes the same request. A real retry needs a new call id.
 */
import { argsDigest, CanonicalJsonError } from "./args-digest.js";
import type { CountersignClient } from "./client.js";
import { CountersignError } from "./errors.js";
import type { ApprovalRequestInput, RequestedApproval } from "./options.js";
import type { JwksSource } from "./receipt.js";
import { denialReason } from "./reviews.js";
import type { ConsumeBinding, ReceiptPayload, Review } from "./types.js";

/** The call to decide: what `requestApproval` takes, without a salt (the port makes one). */
export type PortCall = Omit<ApprovalRequestInput, "args_salt">;

export type PortDecisionCode =
  | "approved"
  | "denied"
  | "expired"
  | "replayed"
  | "timeout"
  | "cancelled"
  | "aborted"
  | "invalid-receipt"
  | "binding-mismatch"
  | "invalid-arguments"
  | "error"
  | CountersignError["code"];

interface PortDecisionBase {
  code: PortDecisionCode;
  /** A sentence for the user or the model; never quotes argument values. */
  reason: string;
  approvalId?: string;
  /** The votes, in order, as the consume answer gave them. */
  reviews: Review[];
  /** The verified receipt and its compact JWS, to keep as evidence. */
  receipt?: ReceiptPayload;
  receiptJws?: string;
}

export type PortDecision =
  | (PortDecisionBase & {
      allowed: true;
      code: "approved";
      arguments: Readonly<Record<string, unknown>>;
      receipt: ReceiptPayload;
      receiptJws: string;
    })
  | (PortDecisionBase & { allowed: false; arguments?: undefined });

export interface ApprovalPortOptions {
  /** How long to wait for a decision (default 5 minutes); then the request is withdrawn. */
  timeoutMs?: number;
  /** Receipt keys: the JWKS document to pin, or its URL (default: the client's JWKS URL). */
  jwks?: JwksSource;
  /** Called with the webhook's answer, e.g. to show the review URL. */
  onRequest?: (created: RequestedApproval) => void;
}

export interface AskOptions {
  signal?: AbortSignal;
  /** Overrides the port's timeout for this call. */
  timeoutMs?: number;
  /** Called every `progressIntervalMs` (default 5 s) while the request waits for reviewers. */
  onProgress?: (elapsedMs: number) => void;
  progressIntervalMs?: number;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

/** A denial decided by the port itself, carried to the one place that builds the answer. */
class Deny extends Error {
  constructor(
    readonly code: PortDecisionCode,
    readonly reason: string,
  ) {
    super(reason);
  }
}

export class ApprovalPort {
  private readonly timeoutMs: number;

  constructor(
    readonly client: CountersignClient,
    private readonly options: ApprovalPortOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** Requests approval of one call, waits, consumes once: allow (with the approved arguments) or deny. */
  async ask(call: PortCall, options: AskOptions = {}): Promise<PortDecision> {
    let approvalId: string | undefined;
    try {
      // The port hashes, sends and returns this one copy, so what runs is what was approved.
      const approvedArgs = deepFreeze(structuredClone(call.arguments));
      // Not aborted mid-flight: a request Countersign stored must be known, to be withdrawn.
      const created = await this.client.requestApproval({ ...call, arguments: approvedArgs });
      approvalId = created.approval_id;
      if (options.signal?.aborted) {
        await this.withdraw(approvalId);
        throw new CountersignError({ code: "aborted", status: 0 });
      }
      const binding: ConsumeBinding = {
        run_id: call.run_id,
        call_id: call.call_id,
        tool: call.tool,
        args_digest: argsDigest(approvedArgs, created.args_salt),
      };
      if (created.args_digest !== binding.args_digest) throw new Deny("binding-mismatch", "Countersign recorded another digest than this call's");
      this.options.onRequest?.(created);
      return await this.settle(created.approval_id, binding, approvedArgs, options);
    } catch (error) {
      return { allowed: false, approvalId, reviews: [], ...denialOf(error) };
    }
  }

  private async settle(
    approvalId: string,
    binding: ConsumeBinding,
    approvedArgs: Record<string, unknown>,
    options: AskOptions,
  ): Promise<PortDecision> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const started = Date.now();
    const ticker = options.onProgress ? setInterval(() => options.onProgress?.(Date.now() - started), options.progressIntervalMs ?? 5000) : undefined;
    let state;
    try {
      state = await this.client.waitForDecision(approvalId, { timeoutMs, signal: options.signal });
    } catch (error) {
      await this.withdraw(approvalId);
      throw error;
    } finally {
      clearInterval(ticker);
    }
    const { run_id, call_id, tool, args_digest } = state;
    if (run_id !== binding.run_id || call_id !== binding.call_id || tool !== binding.tool || args_digest !== binding.args_digest) {
      await this.withdraw(approvalId);
      throw new Deny("binding-mismatch", "the request Countersign holds is not this call");
    }
    if (state.status === "pending") {
      await this.withdraw(approvalId);
      throw new Deny("timeout", `no decision within ${Math.round(timeoutMs / 1000)} seconds; the request was withdrawn`);
    }
    if (state.status === "cancelled") throw new Deny("cancelled", "the request was cancelled");
    if (state.consumed) throw replayed();

    let taken;
    try {
      taken = await this.client.consume(approvalId, binding, { signal: options.signal });
    } catch (error) {
      if (error instanceof CountersignError && error.code === "already-consumed") throw replayed();
      throw error;
    }
    const receipt = await this.checkReceipt(approvalId, binding, taken.decision, taken.receipt);
    const evidence = { approvalId, reviews: taken.reviews, receipt, receiptJws: taken.receipt };
    if (taken.decision === "approved") {
      const by = taken.decided_by.join(", ") || "a standing approval";
      return { allowed: true, code: "approved", reason: `approved by ${by}`, arguments: approvedArgs, ...evidence };
    }
    if (taken.decision === "denied") {
      const why = denialReason(taken);
      return { allowed: false, code: "denied", reason: why ? `denied: ${why}` : "denied by a reviewer", ...evidence };
    }
    return { allowed: false, code: "expired", reason: "the request expired before anyone decided", ...evidence };
  }

  private async checkReceipt(approvalId: string, binding: ConsumeBinding, decision: string, jws: string): Promise<ReceiptPayload> {
    const expected = { ...binding, approval_id: approvalId, service: this.client.serviceSlug, decision: decision as ReceiptPayload["decision"] };
    let payload: ReceiptPayload;
    try {
      payload = await this.client.verifyReceipt(jws, this.options.jwks ?? this.client.jwksUrl, { expected });
    } catch (error) {
      const why = error instanceof CountersignError ? error.message : "it did not verify";
      throw new Deny("invalid-receipt", `the receipt was refused: ${why}`);
    }
    // Receipts may carry an expiry; an expired one proves nothing about this run.
    const exp = (payload as { exp?: unknown }).exp;
    if (exp !== undefined && (typeof exp !== "number" || exp * 1000 <= Date.now())) throw new Deny("invalid-receipt", "the receipt has expired");
    return payload;
  }

  /** Best effort: the call is denied whether or not the withdrawal lands. */
  private async withdraw(approvalId: string): Promise<void> {
    try {
      await this.client.cancel(approvalId, { timeoutMs: 5000 });
    } catch {
      // denied either way
    }
  }
}

function replayed(): Deny {
  return new Deny("replayed", "this call's decision was already used; it is not reused (send a new call id)");
}

function denialOf(error: unknown): { code: PortDecisionCode; reason: string } {
  if (error instanceof Deny) return { code: error.code, reason: error.reason };
  if (error instanceof CanonicalJsonError)
    return { code: "invalid-arguments", reason: `the arguments have no JSON form, so the call is denied: ${error.message}` };
  if (error instanceof CountersignError) {
    if (error.code === "aborted") return { code: "aborted", reason: "the call was cancelled while waiting for approval; the request was withdrawn" };
    // The client's own messages, which never quote argument values.
    return { code: error.code, reason: `approval failed, so the call is denied: ${error.message}` };
  }
  // Unknown errors may quote anything: name the kind only.
  const kind = error instanceof Error ? error.name : typeof error;
  return { code: "error", reason: `approval failed, so the call is denied: ${kind}` };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
