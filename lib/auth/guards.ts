// One guard per surface. Pages redirect an anonymous visitor to /signin and
// answer 403 to a signed-in user without the right; server actions throw.
// Every check reads current database state (getCurrentUser).
import "server-only";
import { forbidden, redirect } from "next/navigation";
import { headers } from "next/headers";
import { AppError } from "../errors";
import { getCurrentUser, type CurrentUser } from "./current-user";
import { can, type Permission } from "./permissions";

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
 * For server actions: the request must come from our own origin (Next checks
 * Origin against Host but lets a request without Origin through), and from a
 * live session holding the permission.
 */
export async function requireUserAction(permission?: Permission): Promise<CurrentUser> {
  await assertSameOrigin();
  const user = await getCurrentUser();
  if (!user) throw new AppError("unauthorized", "sign in again");
  if (permission && !can(user, permission)) throw new AppError("forbidden", "not allowed");
  return user;
}

export async function assertSameOrigin(): Promise<void> {
  const h = await headers();
  const origin = h.get("origin");
  const host = h.get("x-forwarded-host") ?? h.get("host");
  if (!origin || !host) throw new AppError("forbidden", "cross-site request refused");
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    throw new AppError("forbidden", "cross-site request refused");
  }
  if (originHost !== host) throw new AppError("forbidden", "cross-site request refused");
}
