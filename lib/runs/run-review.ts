// Run review (docs/revisions.md): the requests of one service's run on one
// page, and "Approve all" / "Deny all" recorded as one vote per request
// through the one vote function, in one transaction: every vote is
// recorded, or none is. The reviewer sends the ids the page showed as
// theirs to decide, so a request that arrived since is never decided unseen.
import "server-only";
import { z } from "zod";
import { db } from "../db/client";
import { inTransaction } from "../db/transaction";
import { appendAuditEvent } from "../audit/append-event";
import { AppError, issuesOf } from "../errors";
import { newId } from "../ids";
import { emitLocalChange } from "../approvals/changes";
import { effectiveStatus } from "../approvals/present";
import { idSchema } from "../approvals/schemas";
import { eligibility } from "../reviews/eligibility";
import { optionalReasonSchema, recordVoteInTx, type ReviewOutcome } from "../reviews/record-review";
import { digestVisibleTo, loadViewer, visibleTo } from "../reviews/visibility";

/** Most requests one run page shows and one batch decides. */
export const MAX_RUN_REQUESTS = 100;

const STATUS_ORDER = (status: string) => (status === "pending" ? 0 : 1);

/** The run's requests this viewer may see (pending first, then oldest first), or null when they see none. */
export async function findRunReview(viewerId: string, serviceSlug: string, runId: string) {
  const viewer = await loadViewer(viewerId);
  if (!viewer) return null;
  const rows = await db().approval.findMany({
    where: { runId, service: { slug: serviceSlug } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: MAX_RUN_REQUESTS + 1,
    include: { reviews: { select: { reviewerId: true } } },
  });
  const now = new Date();
  const visible = rows
    .slice(0, MAX_RUN_REQUESTS)
    .filter((a) => visibleTo(viewer, a))
    .map((a) => {
      const verdict = eligibility(a, viewer, a.reviews, now);
      return {
        id: a.id,
        tool: a.tool,
        callId: a.callId,
        effects: a.effects,
        status: effectiveStatus(a, now),
        createdAt: a.createdAt,
        argsDigest: digestVisibleTo(viewer, a) ? a.argsDigest : null,
        redactedArgs: JSON.parse(a.redactedArgs) as unknown,
        approvals: a.approveCount,
        quorum: a.quorum,
        canDecide: verdict.ok,
        whyNot: verdict.ok ? null : verdict.message,
      };
    })
    .sort((x, y) => STATUS_ORDER(x.status) - STATUS_ORDER(y.status));
  if (visible.length === 0) return null;
  return { service: serviceSlug, runId, requests: visible, truncated: rows.length > MAX_RUN_REQUESTS };
}

export type RunReview = NonNullable<Awaited<ReturnType<typeof findRunReview>>>;

export const runVoteSchema = z
  .object({
    service: z.string().min(1).max(100),
    runId: idSchema,
    decision: z.enum(["approve", "deny"]),
    reason: optionalReasonSchema,
    approvalIds: z
      .array(z.string().min(1).max(100))
      .min(1, "there is nothing to decide")
      .max(MAX_RUN_REQUESTS)
      .refine((ids) => new Set(ids).size === ids.length, "each request once"),
  })
  .refine((v) => v.decision === "approve" || v.reason, { message: "Deny all needs a reason", path: ["reason"] });

export type RunVote = z.input<typeof runVoteSchema>;

/**
 * One vote per listed request, all in one transaction, each through
 * recordVoteInTx (so every rule of a single vote holds for each); the first
 * refusal undoes them all and says which request and why.
 */
export async function reviewRun(reviewerId: string, input: RunVote): Promise<{ batchId: string; outcomes: ReviewOutcome[] }> {
  const parsed = runVoteSchema.safeParse(input);
  if (!parsed.success) {
    const reasonMissing = parsed.error.issues.some((i) => i.path[0] === "reason" && i.code === "custom");
    if (reasonMissing) throw new AppError("reason-required", "Deny all needs a reason");
    throw new AppError("invalid-request", parsed.error.issues[0]?.message ?? "invalid batch", { issues: issuesOf(parsed.error) });
  }
  const { service, runId, decision, reason, approvalIds } = parsed.data;
  const batchId = newId("bat");
  // Locked in one order by every batch, so two batches over the same requests cannot deadlock.
  const ids = [...approvalIds].sort();

  const outcomes = await inTransaction(async (tx) => {
    const members = await tx.approval.findMany({ where: { id: { in: ids }, runId, service: { slug: service } }, select: { id: true } });
    if (members.length !== ids.length) throw new AppError("not-found", "a request listed is not part of this run: nothing was recorded");
    const done: ReviewOutcome[] = [];
    for (const approvalId of ids) {
      try {
        done.push(await recordVoteInTx(tx, reviewerId, { approvalId, decision, reason }, "batch", { extra: { batch: batchId, run_id: runId } }));
      } catch (e) {
        if (e instanceof AppError) throw new AppError(e.code, `${approvalId}: ${e.message}. Nothing was recorded.`);
        throw e;
      }
    }
    const reviewer = await tx.user.findUniqueOrThrow({ where: { id: reviewerId }, select: { email: true } });
    await appendAuditEvent(tx, {
      type: "run.reviewed",
      actor: `user:${reviewer.email}`,
      data: { batch: batchId, service, run_id: runId, decision, count: ids.length, approvals: ids.slice(0, 50), ...(reason ? { reason } : {}) },
    });
    return done;
  });
  for (const id of ids) emitLocalChange(id);
  return { batchId, outcomes };
}
