// The outbox half of docs/api.md: a decided request whose service has a
// callback URL gets a delivery row in the same transaction as the decision,
// so a crash right after the decision still delivers. The payload carries the
// votes and reasons as they stand at the decision (the same list consume
// answers with); the vote that decided is already written in this transaction.
// The executor's report of the run (docs/executions.md) gets a delivery of its
// own, in the report's transaction: one delivery per request and event type.
import "server-only";
import { type Sql } from "../db/sql";
import { newId } from "../ids";
import { currentTraceparent } from "../tracing/tracing";
import { reviewTrail } from "../approvals/review-trail";
import type { Decision } from "../approvals/finalize";
import type { ApprovalExecutedEvent, ExecutionStatus } from "@countersign/client";

/** The call a callback is about: every callback's data names it. */
type CallNotice = {
  approvalId: string;
  serviceId: string;
  runId: string;
  callId: string;
  tool: string;
  argsDigest: string;
};

export type DecisionNotice = CallNotice & {
  decision: Decision;
  decidedBy: string[];
  decidedAt: Date;
};

/** The event types a delivery can carry; (approval_id, type) is unique. */
export type CallbackType = "approval.decided" | "approval.executed";

export async function enqueueCallback(sql: Sql, n: DecisionNotice): Promise<void> {
  if (!(await hasCallbackUrl(sql, n.serviceId))) return;
  const payload = {
    type: "approval.decided",
    timestamp: new Date().toISOString(),
    data: {
      approval_id: n.approvalId,
      run_id: n.runId,
      call_id: n.callId,
      tool: n.tool,
      args_digest: n.argsDigest,
      decision: n.decision,
      decided_by: n.decidedBy,
      decided_at: n.decidedAt.toISOString(),
      reviews: await reviewTrail(sql, n.approvalId),
    },
  };
  await insertDelivery(sql, n.approvalId, n.serviceId, "approval.decided", payload);
}

export type ExecutionNotice = CallNotice & {
  status: ExecutionStatus;
  resultDigest: string;
  finishedAt: Date;
};

/** The `approval.executed` callback: the report and the call it is about, digests only. */
export async function enqueueExecutedCallback(sql: Sql, n: ExecutionNotice): Promise<void> {
  if (!(await hasCallbackUrl(sql, n.serviceId))) return;
  const payload: ApprovalExecutedEvent = {
    type: "approval.executed",
    timestamp: new Date().toISOString(),
    data: {
      approval_id: n.approvalId,
      run_id: n.runId,
      call_id: n.callId,
      tool: n.tool,
      args_digest: n.argsDigest,
      status: n.status,
      result_digest: n.resultDigest,
      finished_at: n.finishedAt.toISOString(),
    },
  };
  await insertDelivery(sql, n.approvalId, n.serviceId, "approval.executed", payload);
}

async function hasCallbackUrl(sql: Sql, serviceId: string): Promise<boolean> {
  const [service] = await sql.all<{ callback_url: string | null }>("SELECT callback_url FROM services WHERE id = ?", [serviceId]);
  if (!service) throw new Error("the request's service is missing");
  return Boolean(service.callback_url);
}

async function insertDelivery(sql: Sql, approvalId: string, serviceId: string, type: CallbackType, payload: unknown): Promise<void> {
  const now = new Date();
  await sql.run(
    `INSERT INTO callback_deliveries (id, approval_id, type, service_id, message_id, payload, status, attempts, next_attempt_at, created_at, traceparent)
     VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
    // The decision's trace (traces on): the executor's callback continues it.
    [newId("dlv"), approvalId, type, serviceId, newId("msg"), JSON.stringify(payload), now, now, currentTraceparent()],
  );
}
