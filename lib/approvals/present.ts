// How an approval looks on the wire (docs/api.md). One place, so the
// first answer and every idempotent repeat are byte-for-byte the same.
import { env } from "../env";
import { APPROVAL_STATUSES, EXECUTION_STATUSES, type ApprovalCreated, type ApprovalStatus, type ReviewEntry } from "./schemas";
import type { ApprovalWarning, ExecutionRecord } from "@countersign/client";
import { parseStringList } from "../string-list";

type Row = {
  id: string;
  argsDigest: string;
  expiresAt: Date;
  quorumUnreachable: boolean;
  status: string;
  createdAt: Date;
  decidedAt: Date | null;
  revisionMatch: boolean | null;
};

export function reviewUrl(id: string): string {
  return `${env().appUrl}/approvals/${id}`;
}

/**
 * The webhook's answer. `approved` only for a request decided as it arrived
 * (decided at its creation instant, in the ingest transaction), so that a
 * repeat delivery gets the first answer however the request went on.
 */
export function approvalCreatedBody(a: Row): ApprovalCreated {
  const warnings: ApprovalWarning[] = [];
  if (a.quorumUnreachable) warnings.push("quorum-unreachable");
  if (a.revisionMatch === false) warnings.push("revision-differs");
  const approvedOnArrival = a.status === "approved" && a.decidedAt?.getTime() === a.createdAt.getTime();
  return {
    approval_id: a.id,
    status: approvedOnArrival ? "approved" : "pending",
    args_digest: a.argsDigest,
    expires_at: a.expiresAt.toISOString(),
    review_url: reviewUrl(a.id),
    ...(warnings.length ? { warnings } : {}),
  };
}

export const parseDecidedBy = parseStringList;

type ReviewRow = { reviewerEmail: string; decision: string; reason: string | null; createdAt: Date };

/**
 * Votes (rows already in vote order) as the owning service sees them. Only
 * what reviewers wrote and when: nothing from the request's arguments.
 */
export function presentReviews(rows: readonly ReviewRow[]): ReviewEntry[] {
  return rows.map((r) => ({
    by: r.reviewerEmail,
    vote: r.decision === "approve" ? "approve" : "deny",
    reason: r.reason,
    at: r.createdAt.toISOString(),
  }));
}

type StateRow = Row & {
  status: string;
  runId: string;
  callId: string;
  tool: string;
  decidedAt: Date | null;
  decidedBy: string;
  consumedAt: Date | null;
  /** In vote order (`REVIEW_TRAIL_QUERY` in review-trail.ts). */
  reviews: readonly ReviewRow[];
} & ExecutionRow;

/** The execution report's columns (docs/executions.md): all null until the executor reported. */
export type ExecutionRow = {
  executionStatus: string | null;
  resultDigest: string | null;
  finishedAt: Date | null;
  reportedAt: Date | null;
};

/** The recorded report as the owning service sees it, or null until it arrived. */
export function executionRecord(a: ExecutionRow): ExecutionRecord | null {
  const status = EXECUTION_STATUSES.find((s) => s === a.executionStatus);
  if (!status || a.resultDigest === null || a.finishedAt === null || a.reportedAt === null) return null;
  return {
    status,
    result_digest: a.resultDigest,
    finished_at: a.finishedAt.toISOString(),
    reported_at: a.reportedAt.toISOString(),
  };
}

/** The status as of `now`: a pending request past its expiry reads as expired everywhere. */
export function effectiveStatus(a: { status: string; expiresAt: Date }, now = new Date()): ApprovalStatus {
  if (a.status === "pending" && a.expiresAt.getTime() <= now.getTime()) return "expired";
  return APPROVAL_STATUSES.find((s) => s === a.status) ?? "pending";
}

export function approvalStateBody(a: StateRow, now = new Date()) {
  const status = effectiveStatus(a, now);
  const decidedAt = a.decidedAt ?? (status === "expired" ? a.expiresAt : null);
  return {
    approval_id: a.id,
    status,
    run_id: a.runId,
    call_id: a.callId,
    tool: a.tool,
    args_digest: a.argsDigest,
    expires_at: a.expiresAt.toISOString(),
    decided_at: decidedAt ? decidedAt.toISOString() : null,
    decided_by: parseDecidedBy(a.decidedBy),
    reviews: presentReviews(a.reviews),
    consumed: a.consumedAt !== null,
    execution: executionRecord(a),
  };
}
