/** Minimal runtime checks of contract bodies (the client depends on no schema library). */
import type {
  ApprovalCreated,
  ApprovalDecidedEvent,
  ApprovalState,
  ApprovalStatus,
  CancelResult,
  ConsumeResult,
  ConsumedDecision,
  FinalDecision,
  ReceiptAssertion,
  ReceiptPayload,
  RequestIssue,
  Review,
  ReviewNoticeEvent,
} from "./types.js";

type Json = Record<string, unknown>;

const STATUSES: readonly ApprovalStatus[] = ["pending", "approved", "denied", "expired", "cancelled", "revised"];
const FINAL: readonly FinalDecision[] = ["approved", "denied", "expired", "cancelled", "revised"];
const CONSUMED: readonly ConsumedDecision[] = ["approved", "denied", "expired", "revised"];

export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

const isString = (value: unknown): value is string => typeof value === "string";
const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString);
const isReview = (value: unknown): value is Review =>
  isObject(value) &&
  isString(value.by) &&
  (value.vote === "approve" || value.vote === "deny") &&
  (value.reason === null || isString(value.reason)) &&
  isString(value.at);
const isPatchOperation = (value: unknown) =>
  isObject(value) && isString(value.path) && (value.op === "remove" || ((value.op === "add" || value.op === "replace") && "value" in value));
const isReviewList = (value: unknown): value is Review[] => Array.isArray(value) && value.every(isReview);
const oneOf =
  <T extends string>(values: readonly T[]) =>
  (value: unknown): value is T =>
    typeof value === "string" && (values as readonly string[]).includes(value);

/** Returns the name of the first field failing its check, or null when all pass. */
function firstBad(body: Json, checks: Record<string, (value: unknown) => boolean>): string | null {
  for (const [field, check] of Object.entries(checks)) {
    if (!check(body[field])) return field;
  }
  return null;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; field: string };

function check<T>(body: unknown, checks: Record<string, (value: unknown) => boolean>): Checked<T> {
  if (!isObject(body)) return { ok: false, field: "(body)" };
  const field = firstBad(body, checks);
  return field === null ? { ok: true, value: body as T } : { ok: false, field };
}

export const checkApprovalCreated = (body: unknown) =>
  check<ApprovalCreated>(body, {
    approval_id: isString,
    status: isString,
    args_digest: isString,
    expires_at: isString,
    review_url: isString,
    // Unknown warnings are kept: a newer server may add some.
    warnings: (v) => v === undefined || isStringArray(v),
  });

export const checkApprovalState = (body: unknown) =>
  check<ApprovalState>(body, {
    approval_id: isString,
    status: oneOf(STATUSES),
    run_id: isString,
    call_id: isString,
    tool: isString,
    args_digest: isString,
    expires_at: isString,
    decided_at: (value) => value === null || isString(value),
    decided_by: isStringArray,
    reviews: isReviewList,
    consumed: (value) => typeof value === "boolean",
  });

export const checkConsumeResult = (body: unknown) =>
  check<ConsumeResult>(body, {
    approval_id: isString,
    decision: oneOf(CONSUMED),
    decided_by: isStringArray,
    decided_at: isString,
    consumed_at: isString,
    reviews: isReviewList,
    receipt: isString,
    patch: (value) => value === undefined || (Array.isArray(value) && value.every(isPatchOperation)),
    proposal: (value) => value === undefined || (isObject(value) && isString(value.by) && isString(value.reason) && isString(value.at)),
  });

export const checkCancelResult = (body: unknown) => check<CancelResult>(body, { status: (value) => value === "cancelled" });

export const checkReceiptPayload = (body: unknown) =>
  check<ReceiptPayload>(body, {
    approval_id: isString,
    service: isString,
    run_id: isString,
    call_id: isString,
    tool: isString,
    args_digest: isString,
    decision: oneOf(CONSUMED),
    decided_by: isStringArray,
    decided_at: isString,
    consumed_at: isString,
    iat: isNumericDate,
    exp: (value) => isNumericDate(value) && value > ((body as Json).iat as number),
    policy: (value) => isObject(value) && isString(value.name) && Number.isSafeInteger(value.version) && (value.version as number) >= 0,
    audit_seq: (value) => Number.isSafeInteger(value) && (value as number) >= 1,
    audit_head: (value) => isString(value) && /^[0-9a-f]{64}$/.test(value),
    standing_approval: (value) => value === undefined || isString(value),
    assertions: (value) => value === undefined || (Array.isArray(value) && value.every(isReceiptAssertion)),
  });

const isNumericDate = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0;
const isBase64url = (value: unknown): value is string => isString(value) && /^[A-Za-z0-9_-]+$/.test(value);
const isReceiptAssertion = (value: unknown): value is ReceiptAssertion =>
  isObject(value) &&
  isString(value.reviewer) &&
  isString(value.nonce) &&
  isString(value.reason) &&
  isBase64url(value.credential_id) &&
  isBase64url(value.authenticator_data) &&
  isBase64url(value.client_data_json) &&
  isBase64url(value.signature);

