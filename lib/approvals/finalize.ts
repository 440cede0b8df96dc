// The one way a pending request reaches a decision: a conditional update that
// only a still-pending row passes (so two racers cannot both decide), then
// its audit event, its callback outbox row and its change notice, all in the
// caller's transaction.
import "server-only";
import type { Tx } from "../db/client";
import { sqlOf, type Sql } from "../db/sql";
import { appendAuditEvent } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { enqueueCallback } from "../callbacks/enqueue-callback";
import { announceChange } from "./changes";

export type Decision = "approved" | "denied" | "expired" | "cancelled" | "revised";

const EVENT = {
  approved: "approval.decided",
  denied: "approval.decided",
  expired: "approval.expired",
  cancelled: "approval.cancelled",
  // A reviewer proposed changes instead (docs/revisions.md): decided, and it never runs.
  revised: "approval.decided",
} as const;

export async function finalizeApproval(
  tx: Tx | Sql,
  approvalId: string,
  decision: Decision,
  opts: { decidedBy: string[]; decidedAt: Date; actor: Actor; reason?: string | null; requireExpired?: boolean },
): Promise<boolean> {
  const sql = sqlOf(tx);
  const [a] = await sql.all<{ service_id: string; run_id: string; call_id: string; tool: string; args_digest: string }>(
    `UPDATE approvals SET status = ?, decided_at = ?, decided_by = ?
     WHERE id = ? AND status = 'pending'${opts.requireExpired ? " AND expires_at <= ?" : ""}
     RETURNING service_id, run_id, call_id, tool, args_digest`,
    [decision, opts.decidedAt, JSON.stringify(opts.decidedBy), approvalId, ...(opts.requireExpired ? [opts.decidedAt] : [])],
  );
  if (!a) return false;
  await enqueueCallback(sql, {
    approvalId,
    serviceId: a.service_id,
    runId: a.run_id,
    callId: a.call_id,
    tool: a.tool,
    argsDigest: a.args_digest,
    decision,
    decidedBy: opts.decidedBy,
    decidedAt: opts.decidedAt,
  });
  await announceChange(sql, approvalId);
  await appendAuditEvent(sql, {
    type: EVENT[decision],
    actor: opts.actor,
    approvalId,
    data: {
      decision,
      decided_by: opts.decidedBy,
      args_digest: a.args_digest,
      ...(opts.reason ? { reason: opts.reason } : {}),
    },
  });
  return true;
}
