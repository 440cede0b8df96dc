/**
 * Wire types of the Countersign external contract (docs/api.md).
 * Field names are the contract's, snake_case included.
 */
import type { JsonPatch } from "./json-patch.js";

/** `effects` of a tool call (docs/api.md). */
export type Effects = "read" | "write" | "destructive";

/** A request's state (docs/api.md). */
export type ApprovalStatus = "pending" | "approved" | "denied" | "expired" | "cancelled" | "revised";

/** A final state (docs/api.md "decision"), as a callback may report it (docs/api.md). */
export type FinalDecision = Exclude<ApprovalStatus, "pending">;

/**
 * The decisions a consume can return and a receipt can carry (docs/api.md).
 * `revised`: a reviewer proposed changes instead (docs/revisions.md); the call
 * never runs as it was, and the consume answer carries the `patch`.
 */
export type ConsumedDecision = "approved" | "denied" | "expired" | "revised";

/** `data` of an `approval.requested` webhook (docs/api.md). */
export interface ApprovalRequestData {
  run_id: string;
  call_id: string;
  tool: string;
  arguments: Record<string, unknown>;
  args_digest?: string;
  /** 16–64 random bytes as unpadded base64url; salts args_digest (docs/security.md). */
  args_salt?: string;
  requested_by?: string;
  effects?: Effects;
  summary?: string;
  environment?: string;
  expires_in?: number;
  /** The id of a `revised` request whose proposed changes these arguments carry (docs/revisions.md). */
  revises?: string;
}

/** Body of `POST /api/v1/webhooks/{service_slug}` (docs/api.md). */
export interface ApprovalRequestedEvent {
  type: "approval.requested";
  /** ISO 8601. */
  timestamp: string;
  data: ApprovalRequestData;
}

/** 201 (new) or 200 (replayed) answer to the inbound webhook (docs/api.md). */
export interface ApprovalCreated {
  approval_id: string;
  /** `approved` when the request was decided as it arrived (a revision whose proposer's approval met the quorum). */
  status: "pending" | "approved";
  args_digest: string;
  expires_at: string;
  review_url: string;
  /** Present when something is wrong with the request as filed (docs/api.md). */
  warnings?: ApprovalWarning[];
}

/** The warnings a webhook answer can carry (docs/api.md). */
export const APPROVAL_WARNINGS = ["quorum-unreachable", "revision-differs"] as const;
/**
 * `quorum-unreachable`: fewer people could approve it than its quorum needs; it can only be denied or expire.
 * `revision-differs`: a revision whose arguments are not the original's with the proposed patch applied; nothing was carried over.
 */
export type ApprovalWarning = (typeof APPROVAL_WARNINGS)[number];

/** How a reviewer voted. */
export type ReviewVote = "approve" | "deny";

/**
 * One reviewer's vote, as the consume answer, the state answer and the
 * callback carry them (docs/api.md), in the order cast: the reviewer's email, the
 * vote, the reason they wrote (null when they gave none) and when (ISO 8601).
 */
export interface Review {
  by: string;
  vote: ReviewVote;
  reason: string | null;
  at: string;
}

/** `GET /api/v1/approvals/{approval_id}` (docs/api.md). */
export interface ApprovalState {
  approval_id: string;
  status: ApprovalStatus;
  run_id: string;
  call_id: string;
  tool: string;
  args_digest: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string[];
  /** Every vote so far, in order (also while pending). */
  reviews: Review[];
  consumed: boolean;
  /** The executor's report of the run, once it arrived; null (or absent, from older servers) until then. */
  execution?: ExecutionRecord | null;
  /** Who may still decide it, per role (empty once decided; absent from older servers): whom to ask. */
  waiting_on?: WaitingOn[];
}

/** One role that decides a pending request: approvals it still needs, and how many people could give one now. */
export interface WaitingOn {
  role: string;
  needed: number;
  eligible: number;
}

/** How an approved call ran, as its executor reports it (docs/api.md). */
export type ExecutionStatus = "succeeded" | "failed";

/** Body of `POST /api/v1/approvals/{approval_id}/result`: sent once, after a consume that returned `approved` (docs/api.md). */
export interface ExecutionReport {
  status: ExecutionStatus;
  /** `sha256:` and 64 lower-case hex digits: a digest of the result, never the result itself. */
  result_digest: string;
  /** When the call finished, ISO 8601 with a time-zone offset. */
  finished_at: string;
}

/** A report as Countersign recorded it: `finished_at` in UTC, and when the report arrived. */
export interface ExecutionRecord extends ExecutionReport {
  reported_at: string;
}

/** 200 answer to `POST /api/v1/approvals/{approval_id}/result` (docs/api.md). */
export interface ExecutionRecorded extends ExecutionRecord {
  approval_id: string;
}

/** Body of `POST /api/v1/approvals/{approval_id}/consume` (docs/api.md). */
export interface ConsumeBinding {
  run_id: string;
  call_id: string;
  tool: string;
  args_digest: string;
}

/** 200 answer to a first consume (docs/api.md). `receipt` is a compact JWS (EdDSA). */
export interface ConsumeResult {
  approval_id: string;
  decision: ConsumedDecision;
  decided_by: string[];
  decided_at: string;
  consumed_at: string;
  /** Every vote, in order: on a denial, the deny vote's `reason` says why (`denialReason`). */
  reviews: Review[];
  receipt: string;
  /** `revised` only: the changes to apply to the arguments before asking again with `revises` (RFC 6902). */
  patch?: JsonPatch;
  /** `revised` only: who proposed the changes, why and when. */
  proposal?: Proposal;
}

