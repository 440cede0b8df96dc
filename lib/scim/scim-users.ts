// SCIM Users (RFC 7643 §4.1, RFC 7644 §3): the company's directory creates,
// changes and deprovisions Countersign's users. SCIM sees the users it made
// or adopted (a POST naming the email of a user made by hand or by a first
// sign-in links that user); `active: false` and DELETE disable the account
// and end its sessions at once, and since every decision path asks the one
// authority check when it takes effect (lib/reviews/authority.ts), nothing
// the person approved counts again from then on. The directory is the truth
// here: unlike an admin's `user disable`, it may disable the last admin (the
// command line can always grant admin again).
import "server-only";
import SCIMMY from "scimmy";
import type { Tx } from "../db/client";
import { db } from "../db/client";
import { inTransaction } from "../db/transaction";
import { holdAuditHead, recordAudit } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { newId } from "../ids";
import { disableAccount } from "../users/disable-user";
import { emailSchema } from "../users/schemas";
import { syncGroupRoles } from "../groups/sync-group-roles";
import { scimError } from "./scim-error";
import { exactLookups, matchesScimFilter, parseScimFilter, USER_FILTER_ATTRIBUTES } from "./filter";
import { listResponse, type ListParams } from "./scim-list";
import { scimBase, shaped } from "./scim-setup";
import { normalizePatch, scimInput } from "./scim-input";

/** The library checks the body's shape itself (invalidSyntax / invalidValue). */
export type PatchBody = ConstructorParameters<typeof SCIMMY.Messages.PatchOp>[0];
type OutputFilter = InstanceType<typeof SCIMMY.Types.Filter> | undefined;

const userSelect = {
  id: true,
  email: true,
  name: true,
  disabledAt: true,
  createdAt: true,
  scimUserName: true,
  externalId: true,
  groups: { where: { source: "scim" }, select: { group: { select: { id: true, name: true } } } },
} as const;

type UserRow = {
  id: string;
  email: string;
  name: string | null;
  disabledAt: Date | null;
  createdAt: Date;
  scimUserName: string | null;
  externalId: string | null;
  groups: Array<{ group: { id: string; name: string } }>;
};

/** A user as SCIM shows it (before the library shapes it for output). */
function representation(u: UserRow): Record<string, unknown> {
  return {
    id: u.id,
    ...(u.externalId ? { externalId: u.externalId } : {}),
    userName: u.scimUserName ?? u.email,
    ...(u.name ? { displayName: u.name, name: { formatted: u.name } } : {}),
    emails: [{ value: u.email, type: "work", primary: true }],
    active: u.disabledAt === null,
    groups: u.groups.map((g) => ({ value: g.group.id, display: g.group.name, type: "direct" })),
    meta: { resourceType: "User", created: u.createdAt, lastModified: u.createdAt },
  };
}

function output(u: UserRow, attributes?: OutputFilter): Record<string, unknown> {
  const base = `${scimBase()}/Users`;
  const full = new SCIMMY.Schemas.User(representation(u), "out", base);
  return attributes ? shaped(new SCIMMY.Schemas.User(representation(u), "out", base, attributes), full) : { ...full };
}

const notFound = () => scimError(404, null, "no such user");

async function provisioned(tx: Tx, id: string): Promise<UserRow> {
  const row = await tx.user.findFirst({ where: { id, scimUserName: { not: null } }, select: userSelect });
  if (!row) throw notFound();
  return row;
}

export async function getScimUser(id: string, attributes?: OutputFilter) {
  scimBase();
  return output(await provisioned(db(), id), attributes);
}

