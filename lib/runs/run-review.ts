// Run review (docs/revisions.md): the requests of one service's run on one
// page, and "Approve all" / "Deny all" recorded as one vote per request
// through the one vote function, in one transaction: every vote is
// recorded, or none is. The reviewer sends the ids the page showed as
// theirs to decide, so a request that arrived since is never decided unseen.
import "server-only";
import { z } from "zod";
import { db, Prisma } from "../db/client";
import { direct } from "../db/sql";
import { inTransaction } from "../db/transaction";
import { recordAudit } from "../audit/append-event";
import { AppError, issuesOf } from "../errors";
import { newId } from "../ids";
import { emitLocalChange } from "../approvals/changes";
import { effectiveStatus } from "../approvals/present";
import { idSchema } from "../approvals/schemas";
import { ARGS_PREVIEW_CHARS } from "../display/listed-request";
import { loadPolicies } from "../policies/load-policies";
import { rulesOfRequest } from "../reviews/authority";
import { eligibility } from "../reviews/eligibility";
import { optionalReasonSchema, recordVoteInTx, type ReviewOutcome } from "../reviews/record-review";
import { digestDependsOnArgs, digestVisibleTo, loadViewer, visibleTo } from "../reviews/visibility";
import { holdsRedactedSql } from "../reviews/visibility-sql";

/** Most requests of one run that are listed (across its pages) and that one batch decides. */
export const MAX_RUN_REQUESTS = 100;
/**
 * Requests on one page of a run, as on the queue: the page's server time and
 * size are bounded by this, not by the run (docs/security.md). A batch
 * decides what its page showed.
 */
export const RUN_PAGE_SIZE = 25;

const STATUS_ORDER = (status: string) => (status === "pending" ? 0 : 1);

/**
 * One page (1-based; past the last it is the last) of the run's requests
 * this viewer may see (pending first, then oldest first), or null when they
 * see none. Bounded (docs/security.md): RUN_PAGE_SIZE requests, each request's
 * arguments are only the start of their stored text (`argsHead`, at most
 * ARGS_PREVIEW_CHARS characters) and its size; whether they hold redacted
 * values (for the digest rule) is asked of the database, and only where the
 * rule turns on it. Whether the viewer may decide each one follows the
 * policy as it is now, as the vote itself does (lib/reviews/authority.ts).
 */
export async function findRunReview(viewerId: string, serviceSlug: string, runId: string, page = 1) {
  const viewer = await loadViewer(viewerId);
  if (!viewer) return null;
  const rows = await db().approval.findMany({
    where: { runId, service: { slug: serviceSlug } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: MAX_RUN_REQUESTS + 1,
    select: {
      id: true,
      tool: true,
      callId: true,
      effects: true,
      environment: true,
      requestedBy: true,
      requesterKey: true,
      summary: true,
      status: true,
      expiresAt: true,
      createdAt: true,
      argsDigest: true,
      argsSalt: true,
      requiredRoles: true,
      approveCount: true,
      quorum: true,
      minReviewSeconds: true,
      requireFullView: true,
      requirePasskey: true,
      escalatedAt: true,
      service: { select: { slug: true } },
      reviews: { select: { reviewerId: true } },
    },
  });
  const now = new Date();
  // Pending first (as the status is now: an expired one is not), then oldest first; then this page of them.
  const visibleAll = rows
    .slice(0, MAX_RUN_REQUESTS)
    .filter((a) => visibleTo(viewer, a))
    .sort((x, y) => STATUS_ORDER(effectiveStatus(x, now)) - STATUS_ORDER(effectiveStatus(y, now)));
  if (visibleAll.length === 0) return null;
  const pages = Math.ceil(visibleAll.length / RUN_PAGE_SIZE);
  const pageShown = Math.min(Math.max(1, Math.floor(page)), pages);
  const seen = visibleAll.slice((pageShown - 1) * RUN_PAGE_SIZE, pageShown * RUN_PAGE_SIZE);
  // The start of each request's stored arguments (one character more than is read, to tell whether that is all),
  // and their size in bytes (from the row's header: the text is not read for it).
  const heads = await db().$queryRaw<Array<{ id: string; head: string; bytes: number | bigint }>>`
    SELECT a.id, SUBSTR(a.redacted_args, 1, ${Prisma.raw(String(ARGS_PREVIEW_CHARS + 1))}) AS head, OCTET_LENGTH(a.redacted_args) AS bytes
    FROM approvals a WHERE a.id IN (${Prisma.join(seen.map((a) => a.id))})`;
  const headOf = new Map(heads.map((h) => [h.id, h]));
  // Whether they hold redacted values, asked (a scan of the whole text) only where the digest rule turns on it.
  const asked = seen.filter((a) => digestDependsOnArgs(viewer, a)).map((a) => a.id);
  const holds = asked.length
    ? new Map(
        (
          await db().$queryRaw<Array<{ id: string; holds: number | bigint }>>`
            SELECT a.id, ${holdsRedactedSql()} AS holds FROM approvals a WHERE a.id IN (${Prisma.join(asked)})`
        ).map((h) => [h.id, Number(h.holds) === 1]),
      )
    : new Map<string, boolean>();
  const policies = await loadPolicies(direct());
  const visible = seen.map((a) => {
    const h = headOf.get(a.id);
    const head = Array.from(h?.head ?? "");
    const verdict = eligibility(a, viewer, a.reviews, now, rulesOfRequest(policies, a).roles);
    return {
      id: a.id,
      tool: a.tool,
      callId: a.callId,
      effects: a.effects,
      environment: a.environment,
      requestedBy: a.requestedBy,
      summary: a.summary,
      status: effectiveStatus(a, now),
      createdAt: a.createdAt,
      argsDigest: digestVisibleTo(viewer, { ...a, holdsRedacted: holds.get(a.id) ?? null }) ? a.argsDigest : null,
      /** The start of the stored (redacted) arguments' JSON text (ARGS_PREVIEW_CHARS characters), whether it is all of it, and the whole text's size in bytes. */
      argsHead: head.slice(0, ARGS_PREVIEW_CHARS).join(""),
      argsComplete: h !== undefined && head.length <= ARGS_PREVIEW_CHARS,
      argsBytes: Number(h?.bytes ?? 0),
      approvals: a.approveCount,
      quorum: a.quorum,
      canDecide: verdict.ok,
      whyNot: verdict.ok ? null : verdict.message,
    };
  });
  return {
    service: serviceSlug,
    runId,
    requests: visible,
    /** Which page this is, of how many, and where its first request stands among all the viewer may see. */
    page: pageShown,
    pages,
    total: visibleAll.length,
    first: (pageShown - 1) * RUN_PAGE_SIZE + 1,
    truncated: rows.length > MAX_RUN_REQUESTS,
  };
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
    recordAudit({
      type: "run.reviewed",
      actor: `user:${reviewer.email}`,
      data: { batch: batchId, service, run_id: runId, decision, count: ids.length, approvals: ids.slice(0, 50), ...(reason ? { reason } : {}) },
    });
    return done;
  });
  for (const id of ids) emitLocalChange(id);
  return { batchId, outcomes };
}
