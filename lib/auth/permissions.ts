// What each role may do, as one typed table. Reviewing a request is not here:
// it depends on the request's policy (lib/reviews decides it from the roles
// snapshotted on the request).
import { ADMIN_ROLE } from "../users/schemas";

export const PERMISSIONS = {
  "queue:view": "any",
  "admin:users": ADMIN_ROLE,
  "admin:policies": ADMIN_ROLE,
  "admin:services": ADMIN_ROLE,
  "admin:audit": ADMIN_ROLE,
} as const satisfies Record<string, "any" | typeof ADMIN_ROLE>;

export type Permission = keyof typeof PERMISSIONS;

export function can(user: { roles: readonly string[] }, permission: Permission): boolean {
  const needs: string = PERMISSIONS[permission];
  return needs === "any" || user.roles.includes(needs);
}
