// May this person decide this request, now? The rules of docs/architecture.md as one
// pure function: used by recordReview (inside its transaction, on locked,
// current rows) and by the pages, to explain why there are no buttons. The
// queue states the same rule in SQL beside it (eligibility-sql.ts).
import type { ErrorCode } from "../errors";
import { personKeys, requesterKey } from "../identity/requester-key";
import { parseStringList } from "../string-list";

/** Who asked for a request: `requested_by` as sent, and its key (lib/identity) as stored at ingestion. */
export type RequesterFacts = {
  requestedBy: string | null;
  requesterKey: string | null;
};

type ApprovalFacts = RequesterFacts & {
  status: string;
  expiresAt: Date;
  requiredRoles: string; // JSON array
};

export type ReviewerFacts = {
  id: string;
  email: string;
  disabledAt: Date | null;
  roles: Array<{ role: string }>;
  identities: Array<{ email: string | null; subject: string }>;
} | null;

export type Eligibility =
  | { ok: true }
  | {
      ok: false;
      code: Extract<ErrorCode, "not-found" | "forbidden" | "expired" | "already-decided" | "self-review" | "not-eligible" | "already-reviewed">;
      message: string;
    };

export const requiredRolesOf = parseStringList;

/**
 * The requester (docs/architecture.md): the request's requester key equals the
 * key of the reviewer's email, or of a linked identity's email or subject.
 * The key is also recomputed from `requested_by`, so a key stored by an older
 * version (or not yet backfilled) cannot let a requester through.
 */
export function isRequester(approval: RequesterFacts, reviewer: Pick<NonNullable<ReviewerFacts>, "email" | "identities">): boolean {
  const keys = [approval.requesterKey, approval.requestedBy === null ? null : requesterKey(approval.requestedBy)];
  if (keys.every((k) => k === null)) return false;
  const mine = personKeys(reviewer);
  return keys.some((k) => k !== null && mine.includes(k));
}

/**
 * The person's part of the rules, whatever they act on (a request, or a
 * standing approval with its source request's requester and roles): not the
 * requester, and holding one of the required roles now.
 */
export function personEligibility(facts: RequesterFacts & { requiredRoles: string }, reviewer: NonNullable<ReviewerFacts>): Eligibility {
  if (isRequester(facts, reviewer)) {
    return { ok: false, code: "self-review", message: "you requested this call, so you cannot review it" };
  }
  const required = requiredRolesOf(facts.requiredRoles);
  if (!reviewer.roles.some((r) => required.includes(r.role))) {
    return { ok: false, code: "not-eligible", message: `this request needs one of these roles: ${required.join(", ")}` };
  }
  return { ok: true };
}

export function eligibility(approval: ApprovalFacts, reviewer: ReviewerFacts, previous: Array<{ reviewerId: string }>, now: Date): Eligibility {
  if (!reviewer || reviewer.disabledAt) return { ok: false, code: "forbidden", message: "your account cannot review" };
  if (approval.status !== "pending") return { ok: false, code: "already-decided", message: `this request is already ${approval.status}` };
  if (approval.expiresAt.getTime() <= now.getTime()) return { ok: false, code: "expired", message: "this request has expired" };
  const person = personEligibility(approval, reviewer);
  if (!person.ok) return person;
  if (previous.some((r) => r.reviewerId === reviewer.id)) {
    return { ok: false, code: "already-reviewed", message: "you have already reviewed this request" };
  }
  return { ok: true };
}
