// SCIM Groups (RFC 7643 §4.2): the directory's groups and who is in them.
// Members are provisioned users (lib/scim/scim-users.ts). Roles follow the
// group mappings (lib/groups) in the same transaction as every membership
// change, so a person removed from a group loses its roles at that moment.
// Renaming a group carries its mappings to the new name: an admin mapped
// the group, not the word. A POST naming a group first seen in a sign-in's
// claim adopts it.
import "server-only";
import SCIMMY from "scimmy";
import { db, type Tx } from "../db/client";
import { inTransaction } from "../db/transaction";
import { holdAuditHead, recordAudit } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { newId } from "../ids";
import { groupNameSchema } from "../groups/schemas";
import { syncGroupRoles } from "../groups/sync-group-roles";
import { scimError } from "./scim-error";
import { exactLookups, GROUP_FILTER_ATTRIBUTES, matchesScimFilter, parseScimFilter } from "./filter";
import { listResponse, type ListParams } from "./scim-list";
import { scimBase, shaped } from "./scim-setup";
import { normalizePatch, scimInput } from "./scim-input";
import type { PatchBody } from "./scim-users";

type OutputFilter = InstanceType<typeof SCIMMY.Types.Filter> | undefined;

const groupSelect = {
  id: true,
  name: true,
  externalId: true,
  createdAt: true,
  updatedAt: true,
  members: { where: { source: "scim" }, select: { user: { select: { id: true, email: true } } }, orderBy: { addedAt: "asc" } },
} as const;

type GroupRow = {
  id: string;
  name: string;
  externalId: string | null;
  createdAt: Date;
  updatedAt: Date;
  members: Array<{ user: { id: string; email: string } }>;
};

function representation(g: GroupRow): Record<string, unknown> {
  return {
    id: g.id,
    ...(g.externalId ? { externalId: g.externalId } : {}),
    displayName: g.name,
    members: g.members.map((m) => ({ value: m.user.id, display: m.user.email, type: "User" })),
    meta: { resourceType: "Group", created: g.createdAt, lastModified: g.updatedAt },
  };
}

function output(g: GroupRow, attributes?: OutputFilter): Record<string, unknown> {
  const base = `${scimBase()}/Groups`;
  const full = new SCIMMY.Schemas.Group(representation(g), "out", base);
  return attributes ? shaped(new SCIMMY.Schemas.Group(representation(g), "out", base, attributes), full) : { ...full };
}

async function managed(tx: Tx, id: string): Promise<GroupRow> {
  const row = await tx.directoryGroup.findFirst({ where: { id, source: "scim" }, select: groupSelect });
  if (!row) throw scimError(404, null, "no such group");
  return row;
}

export async function getScimGroup(id: string, attributes?: OutputFilter) {
  scimBase();
  return output(await managed(db(), id), attributes);
}

