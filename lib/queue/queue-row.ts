// A queue row as the page shows it, from the columns a section read.
import type { ApprovalStatus } from "../approvals/schemas";
import { effectiveStatus, parseDecidedBy } from "../approvals/present";
import { eligibility, requiredRolesOf } from "../reviews/eligibility";
import type { Viewer, VisibilityFacts } from "../reviews/visibility";
import type { KeyArg } from "./key-args";
import { toDate, type RawRow } from "./section-sql";

export type QueueRow = {
  id: string;
  tool: string;
  service: string;
  runId: string;
  effects: string;
  environment: string | null;
  requestedBy: string | null;
  summary: string | null;
  /** One or two values from the redacted arguments (key-args.ts). */
  keyArgs: KeyArg[];
  /** As of the query: a pending request past its expiry reads "expired". */
  status: ApprovalStatus;
  requiredRoles: string[];
  quorum: number;
  approvals: number;
  createdAt: Date;
  expiresAt: Date;
  decidedAt: Date | null;
  decidedBy: string[];
  /** The viewer's own vote on it, if any. */
  myDecision: "approve" | "deny" | null;
  /** Why the viewer cannot decide it (pending rows only), from eligibility(). */
  whyNot: string | null;
  /** Fewer people could approve it at ingest than its quorum needs. */
  quorumUnreachable: boolean;
  /** When its policy escalated it to more roles, if it did. */
  escalatedAt: Date | null;
};

/** What visibleTo() and eligibility() read of a row. */
export const rowFacts = (r: RawRow): VisibilityFacts => ({
  requestedBy: r.requested_by,
  requesterKey: r.requester_key,
  requiredRoles: r.required_roles,
});

export function toQueueRow(
  r: RawRow,
  service: string,
  viewer: Viewer,
  vote: { reviewerId: string; decision: string } | undefined,
  now: Date,
  keyArgs: KeyArg[] = [],
): QueueRow {
  const createdAt = toDate(r.created_at);
  const expiresAt = toDate(r.expires_at);
  const status = effectiveStatus({ status: r.status, expiresAt }, now);
  let whyNot: string | null = null;
  if (status === "pending") {
    const verdict = eligibility({ status: r.status, expiresAt, ...rowFacts(r) }, viewer, vote ? [vote] : [], now);
    whyNot = verdict.ok ? null : verdict.message;
  }
  return {
    id: r.id,
    tool: r.tool,
    service,
    runId: r.run_id,
    effects: r.effects,
    environment: r.environment,
    requestedBy: r.requested_by,
    summary: r.summary,
    keyArgs,
    status,
    requiredRoles: requiredRolesOf(r.required_roles),
    quorum: Number(r.quorum),
    approvals: Number(r.approve_count),
    createdAt,
    expiresAt,
    decidedAt: r.decided_at === null ? (status === "expired" ? expiresAt : null) : toDate(r.decided_at),
    decidedBy: parseDecidedBy(r.decided_by),
    myDecision: vote?.decision === "approve" || vote?.decision === "deny" ? vote.decision : null,
    whyNot,
    quorumUnreachable: Number(r.quorum_unreachable) === 1,
    escalatedAt: r.escalated_at === null ? null : toDate(r.escalated_at),
  };
}
