// Who is told about a request: exactly the people who may decide it now.
// The rule is the review's own (lib/reviews/eligibility.ts), applied to each
// holder of a required role, so a role revoked, an account disabled or a
// vote cast removes a person from the next message as it does from the buttons.
import "server-only";
import type { Tx } from "../db/client";
import { eligibility, requiredRolesOf } from "../reviews/eligibility";

export type Recipient = { id: string; email: string };

const reviewerFacts = {
  id: true,
  email: true,
  disabledAt: true,
  roles: { select: { role: true } },
  identities: { select: { email: true, subject: true } },
} as const;

export async function eligibleRecipients(tx: Tx, approvalId: string, now = new Date()): Promise<Recipient[]> {
  const approval = await tx.approval.findUnique({
    where: { id: approvalId },
    select: { status: true, expiresAt: true, requiredRoles: true, requestedBy: true, requesterKey: true, reviews: { select: { reviewerId: true } } },
  });
  if (!approval) return [];
  const roles = requiredRolesOf(approval.requiredRoles);
  const holders = await tx.user.findMany({
    where: { disabledAt: null, roles: { some: { role: { in: roles } } } },
    select: reviewerFacts,
    orderBy: { email: "asc" },
  });
  return holders.filter((u) => eligibility(approval, u, approval.reviews, now).ok).map((u) => ({ id: u.id, email: u.email }));
}

/** Whether one person may still decide the request (checked again just before a message goes out). */
export async function mayStillDecide(tx: Tx, approvalId: string, userId: string, now = new Date()): Promise<boolean> {
  const approval = await tx.approval.findUnique({
    where: { id: approvalId },
    select: { status: true, expiresAt: true, requiredRoles: true, requestedBy: true, requesterKey: true, reviews: { select: { reviewerId: true } } },
  });
  const user = await tx.user.findUnique({ where: { id: userId }, select: reviewerFacts });
  return approval !== null && eligibility(approval, user, approval.reviews, now).ok;
}
