// The one way a pending request reaches a decision: a conditional update that
// only a still-pending row passes (so two racers cannot both decide), then
// its audit event, its callback outbox row and its change notice, all in the
// caller's transaction.
import "server-only";
import type { Tx } from "../db/client";
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
  tx: Tx,
  approvalId: string,
  decision: Decision,
  opts: { decidedBy: string[]; decidedAt: Date; actor: Actor; reason?: string | null; requireExpired?: boolean },
): Promise<boolean> {
  const { count } = await tx.approval.updateMany({
    where: {
      id: approvalId,
      status: "pending",
      ...(opts.requireExpired ? { expiresAt: { lte: opts.decidedAt } } : {}),
    },
    data: { status: decision, decidedAt: opts.decidedAt, decidedBy: JSON.stringify(opts.decidedBy) },
  });
  if (count === 0) return false;
  const a = await tx.approval.findUniqueOrThrow({ where: { id: approvalId } });
  await enqueueCallback(tx, {
    approvalId,
    serviceId: a.serviceId,
    runId: a.runId,
    callId: a.callId,
    tool: a.tool,
    argsDigest: a.argsDigest,
    decision,
    decidedBy: opts.decidedBy,
    decidedAt: opts.decidedAt,
  });
  await announceChange(tx, approvalId);
  await appendAuditEvent(tx, {
    type: EVENT[decision],
    actor: opts.actor,
    approvalId,
    data: {
      decision,
      decided_by: opts.decidedBy,
      args_digest: a.argsDigest,
      ...(opts.reason ? { reason: opts.reason } : {}),
    },
  });
  return true;
}