export async function listScimGroups(p: ListParams, attributes?: OutputFilter) {
  scimBase();
  const filter = p.filter === null ? null : parseScimFilter(p.filter, GROUP_FILTER_ATTRIBUTES);
  const exact = filter ? exactLookups(filter, ["externalId", "id"]) : null;
  const narrowed = exact ? { OR: [...(exact.externalId ?? []).map((v) => ({ externalId: v })), ...(exact.id ?? []).map((v) => ({ id: v }))] } : {};
  const rows = await db().directoryGroup.findMany({
    where: { source: "scim", ...narrowed },
    select: groupSelect,
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  const matched = filter ? rows.filter((g) => matchesScimFilter(filter, representation(g), GROUP_FILTER_ATTRIBUTES)) : rows;
  const page = matched.slice(p.startIndex - 1, p.startIndex - 1 + p.count);
  return listResponse(
    page.map((g) => output(g, attributes)),
    matched.length,
    p,
  );
}

type GroupFields = { name: string; externalId: string | null; memberIds: string[] };

function fieldsOf(body: unknown): GroupFields {
  const input = scimInput(() => new SCIMMY.Schemas.Group(body, "in")) as {
    displayName: string;
    externalId?: string;
    members?: Array<{ value?: string }>;
  };
  const name = groupNameSchema.safeParse(input.displayName);
  if (!name.success) throw scimError(400, "invalidValue", `displayName ${name.error.issues[0]!.message}`);
  const externalId = input.externalId?.trim() || null;
  if (externalId && externalId.length > 255) throw scimError(400, "invalidValue", "externalId must be at most 255 characters");
  const memberIds = [...new Set((input.members ?? []).map((m) => m.value).filter((v): v is string => typeof v === "string"))];
  return { name: name.data, externalId, memberIds };
}

/** The members must be users SCIM provisioned; a group cannot name anyone else. */
async function assertMembers(tx: Tx, ids: readonly string[]) {
  if (ids.length === 0) return;
  const found = await tx.user.count({ where: { id: { in: [...ids] }, scimUserName: { not: null } } });
  if (found !== ids.length) throw scimError(400, "invalidValue", `members: ${ids.length - found} of them are not provisioned users`);
}

async function assertNameFree(tx: Tx, f: GroupFields, self: string | null) {
  const clash = await tx.directoryGroup.findFirst({ where: { name: f.name, NOT: { id: self ?? "" } }, select: { source: true } });
  if (clash?.source === "scim") throw scimError(409, "uniqueness", "another group has this displayName");
  if (clash) throw scimError(409, "uniqueness", "a group of this name comes from sign-ins: create it under that name to adopt it");
  if (f.externalId && (await tx.directoryGroup.findFirst({ where: { externalId: f.externalId, NOT: { id: self ?? "" } }, select: { id: true } }))) {
    throw scimError(409, "uniqueness", "another group has this externalId");
  }
}

/** Makes the group's SCIM members exactly `memberIds`; records the change; returns who it touched. */
async function setMembers(tx: Tx, group: { id: string; name: string }, memberIds: readonly string[], actor: Actor): Promise<string[]> {
  const current = await tx.groupMember.findMany({
    where: { groupId: group.id, source: "scim" },
    select: { userId: true, user: { select: { email: true } } },
  });
  const wanted = new Set(memberIds);
  const gone = current.filter((m) => !wanted.has(m.userId));
  const added = memberIds.filter((id) => !current.some((m) => m.userId === id));
  if (gone.length) await tx.groupMember.deleteMany({ where: { groupId: group.id, source: "scim", userId: { in: gone.map((m) => m.userId) } } });
  if (added.length) await tx.groupMember.createMany({ data: added.map((userId) => ({ groupId: group.id, userId, source: "scim" })) });
  if (gone.length || added.length) {
    const emails = new Map((await tx.user.findMany({ where: { id: { in: added } }, select: { id: true, email: true } })).map((u) => [u.id, u.email]));
    recordAudit({
      type: "group.members_changed",
      actor,
      data: {
        group: group.name,
        source: "scim",
        added: added.length,
        removed: gone.length,
        joined: added.map((id) => emails.get(id) ?? id).slice(0, 50),
        left: gone.map((m) => m.user.email).slice(0, 50),
      },
    });
  }
  return [...added, ...gone.map((m) => m.userId)];
}

export async function createScimGroup(body: unknown, actor: Actor) {
  scimBase();
  const f = fieldsOf(body);
  const id = await inTransaction(async (tx) => {
    await holdAuditHead(tx);
    await assertMembers(tx, f.memberIds);
    const seen = await tx.directoryGroup.findUnique({ where: { name: f.name }, select: { id: true, source: true } });
    if (seen?.source === "scim") throw scimError(409, "uniqueness", "another group has this displayName");
    await assertNameFree(tx, f, seen?.id ?? null);
    const group = seen
      ? await tx.directoryGroup.update({ where: { id: seen.id }, data: { source: "scim", externalId: f.externalId } })
      : await tx.directoryGroup.create({ data: { id: newId("grp"), name: f.name, externalId: f.externalId, source: "scim" } });
    recordAudit({ type: "group.created", actor, data: { group: f.name, source: "scim", ...(seen ? { adopted: true } : {}) } });
    const touched = await setMembers(tx, group, f.memberIds, actor);
    await syncGroupRoles(tx, { userIds: touched }, actor);
    return group.id;
  });
  return output(await managed(db(), id));
}

/** PUT and PATCH: the group becomes what `next` makes of it, read and written under the audit head's lock, so two changes never lose one. */
async function updateGroup(id: string, next: (current: GroupRow) => Promise<GroupFields>, actor: Actor) {
  await inTransaction(async (tx) => {
    await holdAuditHead(tx);
    const group = await managed(tx, id);
    const f = await next(group);
    await assertMembers(tx, f.memberIds);
    await assertNameFree(tx, f, id);
    let touched: string[] = [];
    if (f.name !== group.name || f.externalId !== group.externalId) {
      await tx.directoryGroup.update({ where: { id }, data: { name: f.name, externalId: f.externalId } });
      recordAudit({ type: "group.updated", actor, data: { group: group.name, ...(f.name !== group.name ? { renamed_to: f.name } : {}) } });
      if (f.name !== group.name) {
        touched = await carryMappings(tx, group.name, f.name, actor);
      }
    }
    touched.push(...(await setMembers(tx, { id, name: f.name }, f.memberIds, actor)));
    await syncGroupRoles(tx, { userIds: touched }, actor);
  });
  return output(await managed(db(), id));
}

/** A renamed group keeps its roles: its mappings move to the new name (unless that name has the same one). */
async function carryMappings(tx: Tx, from: string, to: string, actor: Actor): Promise<string[]> {
  const mappings = await tx.groupRoleMapping.findMany({ where: { groupName: from } });
  for (const m of mappings) {
    const taken = await tx.groupRoleMapping.findUnique({ where: { groupName_role: { groupName: to, role: m.role } } });
    if (!taken) await tx.groupRoleMapping.create({ data: { groupName: to, role: m.role, source: m.source, createdBy: m.createdBy } });
    await tx.groupRoleMapping.delete({ where: { groupName_role: { groupName: from, role: m.role } } });
    recordAudit({ type: "group.mapped", actor, data: { group: to, role: m.role, renamed_from: from } });
  }
  return (await tx.groupMember.findMany({ where: { group: { name: to } }, select: { userId: true } })).map((r) => r.userId);
}

export async function replaceScimGroup(id: string, body: unknown, actor: Actor) {
  scimBase();
  const f = fieldsOf(body);
  return updateGroup(id, async () => f, actor);
}

export async function patchScimGroup(id: string, body: unknown, actor: Actor) {
  scimBase();
  const operations = scimInput(() => new SCIMMY.Messages.PatchOp(normalizePatch(body) as PatchBody));
  return updateGroup(
    id,
    async (group) => {
      const current = new SCIMMY.Schemas.Group(representation(group), "out");
      const patched = await scimInput(() => operations.apply(current, async (instance) => instance));
      return fieldsOf(JSON.parse(JSON.stringify(patched)));
    },
    actor,
  );
}

/** DELETE: SCIM's members leave it (and its roles); a group sign-ins still name stays, as theirs. */
export async function deleteScimGroup(id: string, actor: Actor) {
  scimBase();
  await inTransaction(async (tx) => {
    await holdAuditHead(tx);
    const group = await managed(tx, id);
    const touched = await setMembers(tx, group, [], actor);
    const others = await tx.groupMember.count({ where: { groupId: id } });
    if (others === 0) await tx.directoryGroup.delete({ where: { id } });
    else await tx.directoryGroup.update({ where: { id }, data: { source: "oidc", externalId: null } });
    recordAudit({ type: "group.deleted", actor, data: { group: group.name, source: "scim" } });
    await syncGroupRoles(tx, { userIds: touched }, actor);
  });
}
