// Granting and revoking reviewer roles, with their audit events. Each change
// takes the chain's head first (holdAuditHead), which serializes concurrent
// role changes, so the last-admin check below reads the state its
// predecessor committed (no write skew).
import "server-only";
import type { Tx } from "../db/client";
import { inTransaction } from "../db/transaction";
import { holdAuditHead, recordAudit } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { AppError } from "../errors";
import { ADMIN_ROLE, emailSchema, roleSchema } from "./schemas";

async function userByEmail(tx: Tx, email: string) {
  const user = await tx.user.findUnique({ where: { email: emailSchema.parse(email) } });
  if (!user) throw new AppError("not-found", "no user with that email");
  return user;
}

export async function countActiveAdmins(tx: Tx): Promise<number> {
  return tx.userRole.count({ where: { role: ADMIN_ROLE, user: { disabledAt: null } } });
}

export async function grantRole(input: { email: string; role: string }, actor: Actor) {
  const role = roleSchema.parse(input.role);
  return inTransaction(async (tx) => {
    const user = await userByEmail(tx, input.email);
    const selfGrant = actor === `user:${user.email}`;
    await holdAuditHead(tx);
    recordAudit({
      type: "role.granted",
      actor,
      data: { user: user.email, role, selfGrant },
    });
    const existing = await tx.userRole.findUnique({ where: { userId_role: { userId: user.id, role } } });
    if (existing) throw new AppError("conflict", `${user.email} already has role ${role}`);
    await tx.userRole.create({ data: { userId: user.id, role, grantedBy: actor } });
    return { email: user.email, role, granted: true };
  });
}

export async function revokeRole(input: { email: string; role: string }, actor: Actor) {
  const role = roleSchema.parse(input.role);
  return inTransaction(async (tx) => {
    const user = await userByEmail(tx, input.email);
    await holdAuditHead(tx);
    recordAudit({ type: "role.revoked", actor, data: { user: user.email, role } });
    const { count } = await tx.userRole.deleteMany({ where: { userId: user.id, role } });
    if (count === 0) throw new AppError("not-found", `${user.email} does not have role ${role}`);
    if (role === ADMIN_ROLE && (await countActiveAdmins(tx)) === 0) {
      throw new AppError("last-admin", "cannot revoke the last active admin");
    }
    return { email: user.email, role, revoked: true };
  });
}

export async function rolesOf(tx: Tx, userId: string): Promise<string[]> {
  const rows = await tx.userRole.findMany({ where: { userId }, select: { role: true }, orderBy: { role: "asc" } });
  return rows.map((r) => r.role);
}
