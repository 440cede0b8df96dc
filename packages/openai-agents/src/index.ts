/**
 * OpenAI Agents SDK tools whose execution waits for a Countersign approval.
 * `withApproval({ name, description, parameters, execute }, { client | port, runId })`
 * (or `withApproval(tool({...}), …)`) → the same tool for the model; its body
 * runs only with arguments Countersign approved and consumed for that call.
 */
export { withApproval } from "./with-approval.js";
export { type RunIdContext, type WithApprovalOptions } from "./gate.js";
export { isApprovalDenied, type ApprovalDenied } from "@countersign/client";