export function checkApprovalDecidedEvent(body: unknown): Checked<ApprovalDecidedEvent> {
  const outer = check<ApprovalDecidedEvent>(body, {
    type: (value) => value === "approval.decided",
    timestamp: isString,
    data: isObject,
  });
  if (!outer.ok) return outer;
  const inner = check<ApprovalDecidedEvent["data"]>(outer.value.data, {
    approval_id: isString,
    run_id: isString,
    call_id: isString,
    tool: isString,
    args_digest: isString,
    decision: oneOf(FINAL),
    decided_by: isStringArray,
    decided_at: isString,
    reviews: isReviewList,
  });
  return inner.ok ? outer : { ok: false, field: `data.${inner.field}` };
}

const NOTICES: readonly ReviewNoticeEvent["type"][] = ["approval.needs_review", "approval.reminder", "approval.escalated"];

export function checkReviewNoticeEvent(body: unknown): Checked<ReviewNoticeEvent> {
  const outer = check<ReviewNoticeEvent>(body, { type: oneOf(NOTICES), timestamp: isString, data: isObject });
  if (!outer.ok) return outer;
  const inner = check<ReviewNoticeEvent["data"]>(outer.value.data, {
    approval_id: isString,
    service: isString,
    tool: isString,
    effects: oneOf(["read", "write", "destructive"]),
    environment: (value) => value === null || isString(value),
    expires_at: isString,
    review_url: isString,
    agent_summary: (value) => value === null || isString(value),
    required_roles: isStringArray,
    quorum: (value) => Number.isInteger(value),
    warnings: isStringArray,
    display_warning: (value) =>
      value === undefined ||
      (isObject(value) &&
        isString(value.title) &&
        Number.isInteger(value.total) &&
        Array.isArray(value.items) &&
        value.items.every((i) => isObject(i) && isString(i.where) && isString(i.what))),
    reminder: (value) => value === undefined || Number.isInteger(value),
    escalated_to_roles: (value) => value === undefined || isStringArray(value),
  });
  return inner.ok ? outer : { ok: false, field: `data.${inner.field}` };
}

export function issuesOf(body: unknown): RequestIssue[] | undefined {
  if (!isObject(body) || !Array.isArray(body.issues)) return undefined;
  return body.issues.filter((issue): issue is RequestIssue => isObject(issue) && isString(issue.path) && isString(issue.message));
}

// The execution report (docs/executions.md): its answer, its callback, and the state's `execution`.
type ExecutionRecordedBody = import("./types.js").ExecutionRecorded;
type ApprovalExecutedBody = import("./types.js").ApprovalExecutedEvent;

const isExecutionStatus = oneOf(["succeeded", "failed"]);
const isExecutionRecord = (value: unknown) =>
  isObject(value) && isExecutionStatus(value.status) && isString(value.result_digest) && isString(value.finished_at) && isString(value.reported_at);

export const checkExecutionRecorded = (body: unknown) =>
  check<ExecutionRecordedBody>(body, {
    approval_id: isString,
    status: isExecutionStatus,
    result_digest: isString,
    finished_at: isString,
    reported_at: isString,
  });

const isCount = (value: unknown) => typeof value === "number" && Number.isInteger(value) && value >= 0;
const isWaitingOn = (value: unknown) =>
  Array.isArray(value) && value.every((w) => isObject(w) && isString(w.role) && isCount(w.needed) && isCount(w.eligible));

/** The state answer, with its `execution` (null until reported) and `waiting_on` checked too (both absent from older servers). */
export function checkApprovalStateWithExecution(body: unknown): Checked<ApprovalState> {
  const state = checkApprovalState(body);
  if (!state.ok) return state;
  const { execution, waiting_on } = state.value;
  if (!(execution === undefined || execution === null || isExecutionRecord(execution))) return { ok: false, field: "execution" };
  return waiting_on === undefined || isWaitingOn(waiting_on) ? state : { ok: false, field: "waiting_on" };
}

export function checkApprovalExecutedEvent(body: unknown): Checked<ApprovalExecutedBody> {
  const outer = check<ApprovalExecutedBody>(body, {
    type: (value) => value === "approval.executed",
    timestamp: isString,
    data: isObject,
  });
  if (!outer.ok) return outer;
  const inner = check<ApprovalExecutedBody["data"]>(outer.value.data, {
    approval_id: isString,
    run_id: isString,
    call_id: isString,
    tool: isString,
    args_digest: isString,
    status: isExecutionStatus,
    result_digest: isString,
    finished_at: isString,
    // Not sent by the server so far; checked when a newer one sends it.
    reported_at: (value) => value === undefined || isString(value),
  });
  return inner.ok ? outer : { ok: false, field: `data.${inner.field}` };
}

/** Either callback the service's callback URL receives, told apart by `type` (an unknown type fails on "type"). */
export function checkCallbackEvent(body: unknown): Checked<ApprovalDecidedEvent | ApprovalExecutedBody> {
  return isObject(body) && body.type === "approval.executed" ? checkApprovalExecutedEvent(body) : checkApprovalDecidedEvent(body);
}
