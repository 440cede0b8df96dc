/**
 * Vercel AI SDK (v6) tools whose execution waits for Countersign.
 *
 * `withApproval(tool, options)` returns the same tool with a gated `execute`:
 * each call is sent to Countersign bound to the run and the tool call id the
 * SDK gives, and the original body runs once, only after a consumed approval
 * with a verified receipt, and only with the arguments that were approved.
 * Anything else (a denial, expiry, no decision in time, an abort, Countersign
 * unreachable) returns an `ApprovalDenied` result that the model reads as the
 * tool's output; the body does not run.
 *
 * After the body ran, the port reports the run to Countersign (succeeded with a
 * salted digest of the output, or failed with the digest of the error's class
 * name, the error then rethrown as it was). The report is awaited, bounded by
 * the port's `reportTimeoutMs` (5 s by default), and never changes the output:
 * a report that fails goes to the port's `onReportError`.
 */
import { ApprovalPort, type CountersignClient, type Effects, type PortCall, type PortDecision } from "@countersign/client";
import type { Tool, ToolExecutionOptions } from "ai";
import { approvalDenied, isApprovalDenied, type ApprovalDenied } from "@countersign/client";
import { finalOutput } from "./final-output.js";

export { isApprovalDenied, type ApprovalDenied } from "@countersign/client";

/** What a run id function is given for each call. */
export interface RunIdContext {
  /** The SDK's tool call id (also sent as `call_id`). */
  callId: string;
  /** `experimental_context` of generateText/streamText, if any. */
  context?: unknown;
}

export interface WithApprovalOptions<INPUT> {
  /** The port that asks Countersign. Give this or `client`; a port wins. */
  port?: ApprovalPort;
  /** A client to build a port from (with `timeoutMs` as its timeout). */
  client?: CountersignClient;
  /**
   * The tool's name in Countersign, e.g. "payments.refund" (what policies match).
   * Required: the SDK does not tell `execute` the key a tool is registered under.
   */
  name: string;
  /**
   * The agent run this call belongs to. A string is fixed for the wrapper's life:
   * build the wrapped tools per run. A function is evaluated per call.
   */
  runId: string | ((call: RunIdContext) => string);
  /** A sentence for reviewers, built from the input (it is redacted like the arguments). */
  summary?: (input: INPUT) => string;
  effects?: Effects;
  environment?: string;
  /** Who asked for the run (an email); reviewers cannot approve their own request. */
  requestedBy?: string;
  /** Seconds until the request expires in Countersign (the policy's TTL otherwise). */
  expiresIn?: number;
  /** How long to wait for a decision before denying and withdrawing (the port's default otherwise). */
  timeoutMs?: number;
  /** Called every few seconds while the call waits for reviewers. */
  onProgress?: (elapsedMs: number) => void;
  /** Called with every decision, e.g. to keep the receipt as evidence or to log the outcome. */
  onDecision?: (decision: PortDecision, call: { runId: string; callId: string }) => void;
}

/**
 * Gates an AI SDK tool on a Countersign approval. The returned tool's output
 * is the original output or an `ApprovalDenied` result.
 */
export function withApproval<INPUT extends Record<string, unknown>, OUTPUT>(
  original: Tool<INPUT, OUTPUT>,
  options: WithApprovalOptions<INPUT>,
): Tool<INPUT, OUTPUT | ApprovalDenied> {
  const execute = original.execute;
  if (typeof execute !== "function") throw new TypeError("withApproval: the tool has no execute function to gate");
  if (!options.name) throw new TypeError("withApproval: `name` (the tool's name in Countersign) is required");
  const port = options.port ?? (options.client ? new ApprovalPort(options.client, { timeoutMs: options.timeoutMs }) : undefined);
  if (!port) throw new TypeError("withApproval: give `port` or `client`");

  const gated = async (input: INPUT, execution: ToolExecutionOptions): Promise<OUTPUT | ApprovalDenied> => {
    const callId = execution?.toolCallId;
    // Called outside the SDK's loop without a tool call id, there is nothing to bind the approval to.
    if (typeof callId !== "string" || callId === "") {
      return approvalDenied({ code: "missing-call-id", reason: "the tool call has no call id, so it cannot be approved" });
    }
    if (input === null || typeof input !== "object" || Array.isArray(input)) {
      return approvalDenied({ code: "invalid-arguments", reason: "the tool input is not a JSON object, so the call is denied" });
    }
    let runId: string;
    let call: PortCall;
    try {
      runId = typeof options.runId === "function" ? options.runId({ callId, context: execution.experimental_context }) : options.runId;
      call = callFor(options, runId, callId, input);
    } catch (error) {
      // Fail closed: a run id or summary that cannot be made means no request, so no execution.
      const kind = error instanceof Error ? error.name : typeof error;
      return approvalDenied({ code: "error", reason: `the approval request could not be built (${kind}), so the call is denied` });
    }
    const decision = await port.ask(call, {
      signal: execution.abortSignal,
      timeoutMs: options.timeoutMs,
      onProgress: options.onProgress,
    });
    options.onDecision?.(decision, { runId, callId });
    if (!decision.allowed) return approvalDenied(decision);
    let output: OUTPUT;
    try {
      // The port's frozen copy of exactly what was approved, not the model's object.
      output = await finalOutput(execute.call(original, decision.arguments as INPUT, execution));
    } catch (error) {
      await port.reportExecution(decision, { status: "failed", error, finishedAt: new Date() });
      throw error;
    }
    await port.reportExecution(decision, { status: "succeeded", result: output, finishedAt: new Date() });
    return output;
  };

  const wrapped = { ...original, execute: gated } as Tool<INPUT, OUTPUT | ApprovalDenied>;
  const toModelOutput = original.toModelOutput;
  if (toModelOutput) {
    // The tool's own converter knows its outputs, not ours: denials go to the model as JSON.
    wrapped.toModelOutput = (o) =>
      isApprovalDenied(o.output) ? { type: "json", value: { ...o.output } } : toModelOutput({ ...o, output: o.output as OUTPUT });
  }
  return wrapped;
}

function callFor<INPUT extends Record<string, unknown>>(options: WithApprovalOptions<INPUT>, runId: string, callId: string, input: INPUT): PortCall {
  const call: PortCall = { run_id: runId, call_id: callId, tool: options.name, arguments: input };
  if (options.summary) call.summary = options.summary(input);
  if (options.effects) call.effects = options.effects;
  if (options.environment) call.environment = options.environment;
  if (options.requestedBy) call.requested_by = options.requestedBy;
  if (options.expiresIn !== undefined) call.expires_in = options.expiresIn;
  return call;
}
