// What each role may do, as one typed table. Reviewing a request is not here:
// it depends on the request's policy (lib/reviews decides it from the roles
// snapshotted on the request); who sees a request is lib/reviews/visibility.ts,
// which uses the two "requests:" rows below.
import { ADMIN_ROLE } from "../users/schemas";

/** Reads every request and its audit trail on the pages, decides nothing (docs/security.md). */
export const AUDITOR_ROLE = "auditor";

export const PERMISSIONS = {
  "queue:view": "any",
  "admin:users": [ADMIN_ROLE],
  "admin:policies": [ADMIN_ROLE],
  "admin:services": [ADMIN_ROLE],
  "admin:audit": [ADMIN_ROLE],
  /** The notification outbox: every message, its status and attempts, and the local mailbox. */
  "admin:outbox": [ADMIN_ROLE],
  /** Approved and consumed requests whose executor has not reported the run (docs/executions.md). */
  "admin:executions": [ADMIN_ROLE],
  /** Review statistics and their CSV (docs/insights.md). */
  "admin:insights": [ADMIN_ROLE],
  /** See every request, whatever its required roles. */
  "requests:view-all": [ADMIN_ROLE, AUDITOR_ROLE],
  /** See the digest of an unsalted request with redacted values without being able to decide it. */
  "requests:view-any-digest": [ADMIN_ROLE],
} as const satisfies Record<string, "any" | readonly string[]>;

export type Permission = keyof typeof PERMISSIONS;

export function can(user: { roles: readonly string[] }, permission: Permission): boolean {
  const needs: "any" | readonly string[] = PERMISSIONS[permission];
  return needs === "any" || needs.some((role) => user.roles.includes(role));
}
