// Who may still decide a pending request (CONTRACT §21 "who can decide"): per
// role that decides it now, how many approvals it still needs and how many
// people could give one now, by the review's own rule (eligibility.ts: the
// authority check, and not voted yet). The executor's state answer carries
// the counts; the request's page also names the people, to those who see it.
import "server-only";
import { db } from "../db/client";
import { direct } from "../db/sql";
import { effectiveStatus } from "../approvals/present";
import { loadPolicies } from "../policies/load-policies";
import { inForceAt } from "../users/roles";
import { rolesInForce, rulesOfRequest } from "./authority";
import { eligibility } from "./eligibility";

export type WaitingOn = { role: string; needed: number; eligible: number; people: Array<{ email: string; name: string | null }> };

/** The request's columns waitingOn() reads, for Prisma selects. */
export const WAITING_ON_FACTS = {
  status: true,
  expiresAt: true,
  tool: true,
  effects: true,
  quorum: true,
  minReviewSeconds: true,
  requireFullView: true,
  requirePasskey: true,
  escalatedAt: true,
  requiredRoles: true,
  requestedBy: true,
  requesterKey: true,
  approveCount: true,
  service: { select: { slug: true } },
  reviews: { select: { reviewerId: true } },
} as const;

/** What rulesOfRequest() reads, and what the review's rule reads of the request and its votes. */
type Facts = Parameters<typeof rulesOfRequest>[1] & {
  status: string;
  expiresAt: Date;
  requiredRoles: string;
  requestedBy: string | null;
  requesterKey: string | null;
  approveCount: number;
  reviews: Array<{ reviewerId: string }>;
};

/** Empty once the request is no longer pending: nobody is waited on. Read outside any transaction. */
export async function waitingOn(a: Facts, now = new Date()): Promise<WaitingOn[]> {
  if (effectiveStatus(a, now) !== "pending") return [];
  const rules = rulesOfRequest(await loadPolicies(direct()), a);
  const needed = Math.max(0, rules.quorum - a.approveCount);
  const holders = await db().user.findMany({
    where: { disabledAt: null, roles: { some: { role: { in: rules.roles }, ...inForceAt(now) } } },
    select: {
      id: true,
      email: true,
      name: true,
      disabledAt: true,
      roles: { select: { role: true, expiresAt: true } },
      identities: { select: { email: true, subject: true } },
    },
    orderBy: { email: "asc" },
  });
  const able = holders.filter((u) => eligibility(a, u, a.reviews, now, rules.roles).ok);
  return rules.roles.map((role) => {
    const people = able.filter((u) => rolesInForce(u.roles, now).includes(role)).map((u) => ({ email: u.email, name: u.name }));
    return { role, needed, eligible: people.length, people };
  });
}

/** The wire form (GET /api/v1/approvals/{id}): counts only, never names. */
export const waitingOnBody = (w: WaitingOn[]) => w.map(({ role, needed, eligible }) => ({ role, needed, eligible }));
