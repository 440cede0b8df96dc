// The service withdraws a pending request (its run was aborted): docs/api.md
import "server-only";
import { inTransaction } from "../db/transaction";
import { AppError } from "../errors";
import type { AuthenticatedService } from "../services/authenticate-service";
import { emitLocalChange } from "./changes";
import { expireIfDue } from "./expire-approval";
import { finalizeApproval } from "./finalize";

export async function cancelApproval(service: AuthenticatedService, approvalId: string) {
  const now = new Date();
  const outcome = await inTransaction(async (tx) => {
    const a = await tx.approval.findFirst({ where: { id: approvalId, serviceId: service.id } });
    if (!a) return "not-found" as const;
    if (await expireIfDue(tx, a, now)) return "expired" as const;
    const cancelled = await finalizeApproval(tx, approvalId, "cancelled", {
      decidedBy: [],
      decidedAt: now,
      actor: `service:${service.slug}`,
    });
    return cancelled ? ("cancelled" as const) : ("already-decided" as const);
  });
  if (outcome === "not-found") throw new AppError("not-found");
  emitLocalChange(approvalId);
  if (outcome !== "cancelled") throw new AppError("already-decided");
  return { approval_id: approvalId, status: "cancelled" as const, cancelled_at: now.toISOString() };
}
