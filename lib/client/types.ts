/**
 * Wire types of the Countersign external contract (CONTRACT §3–§5).
 * Field names are the contract's, snake_case included.
 */

/** `effects` of a tool call (§3). */
export type Effects = "read" | "write" | "destructive";

/** A request's state (§4). */
export type ApprovalStatus = "pending" | "approved" | "denied" | "expired" | "cancelled";

/** A final state (§1 "decision"), as a callback may report it (§5). */
export type FinalDecision = Exclude<ApprovalStatus, "pending">;

/** The decisions a consume can return and a receipt can carry (§4). */
export type ConsumedDecision = "approved" | "denied" | "expired";

/** `data` of an `approval.requested` webhook (§3). */
export interface ApprovalRequestData {
  run_id: string;
  call_id: string;
  tool: string;
  arguments: Record<string, unknown>;
  args_digest?: string;
  /** 16–64 random bytes as unpadded base64url; salts args_digest (§19). */
  args_salt?: string;
  requested_by?: string;
  effects?: Effects;
  summary?: string;
  environment?: string;
  expires_in?: number;
}

/** Body of `POST /api/v1/webhooks/{service_slug}` (§3). */
export interface ApprovalRequestedEvent {
  type: "approval.requested";
  /** ISO 8601. */
  timestamp: string;
  data: ApprovalRequestData;
}

/** 201 (new) or 200 (replayed) answer to the inbound webhook (§3). */
export interface ApprovalCreated {
  approval_id: string;
  status: "pending";
  args_digest: string;
  expires_at: string;
  review_url: string;
}

/** `GET /api/v1/approvals/{approval_id}` (§4). */
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
  consumed: boolean;
}

/** Body of `POST /api/v1/approvals/{approval_id}/consume` (§4). */
export interface ConsumeBinding {
  run_id: string;
  call_id: string;
  tool: string;
  args_digest: string;
}

/** 200 answer to a first consume (§4). `receipt` is a compact JWS (EdDSA). */
export interface ConsumeResult {
  approval_id: string;
  decision: ConsumedDecision;
  decided_by: string[];
  decided_at: string;
  consumed_at: string;
  receipt: string;
}

/**
 * 200 answer to `POST /api/v1/approvals/{approval_id}/cancel` (§4). The contract
 * fixes only `status: "cancelled"`; the request's other fields may accompany it.
 */
export interface CancelResult extends Partial<Omit<ApprovalState, "approval_id" | "status">> {
  approval_id: string;
  status: "cancelled";
}

/** Payload of a consume receipt (§4). */
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
}

/** `data` of an `approval.decided` callback (§5). */
export interface ApprovalDecidedData {
  approval_id: string;
  run_id: string;
  call_id: string;
  tool: string;
  args_digest: string;
  decision: FinalDecision;
  decided_by: string[];
  decided_at: string;
}

/** Body of the outbound callback (§5). */
export interface ApprovalDecidedEvent {
  type: "approval.decided";
  timestamp: string;
  data: ApprovalDecidedData;
}

/** One entry of an `invalid-request` answer's `issues` (§3). */
export interface RequestIssue {
  path: string;
  message: string;
}

/** Error bodies of §3–§4: `{"error": code, ...}`. */
export interface ErrorBody {
  error: string;
  issues?: RequestIssue[];
}
