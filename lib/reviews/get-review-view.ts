// Everything the decision page shows about one request, for one viewer, with
// the viewer's eligibility computed by the same rules recordReview enforces.
// null when there is no such request or the viewer may not see it (docs/security.md): the
// page answers both with the same 404.
import "server-only";
import { db } from "../db/client";
import { direct } from "../db/sql";
import { effectiveStatus, parseDecidedBy } from "../approvals/present";
import { eligibility, requiredRolesOf } from "./eligibility";
import { rulesOfRequest } from "./authority";
import { loadPolicies } from "../policies/load-policies";
import { describeOutcome } from "./outcome";
import { digestVisibleTo, VIEWER_SELECT, visibleTo } from "./visibility";
import type { JsonPatch } from "@countersign/client";
import { textView } from "../display/request-display";
import { parseHidden } from "../revisions/hidden-values";
import { describePatch, editablePaths } from "../revisions/revision-view";
import type { RevisionDifferences } from "../revisions/check-revision";
import { standingOffer } from "../standing/standing-approvals";
import { executionView } from "../executions/execution-view";
import { waitingOn } from "./waiting-on";

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
  // The buttons follow the rules a vote is checked against: the policy as it is now.
  const rules = rulesOfRequest(await loadPolicies(direct()), a);
  const verdict = eligibility(a, viewer, a.reviews, now, rules.roles);
  const status = effectiveStatus(a, now);
  const roles = status === "pending" ? rules.roles : requiredRolesOf(a.requiredRoles);
  const quorum = status === "pending" ? rules.quorum : a.quorum;
  const decidedBy = parseDecidedBy(a.decidedBy);
  const view = JSON.parse(a.redactedArgs) as unknown;
  const revision = await revisionFacts({ ...a, reviewerEmails: a.reviews.map((r) => r.reviewerEmail) }, view);
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
    redactedArgs: view,
    /** When retention took its arguments (RETENTION_DAYS, lib/retention); null: it has them. */
    argsPurgedAt: a.argsPurgedAt,
    policy: { name: a.policyName, roles, quorum, ttlSeconds: a.ttlSeconds },
    /** Votes need the reviewer's passkey (docs/passkeys.md). */
    requirePasskey: rules.requirePasskey,
    /** Anti-rubber-stamp rules (docs/insights.md). */
    minReviewSeconds: rules.minReviewSeconds,
    requireFullView: rules.requireFullView,
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
    outcome: describeOutcome({
      status,
      approvals: a.approveCount,
      quorum,
      roles,
      decidedBy,
      reviews,
      proposal: revision.proposal ? { mine: a.proposedById === viewerId, reason: revision.proposal.reason } : null,
    }),
    canReview: verdict.ok,
    whyNot: verdict.ok ? null : verdict.message,
    /** The viewer may propose changes instead of voting, on these paths (docs/revisions.md). */
    editablePaths: verdict.ok && revision.hidden ? editablePaths(view, revision.hidden) : null,
    /** Proposing a standing approval from this request: the policy's longest expiry and the values a pin can name, or null. */
    standing: await standingOffer(viewer, a),
    /** The standing approval that decided it as it arrived. */
    standingApprovalId: a.standingApprovalId,
    proposal: revision.proposal,
    revisedAs: revision.revisedAs,
    revises: revision.revises,
    /** The executor's report of the run, or that none has arrived after an approved consume (null: nothing to say). */
    execution: executionView(a),
    /** Who may still decide it, per role, with their names (this viewer may see the request); empty once decided. */
    waitingOn: status === "pending" ? await waitingOn(a, now) : [],
  };
}

type RevisionRow = {
  id: string;
  serviceId: string;
  status: string;
  patch: string | null;
  patchReason: string | null;
  decidedBy: string;
  decidedAt: Date | null;
  redactedDigests: string | null;
  revisesId: string | null;
  revisionMatch: boolean | null;
  revisionDiffers: string | null;
  reviewerEmails: string[];
};

/** Where a request came from and went to by revision, and the changes on each side. */
async function revisionFacts(a: RevisionRow, view: unknown) {
  const hidden = parseHidden(a.redactedDigests);
  const proposal =
    a.status === "revised" && a.patch
      ? {
          by: parseDecidedBy(a.decidedBy)[0] ?? "",
          reason: a.patchReason ?? "",
          at: a.decidedAt,
          changes: describePatch(view, JSON.parse(a.patch) as JsonPatch),
        }
      : null;
  const revisedAs = proposal ? await db().approval.findUnique({ where: { revisesId: a.id }, select: { id: true, status: true } }) : null;
  let revises = null;
  if (a.revisesId) {
    const original = await db().approval.findFirst({
      where: { id: a.revisesId, serviceId: a.serviceId },
      select: { id: true, redactedArgs: true, patch: true, decidedBy: true, patchReason: true },
    });
    if (original?.patch) {
      const differs = a.revisionDiffers ? (JSON.parse(a.revisionDiffers) as RevisionDifferences) : null;
      revises = {
        id: original.id,
        by: parseDecidedBy(original.decidedBy)[0] ?? "",
        reason: original.patchReason ?? "",
        match: a.revisionMatch === true,
        // Whether the proposer's approval was carried over (a vote of theirs on this revision).
        carried: a.reviewerEmails.includes(parseDecidedBy(original.decidedBy)[0] ?? ""),
        differs: differs ? { tool: differs.tool === true, call: differs.call ?? [], paths: differs.paths.map((p) => textView(p)) } : null,
        changes: describePatch(JSON.parse(original.redactedArgs), JSON.parse(original.patch) as JsonPatch),
      };
    }
  }
  return { hidden, proposal, revisedAs, revises };
}

export type ReviewView = NonNullable<Awaited<ReturnType<typeof getReviewView>>>;
