// Where four-eyes is decided (docs/architecture.md). One function records a reviewer's
// vote and, when the vote completes a decision, the decision, its audit
// events and its callback, in one transaction.
//
// Race safety: the first statement locks the request row (a no-op update:
// a row lock on PostgreSQL; SQLite transactions already hold the write
// lock). Every rule below is then checked against current, committed state:
// the reviewer's roles and status are read now, not taken from the session.
import "server-only";
import { z } from "zod";
import { inTransaction, type Unit } from "../db/transaction";
import { recordAudit } from "../audit/append-event";
import { AppError } from "../errors";
import { newId } from "../ids";
import { emitLocalChange, announceChange } from "../approvals/changes";
import { finalizeApproval } from "../approvals/finalize";
import { eligibility } from "./eligibility";
import { approversWhoCount, rulesOfRequest } from "./authority";
import { loadPeople, loadPerson } from "./people";
import { visibleTo } from "./visibility";
import { loadPolicies } from "../policies/load-policies";
import { paceRefusal, readReviewView } from "./review-views";
import { issueVoteChallenge, passkeyVoteSchema, useVoteNonce, verifyVoteAssertion, type PasskeyVote } from "../passkeys/vote-passkey";

/** A reviewer's reason, wherever one is written (a vote, a batch, a proposal): trimmed, bounded, no NUL. */
export const reasonTextSchema = z
  .string()
  .trim()
  .max(2000)
  .regex(/^[^\u0000]*$/, "must not contain NUL characters");

/** An optional reason: empty reads as none. */
export const optionalReasonSchema = reasonTextSchema.optional().transform((r) => (r ? r : undefined));

export const reviewInputSchema = z
  .object({
    approvalId: z.string().min(1).max(100),
    decision: z.enum(["approve", "deny"]),
    reason: optionalReasonSchema,
  })
  .refine((v) => v.decision === "approve" || v.reason, { message: "a denial needs a reason", path: ["reason"] });

export type ReviewInput = z.input<typeof reviewInputSchema>;

export type ReviewOutcome = {
  approvalId: string;
  status: "pending" | "approved" | "denied";
  approvals: number;
  quorum: number;
  decidedBy: string[];
};

async function lockApproval(tx: Unit, approvalId: string): Promise<void> {
  await tx.$executeRaw`UPDATE approvals SET approve_count = approve_count WHERE id = ${approvalId}`;
}

/** Where a vote was cast; anything but the browser says so in its audit event. */
export type ReviewChannel = "browser" | "slack" | "batch" | "revision";

/** The channels that cannot carry a passkey assertion, as a refusal names them. */
const CHANNEL_WORDS: Record<Exclude<ReviewChannel, "browser">, string> = {
  slack: "a Slack button",
  batch: "Approve all / Deny all on a run's page",
  revision: "an approval carried over to a revision",
};

/**
 * Locks the request and checks every rule for this reviewer on current
 * state, inside the caller's transaction: the start of anything a reviewer
 * does to a request (a vote, a proposal of changes). The rules are the
 * policy's as it is now (rulesNow), not only the snapshot the request took
 * when it arrived. Throws AppError.
 */