export async function listScimUsers(p: ListParams, attributes?: OutputFilter) {
  scimBase();
  const filter = p.filter === null ? null : parseScimFilter(p.filter, USER_FILTER_ATTRIBUTES);
  const visible = { scimUserName: { not: null } };
  if (filter === null) {
    const [total, rows] = await Promise.all([
      db().user.count({ where: visible }),
      p.count === 0
        ? []
        : db().user.findMany({
            where: visible,
            select: userSelect,
            orderBy: [{ createdAt: "asc" }, { id: "asc" }],
            skip: p.startIndex - 1,
            take: p.count,
          }),
    ]);
    return listResponse(
      rows.map((u) => output(u, attributes)),
      total,
      p,
    );
  }
  // Look up the exact values a filter names first (userName eq "…" is what every provider sends), then filter.
  const exact = exactLookups(filter, ["userName", "emails.value", "externalId", "id"]);
  const narrowed = exact
    ? {
        OR: [
          ...(exact.userName ?? []).map((v) => ({ scimUserName: v.toLowerCase() })),
          ...(exact["emails.value"] ?? []).map((v) => ({ email: v.toLowerCase() })),
          ...(exact.externalId ?? []).map((v) => ({ externalId: v })),
          ...(exact.id ?? []).map((v) => ({ id: v })),
        ],
      }
    : {};
  const rows = await db().user.findMany({ where: { ...visible, ...narrowed }, select: userSelect, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  const matched = rows.filter((u) => matchesScimFilter(filter, representation(u), USER_FILTER_ATTRIBUTES));
  const page = matched.slice(p.startIndex - 1, p.startIndex - 1 + p.count);
  return listResponse(
    page.map((u) => output(u, attributes)),
    matched.length,
    p,
  );
}

/** What Countersign keeps of a SCIM user. */
type UserFields = { userName: string; email: string; name: string | null; externalId: string | null; active: boolean };

function fieldsOf(body: unknown): UserFields {
  const input = scimInput(() => new SCIMMY.Schemas.User(body, "in")) as {
    userName: string;
    externalId?: string;
    displayName?: string;
    name?: { formatted?: string; givenName?: string; familyName?: string };
    emails?: Array<{ value?: string; primary?: boolean }>;
    active?: boolean;
  };
  const userName = input.userName.trim().toLowerCase();
  if (userName.length === 0 || userName.length > 320) throw scimError(400, "invalidValue", "userName must be 1-320 characters");
  const emails = input.emails ?? [];
  const candidate = emails.find((e) => e.primary)?.value ?? emails[0]?.value ?? userName;
  const email = emailSchema.safeParse(candidate);
  if (!email.success) throw scimError(400, "invalidValue", "the user needs an email address: in emails, or as an email-shaped userName");
  const fromParts = [input.name?.givenName, input.name?.familyName].filter(Boolean).join(" ");
  const name =
    (input.displayName ?? input.name?.formatted ?? fromParts)
      .replace(/[\p{Cc}\p{Cf}]/gu, "")
      .trim()
      .slice(0, 200) || null;
  const externalId = input.externalId?.trim() || null;
  if (externalId && externalId.length > 255) throw scimError(400, "invalidValue", "externalId must be at most 255 characters");
  return { userName, email: email.data, name, externalId, active: input.active ?? true };
}

/** Refuses a userName, externalId or email another user already has. */
async function assertUnique(tx: Tx, f: UserFields, self: string | null) {
  const others = { NOT: { id: self ?? "" } };
  if (await tx.user.findFirst({ where: { scimUserName: f.userName, ...others }, select: { id: true } })) {
    throw scimError(409, "uniqueness", "another user has this userName");
  }
  if (f.externalId && (await tx.user.findFirst({ where: { externalId: f.externalId, ...others }, select: { id: true } }))) {
    throw scimError(409, "uniqueness", "another user has this externalId");
  }
}

/** The account follows `active`: disabled (sessions ended) or enabled again; recorded. */
async function applyActive(tx: Tx, user: { id: string; email: string; disabledAt: Date | null }, active: boolean, actor: Actor) {
  if (!active && user.disabledAt === null) {
    const sessions = await disableAccount(tx, user.id, new Date());
    recordAudit({ type: "user.disabled", actor, data: { user: user.email, source: "scim", sessions_revoked: sessions } });
  } else if (active && user.disabledAt !== null) {
    await tx.user.update({ where: { id: user.id }, data: { disabledAt: null } });
    recordAudit({ type: "user.enabled", actor, data: { user: user.email, source: "scim" } });
  }
}

export async function createScimUser(body: unknown, actor: Actor) {
  scimBase();
  const f = fieldsOf(body);
  const id = await inTransaction(async (tx) => {
    await holdAuditHead(tx);
    const existing = await tx.user.findUnique({ where: { email: f.email }, select: { id: true, email: true, disabledAt: true, scimUserName: true } });
    if (existing?.scimUserName) throw scimError(409, "uniqueness", "a user with this email is already provisioned");
    await assertUnique(tx, f, existing?.id ?? null);
    if (existing) {
      // A user made by hand or by a first sign-in: the directory takes it over.
      await tx.user.update({
        where: { id: existing.id },
        data: { scimUserName: f.userName, externalId: f.externalId, ...(f.name ? { name: f.name } : {}) },
      });
      recordAudit({ type: "user.updated", actor, data: { user: f.email, change: "provisioned" } });
      await applyActive(tx, existing, f.active, actor);
      return existing.id;
    }
    const created = await tx.user.create({
      data: {
        id: newId("usr"),
        email: f.email,
        name: f.name,
        scimUserName: f.userName,
        externalId: f.externalId,
        disabledAt: f.active ? null : new Date(),
      },
    });
    recordAudit({ type: "user.created", actor, data: { user: f.email, source: "scim", active: f.active } });
    return created.id;
  });
  return output(await provisioned(db(), id));
}

/** PUT and PATCH: the user becomes what `next` makes of it, read and written under the audit head's lock, so two changes never lose one. */
async function updateUser(id: string, next: (current: UserRow) => Promise<UserFields>, actor: Actor) {
  await inTransaction(async (tx) => {
    await holdAuditHead(tx);
    const user = await provisioned(tx, id);
    const f = await next(user);
    await assertUnique(tx, f, id);
    if (f.email !== user.email && (await tx.user.findUnique({ where: { email: f.email }, select: { id: true } }))) {
      throw scimError(409, "uniqueness", "another user has this email");
    }
    const changed = [
      ...(f.email !== user.email ? ["email"] : []),
      ...(f.userName !== user.scimUserName ? ["userName"] : []),
      ...(f.name !== user.name ? ["name"] : []),
      ...(f.externalId !== user.externalId ? ["externalId"] : []),
    ];
    if (changed.length > 0) {
      await tx.user.update({ where: { id }, data: { email: f.email, scimUserName: f.userName, name: f.name, externalId: f.externalId } });
      recordAudit({ type: "user.updated", actor, data: { user: f.email, changed, ...(f.email !== user.email ? { previous: user.email } : {}) } });
    }
    await applyActive(tx, { id, email: f.email, disabledAt: user.disabledAt }, f.active, actor);
  });
  return output(await provisioned(db(), id));
}

export async function replaceScimUser(id: string, body: unknown, actor: Actor) {
  scimBase();
  const f = fieldsOf(body);
  return updateUser(id, async () => f, actor);
}

export async function patchScimUser(id: string, body: unknown, actor: Actor) {
  scimBase();
  const operations = scimInput(() => new SCIMMY.Messages.PatchOp(normalizePatch(body) as PatchBody));
  return updateUser(
    id,
    async (user) => {
      const current = new SCIMMY.Schemas.User(representation(user), "out");
      const patched = await scimInput(() => operations.apply(current, async (instance) => instance));
      return fieldsOf(JSON.parse(JSON.stringify(patched)));
    },
    actor,
  );
}

/** DELETE: the account is disabled and released by SCIM (a later GET is 404); its reviews and audit history stay. */
export async function deleteScimUser(id: string, actor: Actor) {
  scimBase();
  await inTransaction(async (tx) => {
    await holdAuditHead(tx);
    const user = await provisioned(tx, id);
    await applyActive(tx, user, false, actor);
    await tx.user.update({ where: { id }, data: { scimUserName: null, externalId: null } });
    await tx.groupMember.deleteMany({ where: { userId: id, source: "scim" } });
    recordAudit({ type: "user.updated", actor, data: { user: user.email, change: "deprovisioned" } });
    await syncGroupRoles(tx, { userIds: [id] }, actor);
  });
}
