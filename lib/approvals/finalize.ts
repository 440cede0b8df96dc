// The one way a pending request reaches a decision: a conditional update that
// only a still-pending row passes (so two racers cannot both decide), then
// its audit event, its callback outbox row and its change notice, all in the
// caller's transaction; and, once that transaction committed, the decision
// counted in this instance's metrics (lib/metrics).
import "server-only";
import { afterCommit } from "../db/unit-of-work";
import { asDate, type Sql } from "../db/sql";
import { countDecision } from "../metrics/count";
import { recordAudit } from "../audit/append-event";
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
  sql: Sql,
  approvalId: string,
  decision: Decision,
  opts: {
    decidedBy: string[];
    decidedAt: Date;
    actor: Actor;
    reason?: string | null;
    requireExpired?: boolean;
  },
): Promise<boolean> {
  const [a] = await sql.all<{ service_id: string; run_id: string; call_id: string; tool: string; args_digest: string; created_at: unknown }>(
    `UPDATE approvals SET status = ?, decided_at = ?, decided_by = ?
     WHERE id = ? AND status = 'pending'${opts.requireExpired ? " AND expires_at <= ?" : ""}
     RETURNING service_id, run_id, call_id, tool, args_digest, created_at`,
    [decision, opts.decidedAt, JSON.stringify(opts.decidedBy), approvalId, ...(opts.requireExpired ? [opts.decidedAt] : [])],
  );
  if (!a) return false;
  // Every decision path comes through here: counted once, by this instance, only if the transaction commits.
  const seconds = (opts.decidedAt.getTime() - asDate(a.created_at).getTime()) / 1000;
  afterCommit(() => countDecision(decision, seconds));
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
  recordAudit({
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
