// Time-bound roles (role grant --until) end by themselves. The authority
// check and every read of roles already stop counting one at its end
// (authority.ts rolesInForce, roles.ts inForceAt); this sweep, run by the
// background work, removes the row and records `role.expired`, once, on
// however many instances run it.
import "server-only";
import { db } from "../db/client";
import { inTransaction } from "../db/transaction";
import { holdAuditHead, recordAudit } from "../audit/append-event";
import { roleExpiredEvent } from "./roles";

/** At most this many roles end per call; the next call takes the rest. */
export const EXPIRE_ROLES_BATCH = 100;

/** Ends the time-bound roles whose time is up at `now`; returns how many ended. */
export async function expireRoles(now = new Date()): Promise<number> {
  const due = await db().userRole.findMany({
    where: { expiresAt: { lte: now } },
    select: { userId: true, role: true, viaGroup: true },
    orderBy: { expiresAt: "asc" },
    take: EXPIRE_ROLES_BATCH,
  });
  if (due.length === 0) return 0;
  return inTransaction(async (tx) => {
    await holdAuditHead(tx);
    let ended = 0;
    for (const key of due) {
      const { role } = key;
      // Read again under the chain's head: another instance may have swept it, an admin revoked or re-granted it.
      const where = { userId_role_viaGroup: key };
      const row = await tx.userRole.findUnique({ where, include: { user: { select: { email: true } } } });
      if (!row?.expiresAt || row.expiresAt.getTime() > now.getTime()) continue;
      await tx.userRole.delete({ where });
      recordAudit(roleExpiredEvent(row.user.email, role, row.expiresAt));
      ended++;
    }
    return ended;
  });
}
