// The reviewers' votes as the owning service sees them, read in the order
// they were cast: one list for the consume answer, the state answer and the
// decided callback, so an agent can tell its user why a call was denied.
import "server-only";
import type { Tx } from "../db/client";
import { presentReviews } from "./present";
import type { ReviewEntry } from "./schemas";

/** The query shape, in vote order: usable in `findMany` and as an `include` on an approval. */
export const REVIEW_TRAIL_QUERY = {
  orderBy: [{ createdAt: "asc" as const }, { id: "asc" as const }],
  select: { reviewerEmail: true, decision: true, reason: true, createdAt: true },
};

/** A request's votes, in order, read within the caller's transaction. */
export async function reviewTrail(tx: Tx, approvalId: string): Promise<ReviewEntry[]> {
  return presentReviews(await tx.review.findMany({ where: { approvalId }, ...REVIEW_TRAIL_QUERY }));
}
