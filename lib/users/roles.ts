// Granting and revoking reviewer roles, with their audit events. Each change
// takes the chain's head first (holdAuditHead), which serializes concurrent
// role changes, so the last-admin check below reads the state its
// predecessor committed (no write skew).
import "server-only";
import type { Tx } from "../db/client";
import { inTransaction } from "../db/transaction";
import { holdAuditHead, recordAudit } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { AppError, parseField } from "../errors";
import { ADMIN_ROLE, emailSchema, roleSchema, untilSchema } from "./schemas";
import { inForceAt } from "./in-force";
import { overriddenFor, refuseUnusedRoles } from "../policies/reachability";

async function userByEmail(tx: Tx, email: string) {
  const user = await tx.user.findUnique({ where: { email: emailSchema.parse(email) } });
  if (!user) throw new AppError("not-found", "no user with that email");
  return user;
}

/** The viaGroup of a role granted by hand (the others are held through a directory group: lib/groups). */
export const BY_HAND = "";

export { inForceAt };

/** Enabled people holding admin now, by hand or through a group (each counted once). */
export async function countActiveAdmins(tx: Tx, now = new Date()): Promise<number> {
  return tx.user.count({ where: { disabledAt: null, roles: { some: { role: ADMIN_ROLE, ...inForceAt(now) } } } });
}

/** The record of a time-bound role that reached its end: by the system, at its end. */
export const roleExpiredEvent = (email: string, role: string, until: Date) =>
  ({ type: "role.expired", actor: "system", data: { user: email, role, until: until.toISOString() } }) as const;

/** A refusal of the `until` field: its message names the field, its issue lets a form use the field's label. */
const untilRefused = (message: string) => new AppError("invalid-request", `until: ${message}`, { issues: [{ path: "until", message }] });

function parseUntil(text: string | null | undefined): Date | null {
  if (text === undefined || text === null || text.trim() === "") return null;
  const parsed = untilSchema.safeParse(text);
  if (!parsed.success) throw untilRefused(parsed.error.issues[0]!.message);
  return parsed.data;
}

/** The longest a time-bound role may be granted for. */
const MAX_UNTIL_MS = 5 * 366 * 24 * 3600_000;

/**
 * Grants a role, until revoked or, with `until`, until that time (it then
 * ends by itself: expire-roles.ts). `until` must lie in the future of `now`.
 * A role no policy uses is refused (UnreachableError, lib/policies/reachability.ts)
 * unless `anyway`; its role.granted event then records that.
 */
export async function grantRole(input: { email: string; role: string; until?: string | null; anyway?: boolean }, actor: Actor, now = new Date()) {
  const role = parseField(roleSchema, input.role, "role");
  const until = parseUntil(input.until);
  if (until && until.getTime() <= now.getTime()) throw untilRefused("must be in the future");
  if (until && until.getTime() - now.getTime() > MAX_UNTIL_MS) throw untilRefused("must be within five years");
  return inTransaction(async (tx) => {
    const user = await userByEmail(tx, input.email);
    const selfGrant = actor === `user:${user.email}`;
    await holdAuditHead(tx);
    const problems = await refuseUnusedRoles(tx, "grant", [role], input.anyway, now);
    // One in force is a conflict; one that has ended but is not yet swept ends now, on the record, and is replaced.
    const key = { userId_role_viaGroup: { userId: user.id, role, viaGroup: BY_HAND } };
    const existing = await tx.userRole.findUnique({ where: key });
    if (existing && (existing.expiresAt === null || existing.expiresAt.getTime() > now.getTime())) {
      throw new AppError(
        "conflict",
        `${user.email} already has role ${role}${existing.expiresAt ? ` until ${existing.expiresAt.toISOString()}` : ""}`,
      );
    }
    if (existing) {
      await tx.userRole.delete({ where: key });
      recordAudit(roleExpiredEvent(user.email, role, existing.expiresAt!));
    }
    recordAudit({
      type: "role.granted",
      actor,
      data: {
        user: user.email,
        role,
        selfGrant,
        ...(until ? { until: until.toISOString() } : {}),
        ...overriddenFor(role, problems),
      },
    });
    await tx.userRole.create({ data: { userId: user.id, role, grantedBy: actor, grantedAt: now, expiresAt: until } });
    return { email: user.email, role, granted: true, ...(until ? { until: until.toISOString() } : {}) };
  });
}

export async function revokeRole(input: { email: string; role: string }, actor: Actor) {
  const role = roleSchema.parse(input.role);
  return inTransaction(async (tx) => {
    const user = await userByEmail(tx, input.email);
    await holdAuditHead(tx);
    recordAudit({ type: "role.revoked", actor, data: { user: user.email, role } });
    // A role that has ended is no longer held: the sweep records its end (expire-roles.ts).
    const { count } = await tx.userRole.deleteMany({ where: { userId: user.id, role, viaGroup: BY_HAND, ...inForceAt(new Date()) } });
    if (count === 0) {
      // Held only through a group: the group's mapping or membership decides it, not a revoke.
      const via = await tx.userRole.findFirst({ where: { userId: user.id, role, NOT: { viaGroup: BY_HAND } }, select: { viaGroup: true } });
      if (via) throw new AppError("conflict", `${user.email} holds ${role} through the group ${via.viaGroup}: unmap the group or change its members`);
      throw new AppError("not-found", `${user.email} does not have role ${role}`);
    }
    if (role === ADMIN_ROLE && (await countActiveAdmins(tx)) === 0) {
      throw new AppError("last-admin", "cannot revoke the last active admin");
    }
    return { email: user.email, role, revoked: true };
  });
}

/** The roles a user holds now, by hand or through a group (a session's permissions). */
export async function rolesOf(tx: Tx, userId: string, now = new Date()): Promise<string[]> {
  const rows = await tx.userRole.findMany({ where: { userId, ...inForceAt(now) }, select: { role: true }, orderBy: { role: "asc" } });
  return [...new Set(rows.map((r) => r.role))];
}
