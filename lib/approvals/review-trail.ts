// The reviewers' votes as the owning service sees them, read in the order
// they were cast: one list for the consume answer, the state answer and the
// decided callback, so an agent can tell its user why a call was denied.
import "server-only";
import { asDate, type Sql } from "../db/sql";
import { presentReviews } from "./present";
import type { ReviewEntry } from "./schemas";

/** The query shape, in vote order: usable in `findMany` and as an `include` on an approval. */
export const REVIEW_TRAIL_QUERY = {
  orderBy: [{ createdAt: "asc" as const }, { id: "asc" as const }],
  select: { reviewerEmail: true, decision: true, reason: true, createdAt: true },
};

/** A request's votes, in order (as REVIEW_TRAIL_QUERY), read within the caller's transaction. */
export async function reviewTrail(sql: Sql, approvalId: string): Promise<ReviewEntry[]> {
  const rows = await sql.all<{ reviewer_email: string; decision: string; reason: string | null; created_at: unknown }>(
    "SELECT reviewer_email, decision, reason, created_at FROM reviews WHERE approval_id = ? ORDER BY created_at ASC, id ASC",
    [approvalId],
  );
  return presentReviews(
    rows.map((r) => ({ reviewerEmail: r.reviewer_email, decision: r.decision, reason: r.reason, createdAt: asDate(r.created_at) })),
  );
}
