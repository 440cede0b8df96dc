// Groups from the identity provider's claim, at every OIDC sign-in: the
// person's "oidc" memberships become exactly the groups the claim names now
// (memberships from SCIM are left to SCIM), and their group-held roles follow
// in the same transaction. A claim value names a group by its name, or by
// the directory's id for it (Entra ID sends object ids); a value no group has
// yet makes a new group, so admins see it on /admin/groups and can map it.
import "server-only";
import { z } from "zod";
import type { Tx } from "../db/client";
import { recordAudit } from "../audit/append-event";
import { newId } from "../ids";
import { groupNameSchema, MAX_CLAIM_GROUPS } from "./schemas";
import { syncGroupRoles } from "./sync-group-roles";

/**
 * The claim's value as groups: a list of names (or one name as a string).
 * Anything else, or more than MAX_CLAIM_GROUPS, is null: the claim is
 * unusable and the sign-in is refused rather than read as "no groups".
 */
export function groupsFromClaim(value: unknown): string[] | null {
  if (value === undefined || value === null) return [];
  const list = typeof value === "string" ? [value] : value;
  const parsed = z.array(groupNameSchema).max(MAX_CLAIM_GROUPS).safeParse(list);
  return parsed.success ? [...new Set(parsed.data)] : null;
}

/** Sets `userId`'s sign-in memberships to `names`; returns the groups joined and left. */
export async function applySignInGroups(tx: Tx, userId: string, email: string, names: readonly string[]) {
  const known = names.length
    ? await tx.directoryGroup.findMany({
        where: { OR: [{ name: { in: [...names] } }, { externalId: { in: [...names] } }] },
        select: { id: true, name: true, externalId: true },
      })
    : [];
  const groupIds = new Map<string, string>(); // group id → name
  for (const value of names) {
    const group = known.find((g) => g.name === value) ?? known.find((g) => g.externalId === value);
    if (group) {
      groupIds.set(group.id, group.name);
      continue;
    }
    const created = await tx.directoryGroup.create({ data: { id: newId("grp"), name: value, source: "oidc" } });
    known.push({ id: created.id, name: created.name, externalId: null });
    recordAudit({ type: "group.created", actor: "system", data: { group: value, source: "oidc" } });
    groupIds.set(created.id, created.name);
  }

  const current = await tx.groupMember.findMany({ where: { userId, source: "oidc" }, select: { groupId: true, group: { select: { name: true } } } });
  const left = current.filter((m) => !groupIds.has(m.groupId));
  const joined = [...groupIds].filter(([id]) => !current.some((m) => m.groupId === id));
  if (left.length > 0) await tx.groupMember.deleteMany({ where: { userId, source: "oidc", groupId: { in: left.map((m) => m.groupId) } } });
  if (joined.length > 0) await tx.groupMember.createMany({ data: joined.map(([groupId]) => ({ groupId, userId, source: "oidc" })) });
  if (left.length > 0 || joined.length > 0) {
    recordAudit({
      type: "group.members_changed",
      actor: "system",
      data: { user: email, source: "oidc", joined: joined.map(([, name]) => name).slice(0, 50), left: left.map((m) => m.group.name).slice(0, 50) },
    });
  }
  const roles = await syncGroupRoles(tx, { userIds: [userId] }, "system");
  return { joined: joined.map(([, name]) => name), left: left.map((m) => m.group.name), roles };
}
