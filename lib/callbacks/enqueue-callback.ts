// The outbox half of docs/api.md: a decided request whose service has a
// callback URL gets a delivery row in the same transaction as the decision,
// so a crash right after the decision still delivers. The payload carries the
// votes and reasons as they stand at the decision (the same list consume
// answers with); the vote that decided is already written in this transaction.
import "server-only";
import type { Tx } from "../db/client";
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

export async function enqueueCallback(tx: Tx, n: DecisionNotice): Promise<void> {
  const service = await tx.service.findUniqueOrThrow({ where: { id: n.serviceId }, select: { callbackUrl: true } });
  if (!service.callbackUrl) return;
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
      reviews: await reviewTrail(tx, n.approvalId),
    },
  };
  await tx.callbackDelivery.create({
    data: {
      id: newId("dlv"),
      approvalId: n.approvalId,
      serviceId: n.serviceId,
      messageId: newId("msg"),
      payload: JSON.stringify(payload),
      nextAttemptAt: new Date(),
    },
  });
}
