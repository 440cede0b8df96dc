// Everything the decision page shows about one request, for one viewer, with
// the viewer's eligibility computed by the same rules recordReview enforces.
// null when there is no such request or the viewer may not see it (docs/security.md): the
// page answers both with the same 404.
import "server-only";
import { db } from "../db/client";
import { effectiveStatus, parseDecidedBy } from "../approvals/present";
import { eligibility, requiredRolesOf } from "./eligibility";
import { describeOutcome } from "./outcome";
import { digestVisibleTo, VIEWER_SELECT, visibleTo } from "./visibility";

export async function getReviewView(approvalId: string, viewerId: string) {
  const a = await db().approval.findUnique({
    where: { id: approvalId },
    include: {
      service: { select: { slug: true } },
      reviews: {
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: { reviewerId: true, reviewerEmail: true, decision: true, reason: true, createdAt: true },
      },
    },
  });
  if (!a) return null;
  const viewer = await db().user.findUnique({ where: { id: viewerId }, select: VIEWER_SELECT });
  if (!visibleTo(viewer, a)) return null;
  const showDigest = digestVisibleTo(viewer, a);
  const now = new Date();
  const verdict = eligibility(a, viewer, a.reviews, now);
  const status = effectiveStatus(a, now);
  const roles = requiredRolesOf(a.requiredRoles);
  const decidedBy = parseDecidedBy(a.decidedBy);
  const reviews = a.reviews.map((r) => ({
    email: r.reviewerEmail,
    decision: r.decision,
    reason: r.reason,
    at: r.createdAt,
    mine: r.reviewerId === viewerId,
  }));
  return {
    id: a.id,
    tool: a.tool,
    service: a.service.slug,
    environment: a.environment,
    effects: a.effects,
    runId: a.runId,
    callId: a.callId,
    requestedBy: a.requestedBy,
    summary: a.summary,
    /** null when hidden from this viewer: see digestVisibleTo(). */
    argsDigest: showDigest ? a.argsDigest : null,
    digestHidden: !showDigest,
    redactedArgs: JSON.parse(a.redactedArgs) as unknown,
    policy: { name: a.policyName, roles, quorum: a.quorum, ttlSeconds: a.ttlSeconds },
    /** Fewer people could approve it at ingest than its quorum needs. */
    quorumUnreachable: a.quorumUnreachable,
    /** When its policy escalated it, and the roles that joined then. */
    escalation: a.escalatedAt ? { at: a.escalatedAt, roles: requiredRolesOf(a.escalateToRoles) } : null,
    status,
    createdAt: a.createdAt,
    expiresAt: a.expiresAt,
    decidedAt: a.decidedAt,
    decidedBy,
    approvals: a.approveCount,
    reviews,
    /** The result panel's words: what the viewer did and what became of the request. */
    outcome: describeOutcome({ status, approvals: a.approveCount, quorum: a.quorum, roles, decidedBy, reviews }),
    canReview: verdict.ok,
    whyNot: verdict.ok ? null : verdict.message,
  };
}

export type ReviewView = NonNullable<Awaited<ReturnType<typeof getReviewView>>>;
