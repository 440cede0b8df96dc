// "Who is asking, right now?" for pages, server actions and route handlers.
// Roles and the disabled flag come from the database on every call, so a
// role change or a disabled account takes effect on the next click.
import "server-only";
import { auth } from "./nextauth";
import { sessionUser, type SessionUser } from "./sessions";

export type CurrentUser = SessionUser;

export async function getCurrentUser(): Promise<CurrentUser | null> {
  const session = await auth();
  if (!session?.sid || !session.uid) return null;
  return sessionUser(session.sid, session.uid);
}
