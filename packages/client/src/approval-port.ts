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
 *
 * Revisions: a reviewer may answer with proposed changes instead of a vote.
 * The port then applies the changes (a JSON Patch) to its own copy of the
 * arguments, asks again for the changed call (same run and tool, call id
 * `revisionCallId(call_id, k)`, `revises` naming the revised request) and
 * waits for that one; only an approval of the changed arguments allows, and
 * then `arguments` are the changed ones. `revisions` lists each step. Up to
 * `maxRevisions` (default 10) are followed; a patch that does not apply, a
 * revision Countersign finds different from the proposal, or one that was
 * already made by another call deny.
 *
 * Execution reports: after running an approved call, `port.reportExecution(decision,
 * outcome)` tells Countersign how it went (succeeded or failed, with a salted
 * digest of the result, never the result). `port.run(call, execute)` does all
 * of it: ask, run `execute` with the approved arguments when allowed, report,
 * and return. Reporting never throws into the agent's path: a report that
 * cannot be sent goes to `onReportError`, and waits at most `reportTimeoutMs`.
 */
import { argsDigest, CanonicalJsonError } from "./args-digest.js";
import type { CountersignClient } from "./client.js";
import { CountersignError } from "./errors.js";
import type { ApprovalRequestInput, RequestedApproval } from "./options.js";
import { applyJsonPatch, JsonPatchError, type JsonPatch } from "./json-patch.js";
import type { JwksSource } from "./receipt.js";
import { revisionCallId } from "./revision-call-id.js";
import { denialReason } from "./reviews.js";
import { isObject } from "./shape.js";
import { errorClassName, resultDigest } from "./result-digest.js";
import type {
  ConsumeBinding,
  ConsumeResult,
  ExecutionRecorded,
  ExecutionReport,
  ExecutionStatus,
  Proposal,
  ReceiptPayload,
  Review,
} from "./types.js";

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
  /** A reviewer proposed changes and the port follows none (`maxRevisions: 0`). */
  | "revised"
  /** More revisions in a row than `maxRevisions`. */
  | "too-many-revisions"
  /** The proposed changes cannot be applied to the arguments, or were not sent. */
  | "invalid-revision"
  /** Countersign found the changed call different from the proposal. */
  | "revision-differs"
  | "error"
  | CountersignError["code"];

/** One step of a chain of revisions: a request a reviewer answered with changes. */
export interface PortRevision {
  /** The request that was revised. */
  approvalId: string;
  /** Its call id (the original one for the first step). */
  callId: string;
  /** Who proposed the changes, why and when. */
  proposal: Proposal;
  /** The changes, as applied to that request's arguments (values are argument values: keep them as private as the arguments). */
  patch: JsonPatch;
  /** The verified receipt of the revised request (decision "revised"). */
  receipt: ReceiptPayload;
  receiptJws: string;
}

interface PortDecisionBase {
  code: PortDecisionCode;
  /** A sentence for the user or the model; never quotes argument values. */
  reason: string;
  /** The last request asked (after revisions, the final one). */
  approvalId?: string;
  /** The revisions followed, in order; empty when the call was decided as asked. */
  revisions: PortRevision[];
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
      /**
       * The salt the approved request was sent with; `reportExecution` salts the result
       * digest with it. Set by `ask` as a non-enumerable property, so logging or
       * serializing the decision leaves it out, and so does a copy made by spreading:
       * report with the decision `ask` returned. Keep it as private as the arguments.
       */
      readonly argsSalt?: string;
    })
  | (PortDecisionBase & { allowed: false; arguments?: undefined });

/** A decision that allows the call: run the tool with its `arguments`, then report. */
export type ApprovedPortDecision = Extract<PortDecision, { allowed: true }>;
/** A decision that denies the call: the tool must not run. */
export type DeniedPortDecision = Extract<PortDecision, { allowed: false }>;

/**
 * How an approved call ran, for `reportExecution`:
 * - `{ status: "succeeded", result }`: the tool returned `result`;
 * - `{ status: "failed", error }`: the tool threw `error` (only its class name is digested);
 * - `{ status: "failed", result }`: the tool answered with a failure result (e.g. an MCP `isError` result).
 * `finishedAt` defaults to the time of the report.
 */
export type ExecutionOutcome =
  { status: ExecutionStatus; result: unknown; finishedAt?: Date } | { status: "failed"; error: unknown; finishedAt?: Date };

