// Server-side session records. The Auth.js cookie is a signed JWT and cannot
// be revoked by itself; it carries a session id that must still be live here
// on every request, so sign-out and disabling a user take effect at once.
import "server-only";
import { db } from "../db/client";
import { newId } from "../ids";
import { rolesOf } from "../users/roles";

export const SESSION_TTL_SECONDS = 12 * 60 * 60;

export async function createSession(userId: string): Promise<{ id: string; expiresAt: Date }> {
  const expiresAt = new Date(Date.now() + SESSION_TTL_SECONDS * 1000);
  const id = newId("ses");
  await db().session.create({ data: { id, userId, expiresAt } });
  await db().user.update({ where: { id: userId }, data: { lastSignInAt: new Date() } });
  return { id, expiresAt };
}

export async function revokeSession(id: string): Promise<void> {
  await db().session.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
}

export type SessionUser = {
  id: string;
  email: string;
  name: string | null;
  roles: string[];
  sessionId: string;
};

/** The user behind a live session, with roles read now from the database. */
export async function sessionUser(sessionId: string, userId: string): Promise<SessionUser | null> {
  const session = await db().session.findFirst({
    where: { id: sessionId, userId, revokedAt: null, expiresAt: { gt: new Date() }, user: { disabledAt: null } },
    select: { user: { select: { id: true, email: true, name: true } } },
  });
  if (!session) return null;
  return { ...session.user, roles: await rolesOf(db(), userId), sessionId };
}