/** A reviewer's proposal of changes (docs/revisions.md). */
export interface Proposal {
  by: string;
  reason: string;
  at: string;
}

/**
 * 200 answer to `POST /api/v1/approvals/{approval_id}/cancel` (docs/api.md). The contract
 * fixes only `status: "cancelled"`; the request's other fields may accompany it.
 */
export interface CancelResult extends Partial<Omit<ApprovalState, "approval_id" | "status">> {
  approval_id: string;
  status: "cancelled";
}

/** Payload of a consume receipt (docs/api.md). */
export interface ReceiptPayload {
  approval_id: string;
  service: string;
  run_id: string;
  call_id: string;
  tool: string;
  args_digest: string;
  decision: ConsumedDecision;
  decided_by: string[];
  decided_at: string;
  consumed_at: string;
  /** Issued at and expires at, in seconds since the epoch: executors run nothing on an expired receipt. */
  iat: number;
  exp: number;
  /** The policy that governed the request, as it was when the request arrived. */
  policy: ReceiptPolicy;
  /** The consume's audit event: its sequence number and hash (the chain's head right after it). */
  audit_seq: number;
  audit_head: string;
  /** The standing approval that decided the request as it arrived, if one did (docs/standing-approvals.md). */
  standing_approval?: string;
  /**
   * Present only when the request's policy required passkeys (docs/passkeys.md):
   * each approving vote's WebAuthn assertion, in the order of `decided_by`.
   */
  assertions?: ReceiptAssertion[];
}

/** A policy named by a receipt: its name and version (the audit sequence number of its last change). */
export interface ReceiptPolicy {
  name: string;
  version: number;
}

/** One approving vote's WebAuthn assertion in a receipt (docs/passkeys.md); binary fields are unpadded base64url. */
export interface ReceiptAssertion {
  reviewer: string;
  credential_id: string;
  nonce: string;
  authenticator_data: string;
  client_data_json: string;
  signature: string;
  /** The vote's reason ("" when none): part of the signed challenge, so it travels with the assertion. */
  reason: string;
}

/** `data` of an `approval.decided` callback (docs/api.md). */
export interface ApprovalDecidedData {
  approval_id: string;
  run_id: string;
  call_id: string;
  tool: string;
  args_digest: string;
  decision: FinalDecision;
  decided_by: string[];
  decided_at: string;
  /** Every vote, in order (docs/api.md). */
  reviews: Review[];
}

/** Body of the outbound callback (docs/api.md). */
export interface ApprovalDecidedEvent {
  type: "approval.decided";
  timestamp: string;
  data: ApprovalDecidedData;
}

/** `data` of an `approval.executed` callback (docs/api.md): the executor's report, with the call it was about. */
export interface ApprovalExecutedData {
  approval_id: string;
  run_id: string;
  call_id: string;
  tool: string;
  args_digest: string;
  status: ExecutionStatus;
  result_digest: string;
  finished_at: string;
}

/** Body of the callback sent once the executor reported the run (docs/api.md). */
export interface ApprovalExecutedEvent {
  type: "approval.executed";
  timestamp: string;
  data: ApprovalExecutedData;
}

/** One entry of an `invalid-request` answer's `issues` (docs/api.md). */
export interface RequestIssue {
  path: string;
  message: string;
}

/** Error bodies (docs/api.md): `{"error": code, ...}`. */
export interface ErrorBody {
  error: string;
  issues?: RequestIssue[];
}

/** Event types of the notification webhook (docs/notifications.md). */
export type ReviewNoticeType = "approval.needs_review" | "approval.reminder" | "approval.escalated";

/**
 * The notification webhook's body: a request waits for review. It names the
 * call and links to it; it never holds argument values.
 */
export interface ReviewNoticeEvent {
  type: ReviewNoticeType;
  timestamp: string;
  data: ReviewNoticeData;
}

export interface ReviewNoticeData {
  approval_id: string;
  service: string;
  tool: string;
  effects: Effects;
  environment: string | null;
  expires_at: string;
  review_url: string;
  /** Written by the agent, not checked by anyone; stored redacted. */
  agent_summary: string | null;
  required_roles: string[];
  quorum: number;
  /**
   * "quorum-unreachable" when fewer people than the quorum could approve;
   * "display-warning" when the request holds hidden, direction-changing or
   * look-alike characters (then `display_warning` says where).
   */
  warnings: string[];
  /**
   * With "display-warning": the request page's warning. `service`, `tool`,
   * `environment` and `agent_summary` show hidden characters as visible
   * escapes (`⟨U+202E⟩`) and look-alike letters between ⟨ and ⟩, as the page
   * does; `items` lists the first findings (a location in the arguments is
   * named only as "the arguments"), `total` counts them all.
   */
  display_warning?: { title: string; items: Array<{ where: string; what: string }>; total: number };
  /** approval.reminder: the reminder's number (1, 2, …). */
  reminder?: number;
  /** approval.escalated: the roles the escalation added. */
  escalated_to_roles?: string[];
}

/** What the service's callback URL receives (docs/api.md), as `verifyCallback` returns it: tell the two apart by `type`. */
export type CallbackEvent = ApprovalDecidedEvent | ApprovalExecutedEvent;