/** What `port.run` returns: the decision, and when it allowed, the tool's result and the report as recorded. */
export type PortRun<T> =
  | {
      allowed: true;
      decision: ApprovedPortDecision;
      result: T;
      /** The report as Countersign recorded it; undefined when it was not (the error went to `onReportError`). */
      execution: ExecutionRecorded | undefined;
    }
  | { allowed: false; decision: DeniedPortDecision; result?: undefined; execution?: undefined };

/** The call a failed report was about, for `onReportError`: ids only, never argument or result values. */
export interface ReportContext {
  approvalId: string | undefined;
  tool: string | undefined;
}

export interface ApprovalPortOptions {
  /** How long to wait for a decision (default 5 minutes); then the request is withdrawn. */
  timeoutMs?: number;
  /** Receipt keys: the JWKS document to pin, or its URL (default: the client's JWKS URL). */
  jwks?: JwksSource;
  /** Called with the webhook's answer, e.g. to show the review URL (also for each revision). */
  onRequest?: (created: RequestedApproval) => void;
  /** How many revisions in a row to follow (default 10); past that the call is denied. 0 denies a revised call ("revised"). */
  maxRevisions?: number;
  /**
   * Called when an execution report could not be sent or was refused (the error, and the
   * call's ids). Default: one `console.warn` line naming the request and the error code,
   * never argument or result values. Whatever it does, the agent's path goes on.
   */
  onReportError?: (error: unknown, report: ReportContext) => void;
  /** How long one execution report may take, its one retry included (default 5 s): the most reporting delays a tool's result. */
  reportTimeoutMs?: number;
}

export interface AskOptions {
  signal?: AbortSignal;
  /** Overrides the port's timeout for this call. */
  timeoutMs?: number;
  /** Called every `progressIntervalMs` (default 5 s) while the request waits for reviewers. */
  onProgress?: (elapsedMs: number) => void;
  progressIntervalMs?: number;
}

/** What a receipt must say about the call the port is about to run. */
const RECEIPT_BINDING = ["approval_id", "service", "run_id", "call_id", "tool", "args_digest", "decision"] as const;
const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const DEFAULT_MAX_REVISIONS = 10;
const DEFAULT_REPORT_TIMEOUT_MS = 5_000;