export async function lockForReviewer(tx: Unit, reviewerId: string, approvalId: string, at?: Date) {
  await lockApproval(tx, approvalId);
  // Read after the lock: a vote that waited for it is judged at its own time.
  const now = at ?? new Date();
  const approval = await tx.approval.findUnique({ where: { id: approvalId }, include: { service: { select: { slug: true } } } });
  if (!approval) throw new AppError("not-found");
  const reviewer = await loadPerson(tx, reviewerId);
  const previous = await tx.review.findMany({
    where: { approvalId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { reviewerId: true, reviewerEmail: true, decision: true },
  });
  // Someone who may not see the request learns nothing about it, not even its roles (docs/security.md).
  if (reviewer && !reviewer.disabledAt && !visibleTo(reviewer, approval)) throw new AppError("not-found");
  const rules = rulesOfRequest(await loadPolicies(tx), approval);
  const verdict = eligibility(approval, reviewer, previous, now, rules.roles);
  if (!verdict.ok) throw new AppError(verdict.code, verdict.message);
  return { approval, reviewer: reviewer!, previous, now, rules };
}

/**
 * Records one vote inside the caller's transaction, and the decision it
 * completes: the one place a vote is recorded (the browser, Slack, a run's
 * batch and a revision's carried approval all come here). An approval
 * completes the quorum only with the earlier approvals that still count:
 * each earlier approver is asked again, now (authority.ts).
 */
export async function recordVoteInTx(
  tx: Unit,
  reviewerId: string,
  vote: { approvalId: string; decision: "approve" | "deny"; reason?: string | undefined },
  via: ReviewChannel,
  opts: { at?: Date; extra?: Record<string, string>; passkey?: PasskeyVote } = {},
): Promise<ReviewOutcome> {
  const { approvalId, decision, reason } = vote;
  // A passkey vote's nonce is used first, once (docs/passkeys.md): a replay is
  // refused as such, and a vote that fails below leaves it unused.
  if (opts.passkey) await useVoteNonce(tx, { nonce: opts.passkey.nonce, userId: reviewerId, approvalId, now: opts.at ?? new Date() });
  const { approval, reviewer, previous, now, rules } = await lockForReviewer(tx, reviewerId, approvalId, opts.at);
  const email = reviewer.email;
  let assertion: Awaited<ReturnType<typeof verifyVoteAssertion>> | null = null;
  if (rules.requirePasskey) {
    if (via !== "browser") {
      throw new AppError(
        "passkey-required",
        `this request's policy requires a passkey: ${CHANNEL_WORDS[via]} cannot carry one, so vote on the request's page in Countersign`,
      );
    }
    if (!opts.passkey) throw new AppError("passkey-required", "this request's policy requires a passkey: approve or deny it with your passkey");
    assertion = await verifyVoteAssertion(tx, {
      userId: reviewerId,
      email,
      approvalId,
      argsDigest: approval.argsDigest,
      decision,
      reason: reason ?? "",
      vote: opts.passkey,
      now,
    });
  } else if (opts.passkey) {
    throw new AppError("invalid-request", "this request's policy does not ask for a passkey: vote without one");
  }
  // Anti-rubber-stamp (docs/insights.md): long enough on the page, and the arguments seen in full.
  if (rules.minReviewSeconds > 0 || rules.requireFullView) {
    const view = via === "browser" ? await readReviewView(tx, approvalId, reviewerId) : null;
    const refusal = paceRefusal(rules, view, now, via === "browser" ? null : CHANNEL_WORDS[via]);
    if (refusal) throw new AppError(refusal.code, refusal.message);
  }
  // The earlier approvals that still count: their approvers pass the same check now.
  const earlier = previous.filter((r) => r.decision === "approve");
  const people = await loadPeople(
    tx,
    earlier.map((r) => r.reviewerId),
  );
  const { counted, refused } = approversWhoCount(
    earlier.map((r) => ({ id: r.reviewerId, person: people.get(r.reviewerId) ?? null })),
    approval,
    rules,
    now,
  );
  const reviewId = newId("rev");
  await tx.review.create({
    data: { id: reviewId, approvalId, reviewerId, reviewerEmail: email, decision, reason: reason ?? null, createdAt: now, via },
  });
  if (assertion) await tx.voteAssertion.create({ data: { reviewId, approvalId, ...assertion, createdAt: now } });
  const approveCount = counted.length + (decision === "approve" ? 1 : 0);
  await tx.approval.update({ where: { id: approvalId }, data: { approveCount } });
  recordAudit({
    type: "review.recorded",
    actor: `user:${email}`,
    approvalId,
    data: {
      decision,
      reviewer: email,
      ...(reason ? { reason } : {}),
      approvals: approveCount,
      quorum: rules.quorum,
      // Earlier approvals whose approvers may no longer decide it: "email: why" (codes, never values).
      ...(refused.length ? { not_counted: refused.map((r) => `${r.email ?? "a deleted user"}: ${r.code}`).slice(0, 50) } : {}),
      ...(via !== "browser" ? { via } : {}),
      ...(assertion ? { passkey: true, credential_id: assertion.credentialId } : {}),
      ...opts.extra,
    },
  });

  let status: ReviewOutcome["status"] = "pending";
  let decidedBy: string[] = [];
  if (decision === "deny") {
    // Deny wins at once; the denier alone decided it.
    decidedBy = [email];
    status = "denied";
  } else if (approveCount >= rules.quorum) {
    decidedBy = [...counted.map((p) => p.email), email];
    status = "approved";
  }
  if (status !== "pending") {
    const decided = await finalizeApproval(tx, approvalId, status, {
      decidedBy,
      decidedAt: now,
      actor: `user:${email}`,
      reason: reason ?? null,
    });
    // The row is locked and was pending: a failure here is a bug, not a race.
    if (!decided) throw new Error("request left pending state under lock");
  } else {
    await announceChange(tx, approvalId);
  }
  return { approvalId, status, approvals: approveCount, quorum: rules.quorum, decidedBy };
}

/** Parses a vote at the boundary (a denial needs a reason). Throws AppError. */
export function parseReviewInput(input: ReviewInput): z.output<typeof reviewInputSchema> {
  const parsed = reviewInputSchema.safeParse(input);
  if (!parsed.success) {
    const reasonMissing = parsed.error.issues.some((i) => i.path[0] === "reason" && i.code === "custom");
    throw new AppError(reasonMissing ? "reason-required" : "invalid-request", reasonMissing ? "a denial needs a reason" : "invalid review");
  }
  return parsed.data;
}

export async function recordReview(
  reviewerId: string,
  input: ReviewInput & { passkey?: unknown },
  via: "browser" | "slack" = "browser",
): Promise<ReviewOutcome> {
  const vote = parseReviewInput({ approvalId: input.approvalId, decision: input.decision, reason: input.reason });
  let passkey: PasskeyVote | undefined;
  if (input.passkey !== undefined && input.passkey !== null) {
    const parsed = passkeyVoteSchema.safeParse(input.passkey);
    if (!parsed.success) throw new AppError("passkey-invalid", "the passkey's answer could not be read: start the vote again");
    passkey = parsed.data;
  }
  const outcome = await inTransaction((tx) => recordVoteInTx(tx, reviewerId, vote, via, { passkey }));
  emitLocalChange(vote.approvalId);
  return outcome;
}

/**
 * Step one of a passkey vote (docs/passkeys.md): every review rule is checked
 * as for the vote itself, then a nonce is issued and the WebAuthn request
 * options returned, whose challenge binds this decision and reason.
 */
export async function beginPasskeyVote(reviewerId: string, input: ReviewInput) {
  const vote = parseReviewInput(input);
  return issueVoteChallenge(reviewerId, vote, async (tx) => {
    const { approval, reviewer } = await lockForReviewer(tx, reviewerId, vote.approvalId);
    return { approval, reviewer };
  });
}
