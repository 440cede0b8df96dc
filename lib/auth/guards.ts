// One guard per surface. Pages redirect an anonymous visitor to /signin and
// answer 403 to a signed-in user without the right; server actions throw.
// Every check reads current database state (getCurrentUser).
import "server-only";
import { forbidden, redirect } from "next/navigation";
import { headers } from "next/headers";
import { AppError } from "../errors";
import { getCurrentUser, type CurrentUser } from "./current-user";
import { can, type Permission } from "./permissions";
import { isSameOrigin } from "./same-origin";
import { env } from "../env";

export async function requireUserPage(): Promise<CurrentUser> {
  const user = await getCurrentUser();
  if (!user) redirect("/signin");
  return user;
}

export async function requirePermissionPage(permission: Permission): Promise<CurrentUser> {
  const user = await requireUserPage();
  if (!can(user, permission)) forbidden();
  return user;
}

/**
 * For server actions: the request must come from our own origin, APP_URL's
 * (Next checks Origin only against Host or X-Forwarded-Host, which a client
 * can choose, and lets a request without Origin through), and from a live
 * session holding the permission.
 */
export async function requireUserAction(permission?: Permission): Promise<CurrentUser> {
  await assertSameOrigin();
  const user = await getCurrentUser();
  if (!user) throw new AppError("unauthorized", "sign in again");
  if (permission && !can(user, permission)) throw new AppError("forbidden", "not allowed");
  return user;
}

/** The Origin header must be exactly APP_URL's origin (lib/auth/same-origin.ts). */
export async function assertSameOrigin(): Promise<void> {
  const h = await headers();
  if (!isSameOrigin(h.get("origin"), env().appUrl)) throw new AppError("forbidden", "cross-site request refused");
}
