/**
 * The one place a tool call meets Countersign: ask the ApprovalPort for this
 * call and return either the approved arguments or the denial for the model.
 * Never throws; every doubt is a denial. After an approved body ran,
 * `runAndReport` reports the run.
 */
import { ApprovalPort, type ApprovedPortDecision, type CountersignClient, type Effects, type PortDecision } from "@countersign/client";
import type { RunContext } from "@openai/agents";
import { approvalDenied, type ApprovalDenied } from "@countersign/client";

/** What a `runId` function is given for each call. */
export interface RunIdContext<Context = unknown> {
  /** The model's tool call id (becomes Countersign's call_id). */
  callId: string;
  /** The SDK's run context (`RunContext`); it carries no run id of its own. */
  context?: RunContext<Context>;
}

export interface WithApprovalOptions<Context = unknown, Input = Record<string, unknown>> {
  /** The port to ask; wins over `client`. */
  port?: ApprovalPort;
  /** Used to build a port (`new ApprovalPort(client, { timeoutMs })`) when no `port` is given. */
  client?: CountersignClient;
  /** Countersign's tool name, e.g. "payments.refund". Defaults to the SDK tool's name. */
  name?: string;
  /** The agent run this call belongs to: fixed per wrapper, or worked out per call. */
  runId: string | ((call: RunIdContext<Context>) => string);
  /** A sentence for reviewers, from the arguments sent for approval (redacted like them). */
  summary?: (input: Input) => string;
  effects?: Effects;
  environment?: string;
  /** Sent as `requested_by`. */
  requestedBy?: string;
  /** Sent as `expires_in` (seconds). */
  expiresIn?: number;
  /** How long one call waits for a decision (the port's own default otherwise). */
  timeoutMs?: number;
  onProgress?: (elapsedMs: number) => void;
  /** Called with every port decision, e.g. to keep the receipt as evidence or to log the outcome. */
  onDecision?: (decision: PortDecision, call: { runId: string; callId: string }) => void;
}

export type GateResult =
  { allowed: true; arguments: Readonly<Record<string, unknown>>; decision: ApprovedPortDecision } | { allowed: false; denial: ApprovalDenied };

export function portFrom(options: Pick<WithApprovalOptions<never, never>, "port" | "client" | "timeoutMs">): ApprovalPort {
  if (options.port) return options.port;
  if (options.client) return new ApprovalPort(options.client, options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs });
  throw new TypeError("withApproval needs a port or a client");
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const deny = (denial: ApprovalDenied): GateResult => ({ allowed: false, denial });

export async function askCountersign<Context>(
  port: ApprovalPort,
  toolName: string,
  options: WithApprovalOptions<Context, never>,
  call: { callId: string | undefined; context: RunContext<Context> | undefined; input: unknown; signal: AbortSignal | undefined },
): Promise<GateResult> {
  const { callId, input, signal } = call;
  // Outside the runner (or from an SDK version that stops passing it) there is no call id to bind to.
  if (typeof callId !== "string" || callId === "") {
    return deny(approvalDenied({ code: "missing-call-id", reason: "the tool call has no call id, so it cannot be approved" }));
  }
  if (!isPlainObject(input))
    return deny(approvalDenied({ code: "invalid-arguments", reason: "the tool input is not a JSON object, so the call is denied" }));

  let verdict: PortDecision;
  let runId: string;
  try {
    runId = typeof options.runId === "function" ? options.runId({ callId, context: call.context }) : options.runId;
    verdict = await port.ask(
      {
        run_id: runId,
        call_id: callId,
        tool: toolName,
        arguments: input,
        ...(options.summary ? { summary: (options.summary as (input: unknown) => string)(input) } : {}),
        ...(options.effects ? { effects: options.effects } : {}),
        ...(options.environment ? { environment: options.environment } : {}),
        ...(options.requestedBy ? { requested_by: options.requestedBy } : {}),
        ...(options.expiresIn !== undefined ? { expires_in: options.expiresIn } : {}),
      },
      {
        ...(signal ? { signal } : {}),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      },
    );
  } catch {
    // The port never throws; a runId or summary callback might. Fail closed.
    return deny(approvalDenied({ code: "error", reason: "the approval request could not be built, so the call is denied" }));
  }
  try {
    options.onDecision?.(verdict, { runId, callId });
  } catch {
    // An observer's failure changes nothing about the decision.
  }

  if (!verdict.allowed) return deny(approvalDenied(verdict));
  // The runner gave up on this call (tool timeout, cancelled run) while the approval was being
  // consumed: its result would be thrown away, so do not act on it.
  if (signal?.aborted)
    return deny(approvalDenied({ code: "aborted", reason: "the tool call was cancelled before it could run", approvalId: verdict.approvalId }));
  return { allowed: true, arguments: verdict.arguments, decision: verdict };
}

/**
 * Runs an approved body, then reports the run to Countersign: succeeded with a salted
 * digest of what it returned, or failed with the digest of the error's class name, the
 * error then rethrown as it was. The report is awaited, at most the port's
 * `reportTimeoutMs` (5 s by default); it never changes the result, and its failures go
 * to the port's `onReportError`.
 */
export async function runAndReport<T>(port: ApprovalPort, decision: ApprovedPortDecision, body: () => T | PromiseLike<T>): Promise<Awaited<T>> {
  let result: Awaited<T>;
  try {
    result = await body();
  } catch (error) {
    await port.reportExecution(decision, { status: "failed", error, finishedAt: new Date() });
    throw error;
  }
  await port.reportExecution(decision, { status: "succeeded", result, finishedAt: new Date() });
  return result;
}
