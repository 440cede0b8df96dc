/**
 * The result a gated tool gives a model instead of running: the same shape in
 * every Countersign integration (AI SDK, OpenAI Agents), so an agent's prompt
 * written for one framework reads the other's denials alike.
 */
export interface ApprovalDenied {
  approved: false;
  /** Why, as a code: the port's ("denied", "expired", "timeout", "replayed", "aborted", "network-error", …) or the integration's ("missing-call-id"). */
  decision: string;
  /** A sentence for the model (a reviewer's reason included); never quotes argument values. */
  reason: string;
  /** The Countersign request, when one was created (or found). */
  approval_id?: string;
}

export function approvalDenied(d: { code: string; reason: string; approvalId?: string }): ApprovalDenied {
  const denied: ApprovalDenied = { approved: false, decision: d.code, reason: d.reason };
  if (d.approvalId) denied.approval_id = d.approvalId;
  return denied;
}

const DENIAL_KEYS = new Set(["approved", "decision", "reason", "approval_id"]);

/** True for a denial result (also after a JSON round trip, e.g. in UI messages or a runner's tool output). */
export function isApprovalDenied(value: unknown): value is ApprovalDenied {
  if (value === null || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return v.approved === false && typeof v.decision === "string" && typeof v.reason === "string" && Object.keys(v).every((k) => DENIAL_KEYS.has(k));
}
