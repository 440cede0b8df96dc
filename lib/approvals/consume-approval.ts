// The executor takes a decision, exactly once (docs/api.md). The binding
// (run, call, tool, digest) must equal the request's; the consume itself is
// one conditional update that only an unconsumed, decided row passes, so any
// number of concurrent consumes, on any number of instances, yield one success.
import "server-only";
import { z } from "zod";
import { inTransaction } from "../db/transaction";
import { appendAuditEvent } from "../audit/append-event";
import { AppError } from "../errors";
import { signReceipt } from "../receipts/sign-receipt";
import { currentSigningKey, type ActiveKey } from "../receipts/signing-keys";
import type { Tx } from "../db/client";
import type { AuthenticatedService } from "../services/authenticate-service";
import { emitLocalChange } from "./changes";
import { expireIfDue } from "./expire-approval";
import { parseDecidedBy } from "./present";
import { reviewTrail } from "./review-trail";
import type { consumeRequestSchema } from "./schemas";
import type { JsonPatch } from "@countersign/client";

type Binding = z.infer<typeof consumeRequestSchema>;
// "revised": the executor takes the proposed changes (docs/revisions.md); the call never runs as it was.
const CONSUMABLE = ["approved", "denied", "expired", "revised"] as const;

export async function consumeApproval(service: AuthenticatedService, approvalId: string, binding: Binding) {
  const signingKey = await currentSigningKey();
  const result = await inTransaction(async (tx) => {
    const now = new Date();
    // The usual case in one statement: a decided, unconsumed request of this
    // service whose binding matches is consumed by a conditional UPDATE …
    // RETURNING. Anything else (pending, expired but not yet marked,
    // mismatched, consumed, unknown) takes the checks below, which explain why.
    const [row] = await tx.approval.updateManyAndReturn({
      where: {
        id: approvalId,
        serviceId: service.id,
        consumedAt: null,
        status: { in: [...CONSUMABLE] },
        runId: binding.run_id,
        callId: binding.call_id,
        tool: binding.tool,
        argsDigest: binding.args_digest,
      },
      data: { consumedAt: now },
    });
    if (row) return { body: await consumed(tx, service, row, now, signingKey), expiredNow: false };

    const a = await tx.approval.findFirst({ where: { id: approvalId, serviceId: service.id } });
    if (!a) return { error: new AppError("not-found") };
    const expiredNow = await expireIfDue(tx, a, now);

    const mismatched = (["run_id", "call_id", "tool", "args_digest"] as const).filter(
      (k) => binding[k] !== { run_id: a.runId, call_id: a.callId, tool: a.tool, args_digest: a.argsDigest }[k],
    );
    if (mismatched.length) {
      // Refused, and recorded: the audit event commits, nothing is consumed.
      await appendAuditEvent(tx, {
        type: "consume.refused",
        actor: `service:${service.slug}`,
        approvalId,
        data: { reason: "binding-mismatch", fields: mismatched },
      });
      return { error: new AppError("binding-mismatch"), expiredNow };
    }

    const [taken] = await tx.approval.updateManyAndReturn({
      where: { id: approvalId, serviceId: service.id, consumedAt: null, status: { in: [...CONSUMABLE] } },
      data: { consumedAt: now },
    });
    if (!taken) {
      const current = await tx.approval.findUniqueOrThrow({ where: { id: approvalId }, select: { status: true, consumedAt: true } });
      const code = current.consumedAt ? "already-consumed" : "not-decided";
      return { error: new AppError(code), expiredNow };
    }
    return { body: await consumed(tx, service, taken, now, signingKey), expiredNow };
  });
  if (result.expiredNow) emitLocalChange(approvalId);
  if ("error" in result && result.error) throw result.error;
  return result.body!;
}

type ConsumedRow = {
  id: string;
  status: string;
  runId: string;
  callId: string;
  tool: string;
  argsDigest: string;
  decidedAt: Date | null;
  expiresAt: Date;
  decidedBy: string;
  patch: string | null;
  patchReason: string | null;
  standingApprovalId: string | null;
};

/**
 * The receipt and the audit event of a consume, inside its transaction. The
 * receipt is signed first (a failure still undoes the consume) and the audit
 * append comes last, so the chain's head is held as briefly as possible.
 */
async function consumed(tx: Tx, service: AuthenticatedService, row: ConsumedRow, now: Date, signingKey: ActiveKey) {
  const decision = CONSUMABLE.find((s) => s === row.status)!;
  const decidedAt = (row.decidedAt ?? row.expiresAt).toISOString();
  const decidedBy = parseDecidedBy(row.decidedBy);
  const claims = {
    approval_id: row.id,
    service: service.slug,
    run_id: row.runId,
    call_id: row.callId,
    tool: row.tool,
    args_digest: row.argsDigest,
    decision,
    decided_by: decidedBy,
    decided_at: decidedAt,
    consumed_at: now.toISOString(),
    // Who decided, when no one looked at this call: the standing approval whose approvers are named.
    ...(row.standingApprovalId ? { standing_approval: row.standingApprovalId } : {}),
  };
  const receipt = await signReceipt(claims, signingKey);
  // Why, for the agent: the votes and reasons. Not in the receipt, which is
  // evidence of the binding and the decision, kept and passed around longer.
  const reviews = await reviewTrail(tx, row.id);
  await appendAuditEvent(tx, {
    type: "approval.consumed",
    actor: `service:${service.slug}`,
    approvalId: row.id,
    data: { decision, args_digest: row.argsDigest, run_id: row.runId, call_id: row.callId },
  });
  return {
    approval_id: row.id,
    decision,
    decided_by: decidedBy,
    decided_at: decidedAt,
    consumed_at: claims.consumed_at,
    reviews,
    receipt,
    ...(decision === "revised" && row.patch !== null
      ? { patch: JSON.parse(row.patch) as JsonPatch, proposal: { by: decidedBy[0] ?? "", reason: row.patchReason ?? "", at: decidedAt } }
      : {}),
  };
}