type Taken = { taken: ConsumeResult; receipt: ReceiptPayload; salt: string };

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
    const revisions: PortRevision[] = [];
    const maxRevisions = this.options.maxRevisions ?? DEFAULT_MAX_REVISIONS;
    try {
      // The port hashes, sends and returns this one copy, so what runs is what was approved.
      let current: ApprovalRequestInput = { ...call, arguments: deepFreeze(structuredClone(call.arguments)) };
      for (;;) {
        const { taken, receipt, salt } = await this.askOnce(current, options, (id) => (approvalId = id));
        if (approvalId === undefined) throw new Deny("error", "no request was recorded");
        const evidence = { approvalId, reviews: taken.reviews, receipt, receiptJws: taken.receipt, revisions };
        if (taken.decision === "approved") {
          const by = taken.decided_by.join(", ") || "a standing approval";
          const revised = revisions.length ? ` after ${revisions.length} revision${revisions.length > 1 ? "s" : ""}` : "";
          const approved: ApprovedPortDecision = {
            allowed: true,
            code: "approved",
            reason: `approved by ${by}${revised}`,
            arguments: current.arguments,
            ...evidence,
          };
          // Kept for the execution report, out of logs and JSON.
          return Object.defineProperty(approved, "argsSalt", { value: salt, enumerable: false, writable: false, configurable: false });
        }
        if (taken.decision === "denied") {
          const why = denialReason(taken);
          return { allowed: false, code: "denied", reason: why ? `denied: ${why}` : "denied by a reviewer", ...evidence };
        }
        if (taken.decision === "expired")
          return { allowed: false, code: "expired", reason: "the request expired before anyone decided", ...evidence };
        if (taken.decision !== "revised") throw new Deny("error", "Countersign answered a decision this port does not know");

        // Revised: the call never runs as it was; at most one changed call is asked per proposal.
        if (!taken.patch || !taken.proposal) throw new Deny("invalid-revision", "Countersign answered revised without the proposed changes");
        revisions.push({ approvalId, callId: current.call_id, proposal: taken.proposal, patch: taken.patch, receipt, receiptJws: taken.receipt });
        if (maxRevisions <= 0) throw new Deny("revised", `${taken.proposal.by} proposed changes instead of approving; the call was not run`);
        if (revisions.length > maxRevisions) {
          throw new Deny("too-many-revisions", `the call was revised more than ${maxRevisions} times in a row; it was not run`);
        }
        current = {
          ...current,
          call_id: revisionCallId(call.call_id, revisions.length),
          arguments: deepFreeze(patched(current.arguments, taken.patch)),
          revises: approvalId,
        };
      }
    } catch (error) {
      return { allowed: false, approvalId, reviews: [], revisions, ...denialOf(error) };
    }
  }

  /** One request of the chain: sent, waited for and consumed, its receipt verified. */
  private async askOnce(current: ApprovalRequestInput, options: AskOptions, recorded: (approvalId: string) => void): Promise<Taken> {
    // Not aborted mid-flight: a request Countersign stored must be known, to be withdrawn.
    const created = await this.client.requestApproval(current);
    const approvalId = created.approval_id;
    recorded(approvalId);
    if (options.signal?.aborted) {
      await this.withdraw(approvalId);
      throw new CountersignError({ code: "aborted", status: 0 });
    }
    const binding: ConsumeBinding = {
      run_id: current.run_id,
      call_id: current.call_id,
      tool: current.tool,
      args_digest: argsDigest(current.arguments, created.args_salt),
    };
    if (created.args_digest !== binding.args_digest) throw new Deny("binding-mismatch", "Countersign recorded another digest than this call's");
    if (current.revises !== undefined && created.warnings?.includes("revision-differs")) {
      // Nothing was carried over, and a changed call the reviewer did not propose is not left for review.
      await this.withdraw(approvalId);
      throw new Deny("revision-differs", "Countersign found the changed call different from the proposed changes; it was withdrawn");
    }
    this.options.onRequest?.(created);
    return { ...(await this.settle(approvalId, binding, options)), salt: created.args_salt };
  }

  private async settle(approvalId: string, binding: ConsumeBinding, options: AskOptions): Promise<Omit<Taken, "salt">> {
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
    return { taken, receipt };
  }

  /** The receipt's signature, fields and expiry, then its binding to this call. */
  private async checkReceipt(approvalId: string, binding: ConsumeBinding, decision: string, jws: string): Promise<ReceiptPayload> {
    let payload: ReceiptPayload;
    try {
      payload = await this.client.verifyReceipt(jws, this.options.jwks ?? this.client.jwksUrl);
    } catch (error) {
      const why = error instanceof CountersignError ? error.message : "it did not verify";
      throw new Deny("invalid-receipt", `the receipt was refused: ${why}`);
    }
    const expected: Record<(typeof RECEIPT_BINDING)[number], string> = {
      ...binding,
      approval_id: approvalId,
      service: this.client.serviceSlug,
      decision,
    };
    const differs = RECEIPT_BINDING.filter((field) => payload[field] !== expected[field]);
    // Field names only: the values may be the call's.
    if (differs.length)
      throw new Deny("binding-mismatch", `the receipt is about another call (its ${differs.join(", ")} differ); the call was not run`);
    return payload;
  }

  /**
   * Asks for `call`, and when it is allowed runs `execute` with exactly the approved
   * arguments (and the decision), then reports how it ran: `succeeded` with a digest of
   * what `execute` returned, or `failed` with a digest of the error's class name when it
   * threw. Returns `{ allowed, decision, result, execution }`; a denied call does not run
   * (`allowed: false`, check `decision.code` and `decision.reason`). Never throws, except
   * the tool's own error, rethrown as it was after the failure was reported.
   */
  async run<T>(
    call: PortCall,
    execute: (args: Readonly<Record<string, unknown>>, decision: ApprovedPortDecision) => T | PromiseLike<T>,
    options: AskOptions = {},
  ): Promise<PortRun<Awaited<T>>> {
    const decision = await this.ask(call, options);
    if (!decision.allowed) return { allowed: false, decision };
    let result: Awaited<T>;
    try {
      result = await execute(decision.arguments, decision);
    } catch (error) {
      await this.reportExecution(decision, { status: "failed", error, finishedAt: new Date() });
      throw error;
    }
    const execution = await this.reportExecution(decision, { status: "succeeded", result, finishedAt: new Date() });
    return { allowed: true, decision, result, execution };
  }

  /**
   * Reports how an approved call ran (docs/executions.md): the status, the digest of the
   * result (or of `{"error": <class name>}` for a thrown error) salted with the call's
   * args salt, and when it finished. Never throws and never rejects: a report that cannot
   * be made, sent or recorded (a denied decision, a copy without its salt, Countersign
   * unreachable, "already-reported"…) goes to `onReportError`, and the answer is then
   * undefined. Takes at most `reportTimeoutMs`, one retry of a lost connection included.
   */
  async reportExecution(decision: PortDecision, outcome: ExecutionOutcome): Promise<ExecutionRecorded | undefined> {
    try {
      if (!decision.allowed || decision.approvalId === undefined)
        throw new TypeError("only an approved call ran, so only its decision can be reported");
      const salt = decision.argsSalt;
      if (salt === undefined) throw new TypeError("the decision carries no args salt: report with the decision the port returned, not a copy");
      const value = "error" in outcome ? { error: errorClassName(outcome.error) } : outcome.result;
      const report: ExecutionReport = {
        status: outcome.status,
        result_digest: resultDigest(value, salt),
        finished_at: (outcome.finishedAt ?? new Date()).toISOString(),
      };
      return await this.sendReport(decision.approvalId, report);
    } catch (error) {
      const onReportError = this.options.onReportError ?? warnReportError;
      try {
        onReportError(error, { approvalId: decision.approvalId, tool: decision.receipt?.tool });
      } catch {
        // The hook's own failure changes nothing for the agent.
      }
      return undefined;
    }
  }

  private async sendReport(approvalId: string, report: ExecutionReport): Promise<ExecutionRecorded | undefined> {
    const budgetMs = this.options.reportTimeoutMs ?? DEFAULT_REPORT_TIMEOUT_MS;
    const deadline = Date.now() + budgetMs;
    try {
      return await this.client.reportExecution(approvalId, report, { timeoutMs: budgetMs });
    } catch (error) {
      // A connection that failed before any answer (often a kept-alive socket the server had
      // just closed, after a long tool call) is tried once more within the same budget.
      const remainingMs = deadline - Date.now();
      if (!(error instanceof CountersignError && error.code === "network-error") || remainingMs <= 0) throw error;
    }
    try {
      return await this.client.reportExecution(approvalId, report, { timeoutMs: Math.max(1, deadline - Date.now()) });
    } catch (error) {
      // The first attempt was recorded after all.
      if (error instanceof CountersignError && error.code === "already-reported") return undefined;
      throw error;
    }
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

/** The default `onReportError`: one line, the request and the error's code or class, nothing of the call's values. */
function warnReportError(error: unknown, report: ReportContext): void {
  const why = error instanceof CountersignError ? error.code : error instanceof Error ? error.name : typeof error;
  console.warn(`countersign: the execution report of ${report.approvalId ?? "a call"} was not recorded (${why})`);
}

function replayed(): Deny {
  return new Deny("replayed", "this call's decision was already used; it is not reused (send a new call id)");
}

/** The arguments with a reviewer's changes applied; the input is not changed. */
function patched(args: Readonly<Record<string, unknown>>, patch: JsonPatch): Record<string, unknown> {
  let result: unknown;
  try {
    result = applyJsonPatch(args, patch);
  } catch (error) {
    // JsonPatchError messages name operations and paths, never values.
    const why = error instanceof JsonPatchError ? error.message : "it could not be applied";
    throw new Deny("invalid-revision", `the proposed changes do not apply to the arguments (${why}); the call was not run`);
  }
  if (!isObject(result)) throw new Deny("invalid-revision", "the proposed changes do not leave a JSON object of arguments; the call was not run");
  return result;
}

function denialOf(error: unknown): { code: PortDecisionCode; reason: string } {
  if (error instanceof Deny) return { code: error.code, reason: error.reason };
  if (error instanceof CanonicalJsonError)
    return { code: "invalid-arguments", reason: `the arguments have no JSON form, so the call is denied: ${error.message}` };
  if (error instanceof CountersignError) {
    if (error.code === "aborted") return { code: "aborted", reason: "the call was cancelled while waiting for approval; the request was withdrawn" };
    if (error.code === "already-revised") {
      return { code: "already-revised", reason: "another call already carried these proposed changes; this call was not run" };
    }
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
