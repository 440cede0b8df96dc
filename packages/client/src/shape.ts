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
  });

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
    reminder: (value) => value === undefined || Number.isInteger(value),
    escalated_to_roles: (value) => value === undefined || isStringArray(value),
  });
  return inner.ok ? outer : { ok: false, field: `data.${inner.field}` };
}

export function issuesOf(body: unknown): RequestIssue[] | undefined {
  if (!isObject(body) || !Array.isArray(body.issues)) return undefined;
  return body.issues.filter((issue): issue is RequestIssue => isObject(issue) && isString(issue.path) && isString(issue.message));
}
