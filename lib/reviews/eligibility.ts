// May this person vote on this request, now? The one authority check
// (authority.ts) plus the vote's own rule, one vote per reviewer. The pages
// and the queue use it to explain why there are no buttons; the queue states
// the same rule in SQL beside it (eligibility-sql.ts) on the roles the request
// stored, which the vote path checks again against the policy as it is now.
import { mayDecide, type Eligibility, type Person, type RequesterFacts } from "./authority";
import { parseStringList } from "../string-list";

export { isRequester, type Eligibility, type RequesterFacts } from "./authority";

type ApprovalFacts = RequesterFacts & {
  status: string;
  expiresAt: Date;
  requiredRoles: string; // JSON array
};

export type ReviewerFacts = Person | null;

export const requiredRolesOf = parseStringList;

/**
 * mayDecide() and not voted yet. `roles`: the roles that decide it now
 * (rulesNow()); without them, the roles the request stored.
 */
export function eligibility(
  approval: ApprovalFacts,
  reviewer: ReviewerFacts,
  previous: Array<{ reviewerId: string }>,
  now: Date,
  roles: readonly string[] = requiredRolesOf(approval.requiredRoles),
): Eligibility {
  const verdict = mayDecide(reviewer, approval, { roles: [...roles] }, now);
  if (!verdict.ok) return verdict;
  if (previous.some((r) => r.reviewerId === reviewer!.id)) {
    return { ok: false, code: "already-reviewed", message: "you have already reviewed this request" };
  }
  return { ok: true };
}
