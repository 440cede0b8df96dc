// Who sees a request, and who sees its digest (docs/security.md). The one place
// for both rules: the decision page (get-review-view.ts), the queue (whose
// SQL states the first rule again in visibility-sql.ts, checked against this
// by test/reviews/rules-in-sql.suite.ts), the live queue stream and any route
// that shows part of a request call these.
//
//   sees the request: holders of one of its required roles (its eligible
//     reviewers), its requester (by requester key), admins, auditors;
//   sees the digest of an unsalted request whose stored arguments hold
//     redacted values: only those who may decide it (a required role, not the
//     requester) and admins. The digest of known-shaped secrets (a card with a
//     known prefix, a common password) is a guessing oracle; a salted digest
//     is not, so it is shown to everyone who sees the request.
import "server-only";
import { db } from "../db/client";
import { can } from "../auth/permissions";
import { rolesInForce } from "./authority";
import { isRequester, requiredRolesOf, type RequesterFacts, type ReviewerFacts } from "./eligibility";

export type Viewer = NonNullable<ReviewerFacts>;
export type VisibilityFacts = RequesterFacts & { requiredRoles: string /* JSON array */ };
export type DigestFacts = VisibilityFacts & { argsSalt: string | null; redactedArgs: string /* JSON */ };
/** The same facts with holdsRedactedValues() answered by the database (holdsRedactedSql), or not asked (null), for pages that do not read the arguments. */
export type DigestFactsWithoutArgs = VisibilityFacts & { argsSalt: string | null; holdsRedacted: boolean | null };

/** The columns visibleTo() and digestVisibleTo() read, for Prisma selects. */
export const VIEWER_SELECT = {
  id: true,
  email: true,
  disabledAt: true,
  roles: { select: { role: true, expiresAt: true } },
  identities: { select: { email: true, subject: true } },
} as const;

/** The roles that count: none for a disabled account, and a time-bound one only before its end. */
export const rolesOf = (viewer: Viewer, now = new Date()) => (viewer.disabledAt ? [] : rolesInForce(viewer.roles, now));

/** Admins and auditors see every request. */
export const seesEveryRequest = (viewer: Viewer) => can({ roles: rolesOf(viewer) }, "requests:view-all");

function holdsRequiredRole(viewer: Viewer, approval: VisibilityFacts): boolean {
  const roles = rolesOf(viewer);
  return requiredRolesOf(approval.requiredRoles).some((r) => roles.includes(r));
}

/** May `viewer` see this request at all (page, queue row, live id)? */
export function visibleTo(viewer: Viewer | null, approval: VisibilityFacts): boolean {
  if (!viewer || viewer.disabledAt) return false;
  if (seesEveryRequest(viewer)) return true;
  return holdsRequiredRole(viewer, approval) || isRequester(approval, viewer);
}

/**
 * The start of the redactor's tag, "[redacted:<rule>]", anywhere in the
 * stored arguments (keys or values). A value that only spells the start
 * counts too: the digest is then hidden from more people, never shown to
 * more. A plain substring, so pages that list many requests test it in SQL
 * without reading the arguments (holdsRedactedSql in visibility-sql.ts).
 */
export const REDACTION_TAG_START = "[redacted:";

/** True when the stored (redacted) arguments hold at least one redacted value. */
export function holdsRedactedValues(redactedArgs: string): boolean {
  return redactedArgs.includes(REDACTION_TAG_START);
}

/**
 * May `viewer`, who can see the request, also see its digest? Decided on the
 * request's roles, not its status: a decided request's digest is as guessable.
 * `holdsRedacted` (for pages that do not read the arguments): what
 * holdsRedactedValues() says, asked of the database only where
 * digestDependsOnArgs(); null, where it was not asked, counts as holding them.
 */
export function digestVisibleTo(viewer: Viewer | null, approval: DigestFacts | DigestFactsWithoutArgs): boolean {
  if (!visibleTo(viewer, approval)) return false;
  if (!digestDependsOnArgs(viewer, approval)) return true;
  return !("redactedArgs" in approval ? holdsRedactedValues(approval.redactedArgs) : (approval.holdsRedacted ?? true));
}

/**
 * Whether digestVisibleTo() turns on what the arguments hold: only for an
 * unsalted request, and a viewer who sees it but may not decide it (its
 * requester, an auditor) and is not an admin. Everyone else who sees the
 * request sees its digest, whatever its arguments hold.
 */
export function digestDependsOnArgs(viewer: Viewer | null, approval: VisibilityFacts & { argsSalt: string | null }): boolean {
  if (!viewer || !visibleTo(viewer, approval) || approval.argsSalt !== null) return false;
  if (can({ roles: rolesOf(viewer) }, "requests:view-any-digest")) return false;
  return !(holdsRequiredRole(viewer, approval) && !isRequester(approval, viewer));
}

/** The viewer's facts as visibleTo() needs them, read now (role changes count at once). */
export async function loadViewer(viewerId: string): Promise<Viewer | null> {
  return db().user.findUnique({ where: { id: viewerId }, select: VIEWER_SELECT });
}

/** For routes that show part of one request: false for an unknown id too, so both answer the same 404. */
export async function canSeeRequest(viewerId: string, approvalId: string): Promise<boolean> {
  const [viewer, approval] = await Promise.all([
    loadViewer(viewerId),
    db().approval.findUnique({ where: { id: approvalId }, select: { requiredRoles: true, requestedBy: true, requesterKey: true } }),
  ]);
  return approval !== null && visibleTo(viewer, approval);
}

/** visibleTo()'s facts of several requests at once (for the live queue stream), by id. */
export async function loadVisibilityFacts(ids: readonly string[]): Promise<Map<string, VisibilityFacts>> {
  if (ids.length === 0) return new Map();
  const rows = await db().approval.findMany({
    where: { id: { in: [...ids] } },
    select: { id: true, requiredRoles: true, requestedBy: true, requesterKey: true },
  });
  return new Map(rows.map(({ id, ...facts }) => [id, facts]));
}
