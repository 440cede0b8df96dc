// Users as the admin page and `user list` show them: roles with who granted
// each (a self-grant is marked), last sign-in and status.
import "server-only";
import { db } from "../db/client";

export type UserRoleView = { role: string; grantedAt: Date; grantedBy: string | null; selfGranted: boolean };
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

export async function listUsers(): Promise<UserView[]> {
  const users = await db().user.findMany({ orderBy: { email: "asc" }, include: { roles: { orderBy: { role: "asc" } } } });
  // Whether a password is set, without reading any hash.
  const withPassword = new Set((await db().user.findMany({ where: { passwordHash: { not: null } }, select: { id: true } })).map((u) => u.id));
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
    })),
  }));
}
