// eligibility.ts's rule as a SQL condition on a request row `a`, so the
// queue can list what a viewer may decide without loading every pending
// request. Checked against eligibility() on generated users, requests and
// votes by test/reviews/rules-in-sql.suite.ts; recordReview, with the
// TypeScript form, stays the authority at the moment of the click.
// Pending and not expired are the queue's own filter (lib/queue/dialect.ts).
import "server-only";
import { Prisma } from "../db/client";
import { personKeys } from "../identity/requester-key";
import { dialect } from "../queue/dialect";
import { rolesOf, type Viewer } from "./visibility";

/** A viewer with the requester keys they are known by (personKeys(): never empty). */
export type SqlViewer = Viewer & { keys: string[] };

export function sqlViewer(viewer: Viewer): SqlViewer {
  return { ...viewer, keys: personKeys(viewer) };
}

/** The viewer's roles that count (none when disabled), once each, for IN lists. */
export const heldRoles = (v: Viewer): string[] => [...new Set(rolesOf(v))];

/**
 * "a.* was requested by the viewer" (isRequester()): its stored requester key
 * is one of theirs. Never SQL NULL. Requests stored before requester keys
 * existed get theirs at start-up (lib/identity/backfill-requester-keys.ts);
 * recordReview also recomputes the key from requested_by.
 */
export function requestedBySql(v: SqlViewer): Prisma.Sql {
  return Prisma.sql`(a.requester_key IS NOT NULL AND a.requester_key IN (${Prisma.join(v.keys)}))`;
}

/**
 * "The viewer may decide a.*" for a pending, unexpired request: holds a
 * required role (a disabled account holds none), is not the requester, has
 * not voted. Every part is a definite true/false (no SQL NULL), so NOT of it
 * is exactly "waiting on others".
 */
export function canActSql(v: SqlViewer): Prisma.Sql {
  const roles = heldRoles(v);
  if (roles.length === 0) return Prisma.sql`(1 = 0)`;
  return Prisma.sql`(${dialect().holdsAnyRole(roles)}
    AND NOT ${requestedBySql(v)}
    AND NOT EXISTS (SELECT 1 FROM reviews rv WHERE rv.approval_id = a.id AND rv.reviewer_id = ${v.id}))`;
}
