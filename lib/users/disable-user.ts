// Disabling and enabling accounts (docs/operations.md). A disabled user's sessions
// stop working at once: every request re-reads the user (lib/auth/sessions),
// and their session rows are revoked too, so enabling the account again does
// not revive an old cookie. Like role changes, each takes the audit chain's
// head first (holdAuditHead), which serializes the last-admin check below.
import "server-only";
import type { Tx } from "../db/client";
import { inTransaction } from "../db/transaction";
import { holdAuditHead, recordAudit } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { AppError } from "../errors";
import { countActiveAdmins, inForceAt } from "./roles";
import { ADMIN_ROLE, emailSchema } from "./schemas";

async function userByEmail(tx: Tx, email: string) {
  const user = await tx.user.findUnique({ where: { email }, select: { id: true, email: true, disabledAt: true } });
  if (!user) throw new AppError("not-found", "no user with that email");
  return user;
}

/** Marks the account disabled and ends every session it has, at once; returns how many sessions ended. */
export async function disableAccount(tx: Tx, userId: string, now: Date): Promise<number> {
  await tx.user.update({ where: { id: userId }, data: { disabledAt: now } });
  const { count } = await tx.session.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: now } });
  return count;
}

export async function disableUser(emailInput: string, actor: Actor): Promise<{ email: string; disabled: true; sessions_revoked: number }> {
  const email = emailSchema.parse(emailInput);
  return inTransaction(async (tx) => {
    await holdAuditHead(tx);
    recordAudit({ type: "user.disabled", actor, data: { user: email, self: actor === `user:${email}` } });
    const user = await userByEmail(tx, email);
    if (user.disabledAt) throw new AppError("conflict", `${email} is already disabled`);
    const now = new Date();
    const count = await disableAccount(tx, user.id, now);
    // An admin role whose time ended (not yet swept) no longer makes them an admin.
    const wasAdmin = (await tx.userRole.count({ where: { userId: user.id, role: ADMIN_ROLE, ...inForceAt(now) } })) > 0;
    if (wasAdmin && (await countActiveAdmins(tx, now)) === 0) {
      throw new AppError("last-admin", "cannot disable the last active admin");
    }
    return { email, disabled: true as const, sessions_revoked: count };
  });
}

export async function enableUser(emailInput: string, actor: Actor): Promise<{ email: string; enabled: true }> {
  const email = emailSchema.parse(emailInput);
  return inTransaction(async (tx) => {
    await holdAuditHead(tx);
    recordAudit({ type: "user.enabled", actor, data: { user: email } });
    const user = await userByEmail(tx, email);
    if (!user.disabledAt) throw new AppError("conflict", `${email} is not disabled`);
    await tx.user.update({ where: { id: user.id }, data: { disabledAt: null } });
    return { email, enabled: true as const };
  });
}
