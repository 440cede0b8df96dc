// Escalation (docs/notifications.md): when nobody decided a request within
// its policy's escalate_after, the roles in escalate_to_roles join its
// required roles, once. Everything that asks who may decide (the review,
// the queue, the decision page, the recipients) reads required_roles, so
// the newly eligible can act at once. Runs in the fan-out's transaction.
import "server-only";
import type { Unit } from "../db/transaction";
import { recordAudit } from "../audit/append-event";
import { announceChange } from "../approvals/changes";
import { requiredRolesOf } from "../reviews/eligibility";

export type Escalation = { addedRoles: string[]; requiredRoles: string[] };

/**
 * Adds the snapshotted escalation roles to a pending, unexpired request that
 * was not escalated yet; returns what changed, or null when nothing did.
 * Call emitLocalChange(approvalId) after the commit when it returns non-null.
 */
export async function escalateApproval(tx: Unit, approvalId: string, now = new Date()): Promise<Escalation | null> {
  // Lock the row first, as recordReview does, so a vote and the escalation
  // are ordered: each reads the other's committed required roles.
  await tx.$executeRaw`UPDATE approvals SET approve_count = approve_count WHERE id = ${approvalId}`;
  const a = await tx.approval.findUnique({
    where: { id: approvalId },
    select: { status: true, expiresAt: true, escalatedAt: true, requiredRoles: true, escalateToRoles: true },
  });
  if (!a || a.status !== "pending" || a.expiresAt <= now || a.escalatedAt !== null) return null;
  const current = requiredRolesOf(a.requiredRoles);
  const addedRoles = requiredRolesOf(a.escalateToRoles).filter((r) => !current.includes(r));
  const requiredRoles = [...current, ...addedRoles];
  // Stored as ingest stores it (JSON.stringify of the list): the queue compares these strings.
  const { count } = await tx.approval.updateMany({
    where: { id: approvalId, status: "pending", escalatedAt: null },
    data: { requiredRoles: JSON.stringify(requiredRoles), escalatedAt: now },
  });
  if (count === 0) return null;
  await announceChange(tx, approvalId);
  recordAudit({
    type: "approval.escalated",
    actor: "system",
    approvalId,
    data: { added_roles: addedRoles, required_roles: requiredRoles },
  });
  return { addedRoles, requiredRoles };
}
