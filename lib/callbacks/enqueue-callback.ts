// The outbox half of docs/api.md: a decided request whose service has a
// callback URL gets a delivery row in the same transaction as the decision,
// so a crash right after the decision still delivers. The payload carries the
// votes and reasons as they stand at the decision (the same list consume
// answers with); the vote that decided is already written in this transaction.
import "server-only";
import type { Tx } from "../db/client";
import { sqlOf, type Sql } from "../db/sql";
import { newId } from "../ids";
import { reviewTrail } from "../approvals/review-trail";
import type { Decision } from "../approvals/finalize";

export type DecisionNotice = {
  approvalId: string;
  serviceId: string;
  runId: string;
  callId: string;
  tool: string;
  argsDigest: string;
  decision: Decision;
  decidedBy: string[];
  decidedAt: Date;
};

export async function enqueueCallback(tx: Tx | Sql, n: DecisionNotice): Promise<void> {
  const sql = sqlOf(tx);
  const [service] = await sql.all<{ callback_url: string | null }>("SELECT callback_url FROM services WHERE id = ?", [n.serviceId]);
  if (!service) throw new Error("the request's service is missing");
  if (!service.callback_url) return;
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
  const now = new Date();
  await sql.run(
    `INSERT INTO callback_deliveries (id, approval_id, service_id, message_id, payload, status, attempts, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
    [newId("dlv"), n.approvalId, n.serviceId, newId("msg"), JSON.stringify(payload), now, now],
  );
}
