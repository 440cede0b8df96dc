// Who is told about a request: exactly the people who may decide it now and
// are not away (lib/users/away.ts). The rule is the review's own
// (lib/reviews/eligibility.ts), applied to each holder of a required role, so
// a role revoked, an account disabled or a vote cast removes a person from
// the next message as it does from the buttons.
import "server-only";
import type { Tx } from "../db/client";
import { asDateOrNull, placeholders, type Sql } from "../db/sql";
import { eligibility, requiredRolesOf, type ReviewerFacts } from "../reviews/eligibility";
import { ADMIN_ROLE } from "../users/schemas";
import { inForceAt } from "../users/roles";
import { isAway } from "../users/away";

/** A person to tell, with the channels they chose on /settings. */
export type Recipient = { id: string; email: string; notifyEmail: boolean; notifyPush: boolean; notifySlack: boolean };

const channels = { id: true, email: true, notifyEmail: true, notifyPush: true, notifySlack: true } as const;

/** What the review's rule needs to know of a person (lib/reviews/eligibility.ts). */
export const reviewerFacts = {
  ...channels,
  disabledAt: true,
  awayUntil: true,
  roles: { select: { role: true, expiresAt: true } },
  identities: { select: { email: true, subject: true } },
} as const;

/** What the review's rule needs to know of a request. */
export const approvalFacts = {
  status: true,
  expiresAt: true,
  requiredRoles: true,
  requestedBy: true,
  requesterKey: true,
  reviews: { select: { reviewerId: true } },
} as const;

type ApprovalFacts = Parameters<typeof eligibility>[0] & { reviews: Array<{ reviewerId: string }> };

/**
 * The enabled holders of any of `roles`, read once; `eligibleFor` picks
 * those who may decide one request now (a batch of requests shares the read).
 */
export async function recipientsAmong(tx: Tx, roles: string[]): Promise<{ eligibleFor: (approval: ApprovalFacts, now: Date) => Recipient[] }> {
  const holders = roles.length
    ? await tx.user.findMany({
        where: { disabledAt: null, roles: { some: { role: { in: roles } } } },
        select: reviewerFacts,
        orderBy: { email: "asc" },
      })
    : [];
  return {
    eligibleFor: (approval, now) =>
      holders
        .filter((u) => !isAway(u, now) && eligibility(approval, u, approval.reviews, now).ok)
        .map((u) => ({ id: u.id, email: u.email, notifyEmail: u.notifyEmail, notifyPush: u.notifyPush, notifySlack: u.notifySlack })),
  };
}

/**
 * How many people could approve a new request at all: enabled holders of a
 * required role who are not its requester and not away, by the same rule, as
 * if nobody had voted yet. Fewer than the quorum means it can never be
 * approved (or, with people away, not until they are back): it is flagged.
 */
export async function countPossibleApprovers(
  sql: Sql,
  request: { requiredRoles: string; requestedBy: string | null; requesterKey: string | null },
  now = new Date(),
): Promise<number> {
  const roles = requiredRolesOf(request.requiredRoles);
  if (roles.length === 0) return 0;
  // Every ingest asks this: two plain statements (the second only when there is a requester to rule out).
  const holders = await sql.all<{ id: string; email: string; role: string; expires_at: unknown }>(
    `SELECT u.id, u.email, r.role, r.expires_at FROM users u JOIN user_roles r ON r.user_id = u.id
     WHERE u.disabled_at IS NULL AND (u.away_until IS NULL OR u.away_until <= ?) AND r.role IN (${placeholders(roles.length)})`,
    [now, ...roles],
  );
  const people = new Map<string, NonNullable<ReviewerFacts>>();
  for (const h of holders) {
    const p = people.get(h.id) ?? { id: h.id, email: h.email, disabledAt: null, roles: [], identities: [] };
    p.roles.push({ role: h.role, expiresAt: asDateOrNull(h.expires_at) });
    people.set(h.id, p);
  }
  if (people.size > 0 && (request.requestedBy !== null || request.requesterKey !== null)) {
    const ids = [...people.keys()];
    const identities = await sql.all<{ user_id: string; email: string | null; subject: string }>(
      `SELECT user_id, email, subject FROM identities WHERE user_id IN (${placeholders(ids.length)})`,
      ids,
    );
    for (const i of identities) people.get(i.user_id)?.identities.push({ email: i.email, subject: i.subject });
  }
  const fresh = { ...request, status: "pending", expiresAt: new Date(now.getTime() + 60_000) };
  return [...people.values()].filter((u) => eligibility(fresh, u, [], now).ok).length;
}

/** The enabled admins who are not away: they hear about requests nobody can approve. */
export async function enabledAdmins(tx: Tx, now = new Date()): Promise<Recipient[]> {
  return tx.user.findMany({
    where: { disabledAt: null, OR: [{ awayUntil: null }, { awayUntil: { lte: now } }], roles: { some: { role: ADMIN_ROLE, ...inForceAt(now) } } },
    select: channels,
    orderBy: { email: "asc" },
  });
}
