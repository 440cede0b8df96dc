// When a request's page was first served to a reviewer, and whether they
// have seen its arguments in full (docs/insights.md). The page records the
// first view (idempotently: a reload changes nothing); the arguments route
// records the full view when it serves the whole arguments (the raw JSON
// view). The vote path reads both to enforce a policy's min_review_seconds
// and require_full_view; insights reads them for time on the page.
import "server-only";
import { asBool, asDate, asDateOrNull, direct, type Sql } from "../db/sql";

export type ReviewViewRow = { firstServedAt: Date; fullViewAt: Date | null; truncated: boolean };

/**
 * Records that the request's page was served to the user now, unless it was
 * before (the first time counts). `truncated`: the page's first render left
 * part of the arguments out. One conditional statement, so concurrent loads
 * record one row on both databases.
 */
export async function recordPageServed(
  view: { approvalId: string; userId: string; truncated: boolean; now?: Date },
  sql: Sql = direct(),
): Promise<ReviewViewRow> {
  const now = view.now ?? new Date();
  await sql.run(
    `INSERT INTO review_views (approval_id, user_id, first_served_at, truncated) VALUES (?, ?, ?, ?)
     ON CONFLICT (approval_id, user_id) DO NOTHING`,
    [view.approvalId, view.userId, now, view.truncated],
  );
  return (await readReviewView(sql, view.approvalId, view.userId))!;
}

/**
 * Records that the user was served the request's whole arguments now (kept
 * once: the first time counts). Only after the page was served: without a
 * first view there is nothing to complete, and nothing is written.
 */
export async function recordFullView(view: { approvalId: string; userId: string; now?: Date }, sql: Sql = direct()): Promise<boolean> {
  const now = view.now ?? new Date();
  const n = await sql.run(`UPDATE review_views SET full_view_at = ? WHERE approval_id = ? AND user_id = ? AND full_view_at IS NULL`, [
    now,
    view.approvalId,
    view.userId,
  ]);
  return n > 0;
}

export async function readReviewView(sql: Sql, approvalId: string, userId: string): Promise<ReviewViewRow | null> {
  const rows = await sql.all(`SELECT first_served_at, full_view_at, truncated FROM review_views WHERE approval_id = ? AND user_id = ?`, [
    approvalId,
    userId,
  ]);
  const r = rows[0];
  if (!r) return null;
  return { firstServedAt: asDate(r.first_served_at), fullViewAt: asDateOrNull(r.full_view_at), truncated: asBool(r.truncated) };
}

/** The policy's rules as a request snapshotted them. */
export type ReviewPace = { minReviewSeconds: number; requireFullView: boolean };

/**
 * Why this vote may not count yet, or null (docs/insights.md): the page must
 * have been served min_review_seconds ago, and a truncated view opened in
 * full. `pageless` names a channel that serves no page (Slack, a batch).
 */
export function paceRefusal(
  pace: ReviewPace,
  view: ReviewViewRow | null,
  now: Date,
  pageless: string | null,
): { code: "review-too-early" | "full-view-required"; message: string } | null {
  if (pace.minReviewSeconds <= 0 && !pace.requireFullView) return null;
  if (pageless) {
    return {
      code: "review-too-early",
      message: `this request's policy asks reviewers to look at it on its own page before voting, and ${pageless} shows no page: open the request in Countersign and vote there`,
    };
  }
  if (!view) return { code: "review-too-early", message: "Take a closer look: open the request's page in Countersign before voting" };
  if (pace.minReviewSeconds > 0) {
    const left = Math.ceil((view.firstServedAt.getTime() + pace.minReviewSeconds * 1000 - now.getTime()) / 1000);
    if (left > 0) return { code: "review-too-early", message: `Take a closer look: you can vote in ${left} s` };
  }
  if (pace.requireFullView && view.truncated && !view.fullViewAt) {
    return {
      code: "full-view-required",
      message:
        "This request's policy asks you to see all its arguments before voting: open Raw JSON under the arguments (it shows them in full), then vote",
    };
  }
  return null;
}

/**
 * What the request's page tells a reviewer who may vote about its pace rules,
 * or null when there is nothing to say: from when a vote counts, and whether
 * they must still open the arguments in full (only when their view left
 * some out). The same arithmetic as paceRefusal, said ahead of the vote.
 */
export function paceNote(pace: ReviewPace, view: ReviewViewRow | null): { voteFrom: Date; needsFullView: boolean } | null {
  if (!view || (pace.minReviewSeconds <= 0 && !pace.requireFullView)) return null;
  const needsFullView = pace.requireFullView && view.truncated && !view.fullViewAt;
  if (pace.minReviewSeconds <= 0 && !needsFullView) return null;
  return { voteFrom: new Date(view.firstServedAt.getTime() + pace.minReviewSeconds * 1000), needsFullView };
}
