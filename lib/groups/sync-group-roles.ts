// Roles held through directory groups are rows of user_roles (viaGroup: the
// group's name), so every reader of roles (the authority check, the queue,
// notifications, sessions) sees them without knowing about groups. This
// keeps those rows equal to memberships × mappings for the people a change
// touched, in the change's own transaction, recording each role that comes
// or goes. Hand-granted rows (viaGroup "") are never touched here.
import "server-only";
import type { Tx } from "../db/client";
import { recordAudit } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { BY_HAND } from "../users/roles";

export type RoleChanges = { granted: number; revoked: number };

/** Brings the group-held roles of `userIds` (or everyone's, with "all") in line with the groups and mappings now. */
export async function syncGroupRoles(tx: Tx, who: { userIds: readonly string[] } | "all", actor: Actor): Promise<RoleChanges> {
  const scope = who === "all" ? {} : { userId: { in: [...new Set(who.userIds)] } };
  if (who !== "all" && who.userIds.length === 0) return { granted: 0, revoked: 0 };

  const [memberships, mappings, held] = await Promise.all([
    tx.groupMember.findMany({ where: scope, select: { userId: true, group: { select: { name: true } } } }),
    tx.groupRoleMapping.findMany({ select: { groupName: true, role: true } }),
    tx.userRole.findMany({ where: { ...scope, NOT: { viaGroup: BY_HAND } }, select: { userId: true, role: true, viaGroup: true } }),
  ]);
  const rolesOfGroup = new Map<string, string[]>();
  for (const m of mappings) rolesOfGroup.set(m.groupName, [...(rolesOfGroup.get(m.groupName) ?? []), m.role]);

  const key = (r: { userId: string; role: string; viaGroup: string }) => JSON.stringify([r.userId, r.role, r.viaGroup]);
  const wanted = new Map<string, { userId: string; role: string; viaGroup: string }>();
  for (const m of memberships) {
    for (const role of rolesOfGroup.get(m.group.name) ?? []) {
      const row = { userId: m.userId, role, viaGroup: m.group.name };
      wanted.set(key(row), row);
    }
  }
  const current = new Map(held.map((r) => [key(r), r]));
  const toGrant = [...wanted].filter(([k]) => !current.has(k)).map(([, r]) => r);
  const toRevoke = [...current].filter(([k]) => !wanted.has(k)).map(([, r]) => r);
  if (toGrant.length === 0 && toRevoke.length === 0) return { granted: 0, revoked: 0 };

  const touched = [...new Set([...toGrant, ...toRevoke].map((r) => r.userId))];
  const emails = new Map((await tx.user.findMany({ where: { id: { in: touched } }, select: { id: true, email: true } })).map((u) => [u.id, u.email]));
  if (toRevoke.length > 0) {
    await tx.userRole.deleteMany({ where: { OR: toRevoke.map((r) => ({ userId: r.userId, role: r.role, viaGroup: r.viaGroup })) } });
  }
  if (toGrant.length > 0) {
    await tx.userRole.createMany({ data: toGrant.map((r) => ({ ...r, grantedBy: actor })) });
  }
  for (const r of toRevoke)
    recordAudit({ type: "role.revoked", actor, data: { user: emails.get(r.userId) ?? r.userId, role: r.role, group: r.viaGroup } });
  for (const r of toGrant) {
    recordAudit({ type: "role.granted", actor, data: { user: emails.get(r.userId) ?? r.userId, role: r.role, group: r.viaGroup, selfGrant: false } });
  }
  return { granted: toGrant.length, revoked: toRevoke.length };
}
