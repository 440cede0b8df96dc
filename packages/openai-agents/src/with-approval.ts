/**
 * Gates an OpenAI Agents SDK function tool on Countersign, in one of two ways:
 *
 * - `withApproval({ name, description, parameters, execute }, options)`: the
 *   tool is built with the SDK's own `tool()` around a gated `execute`. The
 *   SDK validates the model's input against `parameters` first; that parsed
 *   input is what reviewers approve, and `execute` receives exactly the
 *   approved, frozen copy. Preferred for tools you write.
 * - `withApproval(tool({...}), options)`: for a FunctionTool built elsewhere.
 *   Its `invoke` is replaced: the model's JSON arguments are approved, then the
 *   original `invoke` gets the approved arguments as its input (its schema
 *   parses them as usual).
 *
 * Either way the body is reachable only through the gate, which the SDK's
 * runner enters with `details.toolCall.callId`, the model's tool call id.
 *
 * After the body ran, the run is reported to Countersign (`runAndReport`):
 * succeeded with a digest of its result, failed when it threw. In the second
 * form the SDK's `tool()` usually turns a thrown error into text for the model
 * (its `errorFunction`) inside the original `invoke`, so such a failure is
 * reported as succeeded, with the digest of that text; a tool built with
 * `errorFunction: null` throws, and is reported as failed.
 *
 * Why not the SDK's own `needsApproval` (interruptions + `state.approve`)?
 * There the approval is a flag in the run state: whoever resumes the state
 * decides, and the tool then runs with the arguments held in that state, not
 * with the arguments whose digest Countersign approved and consumed. Gating
 * the execution binds it to the consumed approval itself, and needs no
 * interrupted run to be resumed.
 */
import {
  tool as sdkTool,
  type FunctionTool,
  type RunContext,
  type ToolExecuteArgument,
  type ToolInputParameters,
  type ToolOptions,
  type UnknownContext,
} from "@openai/agents";
import type { ApprovalDenied } from "@countersign/client";
import { askCountersign, portFrom, runAndReport, type WithApprovalOptions } from "./gate.js";

/** What the runner hands a tool call besides its input (`details.toolCall.callId`, `details.signal`). */
type InvokeDetails = Parameters<FunctionTool["invoke"]>[2];

type Gated<Context, TParameters extends ToolInputParameters, Result> = FunctionTool<Context, TParameters, Result | ApprovalDenied>;

/**
 * Wraps a FunctionTool (what `tool()` returns): the same tool for the model, gated.
 * `summary` sees the model's JSON arguments, before the tool's schema parses them.
 */
export function withApproval<Context, TParameters extends ToolInputParameters, Result>(
  tool: FunctionTool<Context, TParameters, Result>,
  options: WithApprovalOptions<Context>,
): Gated<Context, TParameters, Result>;
/** Builds the tool with the SDK's `tool()`, its `execute` gated and given exactly the approved arguments. */
export function withApproval<TParameters extends ToolInputParameters = undefined, Context = UnknownContext, Result = string>(
  toolOptions: ToolOptions<TParameters, Context>,
  options: WithApprovalOptions<Context, ToolExecuteArgument<TParameters>>,
): Gated<Context, TParameters, Result>;
export function withApproval(
  target: FunctionTool<unknown, ToolInputParameters, unknown> | ToolOptions<ToolInputParameters, unknown>,
  options: WithApprovalOptions<unknown, never>,
): Gated<unknown, ToolInputParameters, unknown> {
  if (isFunctionTool(target)) return gateInvoke(target, options);
  if (typeof (target as { execute?: unknown })?.execute === "function") return gateExecute(target, options);
  throw new TypeError("withApproval takes tool() options or the FunctionTool that tool() returns");
}

function isFunctionTool(value: unknown): value is FunctionTool<unknown, ToolInputParameters, unknown> {
  const v = value as { type?: unknown; invoke?: unknown } | null;
  return v?.type === "function" && typeof v.invoke === "function";
}

function gateExecute(toolOptions: ToolOptions<ToolInputParameters, unknown>, options: WithApprovalOptions<unknown, never>) {
  const port = portFrom(options);
  const execute = toolOptions.execute as (input: unknown, context?: RunContext<unknown>, details?: InvokeDetails) => unknown;
  let countersignName = options.name ?? "";
  const gatedExecute = async (input: unknown, context?: RunContext<unknown>, details?: InvokeDetails) => {
    const gate = await askCountersign(port, countersignName, options, {
      callId: details?.toolCall?.callId,
      context,
      input,
      signal: details?.signal,
    });
    if (!gate.allowed) return gate.denial;
    // Exactly the consumed arguments (a frozen copy), once.
    return runAndReport(port, gate.decision, () => execute(gate.arguments, context, details));
  };
  // tool() names an unnamed tool after its execute function: keep the caller's function name.
  const built = sdkTool({ ...toolOptions, name: toolOptions.name ?? execute.name, execute: gatedExecute } as ToolOptions<
    ToolInputParameters,
    unknown
  >);
  countersignName ||= built.name;
  return built as Gated<unknown, ToolInputParameters, unknown>;
}

function gateInvoke(tool: FunctionTool<unknown, ToolInputParameters, unknown>, options: WithApprovalOptions<unknown, never>) {
  const port = portFrom(options);
  const countersignName = options.name ?? tool.name;
  const originalInvoke = tool.invoke;
  const invoke: typeof originalInvoke = async (runContext, input, details) => {
    let args: unknown;
    try {
      args = JSON.parse(input);
    } catch {
      args = undefined; // not JSON: the gate refuses it as invalid arguments
    }
    const gate = await askCountersign(port, countersignName, options, {
      callId: details?.toolCall?.callId,
      context: runContext,
      input: args,
      signal: details?.signal,
    });
    if (!gate.allowed) return gate.denial;
    // Exactly the consumed arguments, through the tool's own schema, once.
    return runAndReport(port, gate.decision, () => originalInvoke(runContext, JSON.stringify(gate.arguments), details));
  };
  // Same descriptors (symbol-keyed SDK metadata included), only invoke replaced.
  const gated = Object.defineProperties({}, Object.getOwnPropertyDescriptors(tool)) as Gated<unknown, ToolInputParameters, unknown>;
  Object.defineProperty(gated, "invoke", { value: invoke, enumerable: true, writable: false, configurable: false });
  return gated;
}
