// Users as the admin page and `user list` show them: roles with who granted
// each (a self-grant is marked) and until when (a time-bound one), last
// sign-in and status. A role that has ended is not listed, swept or not.
// The admin page shows a page at a time, found by email or name: a company
// that provisions by SCIM has thousands, each with its own forms.
import "server-only";
import { z } from "zod";
import { pageNumberSchema } from "../http/form-fields";
import { db, type Prisma } from "../db/client";
import { direct, likeLiteral } from "../db/sql";
import { inForceAt } from "./roles";

export type UserRoleView = {
  role: string;
  grantedAt: Date;
  grantedBy: string | null;
  selfGranted: boolean;
  until: Date | null;
  /** Held through this directory group (lib/groups), not granted by hand. */
  viaGroup: string | null;
};
export type UserView = {
  id: string;
  email: string;
  name: string | null;
  disabled: boolean;
  createdAt: Date;
  lastSignInAt: Date | null;
  hasPassword: boolean;
  roles: UserRoleView[];
  /** The Slack user acting as this user, and since when (lib/slack/slack-identity.ts). */
  slack: { userId: string; linkedAt: Date | null } | null;
};

// Each user's row carries its four forms: at 50 a page was some 3,400
// elements, a long scroll on a phone and 13 s for an accessibility scan.
// 20, as the queue shows requests.
export const USERS_PAGE_SIZE = 20;

/** The admin page's query: `q` (part of an email or a name) and `page` (from 1). */
export const usersQuerySchema = z.object({
  q: z
    .string()
    .trim()
    .max(200, "the search is limited to 200 characters")
    .optional()
    .transform((v) => v || undefined),
  page: pageNumberSchema,
});

export type UsersPage = { users: UserView[]; total: number; page: number; pages: number; q: string | null };

/** Every user, by email (the command line's `user list`). */
export async function listUsers(now = new Date()): Promise<UserView[]> {
  return usersWhere({}, now);
}

/** One page of the users whose email or name contains `q` (any case), by email; past the last page, the last. */
export async function findUsers(query: z.infer<typeof usersQuerySchema>, now = new Date()): Promise<UsersPage> {
  const q = query.q ?? null;
  // In SQL for LIKE's escape: Prisma's `contains` would read % and _ in a search as wildcards.
  // Any case: the search and the names are lower-cased here; emails are stored lower-cased.
  const like = q ? `%${likeLiteral(q.toLowerCase())}%` : null;
  const match = like ? ` WHERE email LIKE ? ESCAPE '!' OR LOWER(name) LIKE ? ESCAPE '!'` : "";
  const params = like ? [like, like] : [];
  const sql = direct();
  const [count] = await sql.all<{ n: unknown }>(`SELECT COUNT(*) AS n FROM users${match}`, params);
  const total = Number(count?.n ?? 0);
  const pages = Math.max(1, Math.ceil(total / USERS_PAGE_SIZE));
  const page = Math.min(query.page, pages);
  const ids = await sql.all<{ id: string }>(`SELECT id FROM users${match} ORDER BY email LIMIT ? OFFSET ?`, [
    ...params,
    USERS_PAGE_SIZE,
    (page - 1) * USERS_PAGE_SIZE,
  ]);
  const users = await usersWhere({ id: { in: ids.map((r) => r.id) } }, now);
  return { users, total, page, pages, q };
}

async function usersWhere(where: Prisma.UserWhereInput, now: Date): Promise<UserView[]> {
  const users = await db().user.findMany({
    where,
    orderBy: { email: "asc" },
    include: { roles: { where: inForceAt(now), orderBy: [{ role: "asc" }, { viaGroup: "asc" }] } },
  });
  // Whether a password is set, without reading any hash.
  const ids = users.map((u) => u.id);
  const withPassword = new Set(
    (await db().user.findMany({ where: { id: { in: ids }, passwordHash: { not: null } }, select: { id: true } })).map((u) => u.id),
  );
  return users.map((u) => ({
    id: u.id,
    email: u.email,
    name: u.name,
    disabled: u.disabledAt != null,
    createdAt: u.createdAt,
    lastSignInAt: u.lastSignInAt,
    hasPassword: withPassword.has(u.id),
    slack: u.slackUserId ? { userId: u.slackUserId, linkedAt: u.slackLinkedAt } : null,
    roles: u.roles.map((r) => ({
      role: r.role,
      grantedAt: r.grantedAt,
      grantedBy: r.grantedBy,
      selfGranted: r.grantedBy === `user:${u.email}`,
      until: r.expiresAt,
      viaGroup: r.viaGroup === "" ? null : r.viaGroup,
    })),
  }));
}
