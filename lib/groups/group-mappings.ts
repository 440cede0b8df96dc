// Which directory groups hold which roles (docs/identity.md). A mapping is
// keyed by the group's name, so it can be made before anyone of the group has
// signed in; every change moves the roles of the group's members at once, in
// the same transaction, and is recorded. Each change takes the audit chain's
// head first, as role changes do, which serializes the last-admin check.
import "server-only";
import { db, type Tx } from "../db/client";
import { inTransaction } from "../db/transaction";
import { holdAuditHead, recordAudit } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { AppError } from "../errors";
import { countActiveAdmins } from "../users/roles";
import { ADMIN_ROLE } from "../users/schemas";
import { groupMappingSchema, type GroupMapping, type MappingSource } from "./schemas";
import { syncGroupRoles } from "./sync-group-roles";
import { overriddenFor, refuseUnusedRoles } from "../policies/reachability";

async function membersOfGroups(tx: Tx, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const rows = await tx.groupMember.findMany({ where: { group: { name: { in: [...names] } } }, select: { userId: true } });
  return [...new Set(rows.map((r) => r.userId))];
}

/**
 * Maps a group to a role: its members hold the role from now on, for as long
 * as they are members. A role no policy uses is refused as a grant of it is
 * (lib/policies/reachability.ts) unless `anyway`; group.mapped then records that.
 */
export async function mapGroup(input: { group: string; role: string; anyway?: boolean }, actor: Actor) {
  const { group, role } = groupMappingSchema.parse({ group: input.group, role: input.role });
  return inTransaction(async (tx) => {
    await holdAuditHead(tx);
    const existing = await tx.groupRoleMapping.findUnique({ where: { groupName_role: { groupName: group, role } } });
    if (existing) throw new AppError("conflict", `the group ${group} is already mapped to ${role}`);
    const problems = await refuseUnusedRoles(tx, "mapping", [role], input.anyway);
    await tx.groupRoleMapping.create({ data: { groupName: group, role, source: "admin", createdBy: actor } });
    recordAudit({ type: "group.mapped", actor, data: { group, role, ...overriddenFor(role, problems) } });
    const moved = await syncGroupRoles(tx, { userIds: await membersOfGroups(tx, [group]) }, actor);
    return { group, role, mapped: true as const, members: moved.granted };
  });
}

/** Removes a mapping: the group's members lose the role unless they hold it by hand or through another group. */
export async function unmapGroup(input: { group: string; role: string }, actor: Actor) {
  const { group, role } = groupMappingSchema.parse(input);
  return inTransaction(async (tx) => {
    await holdAuditHead(tx);
    const existing = await tx.groupRoleMapping.findUnique({ where: { groupName_role: { groupName: group, role } } });
    if (!existing) throw new AppError("not-found", `the group ${group} is not mapped to ${role}`);
    if (existing.source === "policy-file")
      throw new AppError("conflict", `the mapping of ${group} to ${role} comes from the policy file: change the file`);
    await tx.groupRoleMapping.delete({ where: { groupName_role: { groupName: group, role } } });
    recordAudit({ type: "group.unmapped", actor, data: { group, role } });
    const moved = await syncGroupRoles(tx, { userIds: await membersOfGroups(tx, [group]) }, actor);
    if (role === ADMIN_ROLE && (await countActiveAdmins(tx)) === 0) throw new AppError("last-admin", "cannot unmap the last active admins' group");
    return { group, role, unmapped: true as const, members: moved.revoked };
  });
}

export type GroupView = {
  name: string;
  /** Null for a mapping made before the group was seen. */
  id: string | null;
  source: string | null;
  externalId: string | null;
  members: number;
  roles: Array<{ role: string; source: MappingSource }>;
};

/** Every group seen or mapped, with its member count and the roles it maps to, by name. */
export async function listGroups(): Promise<GroupView[]> {
  const [groups, mappings, counts] = await Promise.all([
    db().directoryGroup.findMany({ select: { id: true, name: true, source: true, externalId: true } }),
    db().groupRoleMapping.findMany({ orderBy: { role: "asc" } }),
    db().groupMember.groupBy({ by: ["groupId", "userId"] }),
  ]);
  const memberCount = new Map<string, number>();
  for (const c of counts) memberCount.set(c.groupId, (memberCount.get(c.groupId) ?? 0) + 1);
  const views = new Map<string, GroupView>();
  for (const g of groups)
    views.set(g.name, { name: g.name, id: g.id, source: g.source, externalId: g.externalId, members: memberCount.get(g.id) ?? 0, roles: [] });
  for (const m of mappings) {
    const view = views.get(m.groupName) ?? { name: m.groupName, id: null, source: null, externalId: null, members: 0, roles: [] };
    view.roles.push({ role: m.role, source: m.source as MappingSource });
    views.set(m.groupName, view);
  }
  return [...views.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * POLICY_FILE's `groups` section at start-up: the file's mappings replace
 * every mapping that came from a file before (admin-made ones stay, and one
 * the file names too becomes the file's). Returns what changed.
 */
export async function syncFileGroupMappings(mappings: readonly GroupMapping[], fileDigest: string) {
  const key = (m: { groupName: string; role: string }) => JSON.stringify([m.groupName, m.role]);
  const wanted = new Map(mappings.map((m) => [key({ groupName: m.group, role: m.role }), m]));
  const plan = async (tx: Tx) => {
    const rows = await tx.groupRoleMapping.findMany();
    const have = new Map(rows.map((r) => [key(r), r]));
    return {
      add: [...wanted].filter(([k]) => have.get(k)?.source !== "policy-file").map(([, m]) => m),
      drop: rows.filter((r) => r.source === "policy-file" && !wanted.has(key(r))),
    };
  };
  const first = await plan(db());
  if (first.add.length === 0 && first.drop.length === 0) return { mapped: [], unmapped: [] };
  return inTransaction(async (tx) => {
    await holdAuditHead(tx);
    const { add, drop } = await plan(tx);
    for (const m of add) {
      await tx.groupRoleMapping.upsert({
        where: { groupName_role: { groupName: m.group, role: m.role } },
        create: { groupName: m.group, role: m.role, source: "policy-file", createdBy: "system" },
        update: { source: "policy-file" },
      });
      recordAudit({ type: "group.mapped", actor: "system", data: { group: m.group, role: m.role, source: "policy-file", file_digest: fileDigest } });
    }
    for (const r of drop) {
      await tx.groupRoleMapping.delete({ where: { groupName_role: { groupName: r.groupName, role: r.role } } });
      recordAudit({
        type: "group.unmapped",
        actor: "system",
        data: { group: r.groupName, role: r.role, source: "policy-file", file_digest: fileDigest },
      });
    }
    const names = [...new Set([...add.map((m) => m.group), ...drop.map((r) => r.groupName)])];
    await syncGroupRoles(tx, { userIds: await membersOfGroups(tx, names) }, "system");
    return { mapped: add.map((m) => `${m.group}→${m.role}`), unmapped: drop.map((r) => `${r.groupName}→${r.role}`) };
  });
}
