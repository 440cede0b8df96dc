// May this person decide this request, now? The rules of CONTRACT §6 as one
// pure function: used by recordReview (inside its transaction, on locked,
// current rows) and by the pages, to explain why there are no buttons.
import type { ErrorCode } from "../errors";

type ApprovalFacts = {
  status: string;
  expiresAt: Date;
  requestedBy: string | null;
  requiredRoles: string; // JSON array
};

type ReviewerFacts = {
  id: string;
  email: string;
  disabledAt: Date | null;
  roles: Array<{ role: string }>;
  identities: Array<{ email: string | null; subject: string }>;
} | null;

export type Eligibility =
  | { ok: true }
  | { ok: false; code: Extract<ErrorCode, "not-found" | "forbidden" | "expired" | "already-decided" | "self-review" | "not-eligible" | "already-reviewed">; message: string };

export function requiredRolesOf(json: string): string[] {
  const v: unknown = JSON.parse(json);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** The requester, matched on email case-insensitively or on a linked identity. */
export function isRequester(requestedBy: string | null, reviewer: NonNullable<ReviewerFacts>): boolean {
  if (!requestedBy) return false;
  const who = requestedBy.trim().toLowerCase();
  if (who === reviewer.email.toLowerCase()) return true;
  return reviewer.identities.some((i) => i.email?.toLowerCase() === who || i.subject.toLowerCase() === who);
}

export function eligibility(
  approval: ApprovalFacts,
  reviewer: ReviewerFacts,
  previous: Array<{ reviewerId: string }>,
  now: Date,
): Eligibility {
  if (!reviewer || reviewer.disabledAt) return { ok: false, code: "forbidden", message: "your account cannot review" };
  if (approval.status !== "pending") return { ok: false, code: "already-decided", message: `this request is already ${approval.status}` };
  if (approval.expiresAt.getTime() <= now.getTime()) return { ok: false, code: "expired", message: "this request has expired" };
  if (isRequester(approval.requestedBy, reviewer)) {
    return { ok: false, code: "self-review", message: "you requested this call, so you cannot review it" };
  }
  const required = requiredRolesOf(approval.requiredRoles);
  if (!reviewer.roles.some((r) => required.includes(r.role))) {
    return { ok: false, code: "not-eligible", message: `this request needs one of these roles: ${required.join(", ")}` };
  }
  if (previous.some((r) => r.reviewerId === reviewer.id)) {
    return { ok: false, code: "already-reviewed", message: "you have already reviewed this request" };
  }
  return { ok: true };
}
