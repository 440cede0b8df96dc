// The executor takes a decision, exactly once (docs/api.md). The binding
// (run, call, tool, digest) must equal the request's; the consume itself is
// one conditional update that only an unconsumed, decided row passes, so any
// number of concurrent consumes, on any number of instances, yield one success.
// The usual case runs on the driver (lib/db/sql.ts); the explanations of a
// refusal stay on Prisma.
import "server-only";
import { z } from "zod";
import { inTransaction } from "../db/transaction";
import { appendAuditEvent, recordAudit } from "../audit/append-event";
import { AppError } from "../errors";
import { signReceipt } from "../receipts/sign-receipt";
import { currentSigningKey, type ActiveKey } from "../receipts/signing-keys";
import { asBool, asDate, asDateOrNull, direct, directTransaction, placeholders, type Sql } from "../db/sql";
import type { AuthenticatedService } from "../services/authenticate-service";
import { emitLocalChange } from "./changes";
import { expireIfDue } from "./expire-approval";
import { parseDecidedBy } from "./present";
import { reviewTrail } from "./review-trail";
import type { consumeRequestSchema, ReviewEntry } from "./schemas";
import type { JsonPatch, ReceiptAssertion } from "@countersign/client";
import { env } from "../env";

type Binding = z.infer<typeof consumeRequestSchema>;
// "revised": the executor takes the proposed changes (docs/revisions.md); the call never runs as it was.
const CONSUMABLE = ["approved", "denied", "expired", "revised"] as const;

export async function consumeApproval(service: AuthenticatedService, approvalId: string, binding: Binding) {
  const signingKey = await currentSigningKey();
  // The usual case, on the driver: a decided, unconsumed request of this
  // service whose binding matches, read without locks; then one short
  // transaction: the conditional UPDATE that only an unconsumed row passes,
  // and the audit event. The receipt names that event (audit_seq,
  // audit_head), so it is signed after the commit, with the key loaded
  // beforehand: the chain's head is not held while signing. If another
  // consumer wins in between, the checks below answer already-consumed.
  const now = new Date();
  const [decided] = await direct().all<ConsumedSqlRow>(
    `SELECT ${CONSUMED_COLUMNS} FROM approvals
     WHERE id = ? AND service_id = ? AND consumed_at IS NULL AND status IN (${placeholders(CONSUMABLE.length)})
       AND run_id = ? AND call_id = ? AND tool = ? AND args_digest = ?`,
    [approvalId, service.id, ...CONSUMABLE, binding.run_id, binding.call_id, binding.tool, binding.args_digest],
  );
  if (decided) {
    const row = consumedRowOf(decided);
    const usual = await directTransaction(async (sql) => {
      const taken = await sql.run("UPDATE approvals SET consumed_at = ? WHERE id = ? AND consumed_at IS NULL AND status = ?", [
        now,
        row.id,
        row.status,
      ]);
      return taken === 1 ? recordConsume(sql, service, row) : null;
    });
    if (usual) return { ...(await signedAnswer(service, row, now, usual.event, signingKey, usual.assertions)), reviews: usual.reviews };
  }

  // Anything else (pending, expired but not yet marked, mismatched, consumed,
  // unknown) takes the checks below, which explain why.
  const result = await inTransaction(async (tx) => {
    const now = new Date();
    const a = await tx.approval.findFirst({ where: { id: approvalId, serviceId: service.id } });
    if (!a) return { error: new AppError("not-found") };
    const expiredNow = await expireIfDue(tx, a, now);

    const mismatched = (["run_id", "call_id", "tool", "args_digest"] as const).filter(
      (k) => binding[k] !== { run_id: a.runId, call_id: a.callId, tool: a.tool, args_digest: a.argsDigest }[k],
    );
    if (mismatched.length) {
      // Refused, and recorded: the audit event commits, nothing is consumed.
      recordAudit({
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
    // Signed inside this transaction: a failure still undoes the consume.
    const { reviews, event, assertions } = await recordConsume(tx, service, taken);
    return { body: { ...(await signedAnswer(service, taken, now, event, signingKey, assertions)), reviews }, expiredNow };
  });
  if (result.expiredNow) emitLocalChange(approvalId);
  if ("error" in result && result.error) throw result.error;
  return result.body!;
}

const CONSUMED_COLUMNS =
  "id, status, run_id, call_id, tool, args_digest, decided_at, expires_at, decided_by, patch, patch_reason, standing_approval_id, policy_name, policy_version, require_passkey";

type ConsumedSqlRow = {
  id: string;
  status: string;
  run_id: string;
  call_id: string;
  tool: string;
  args_digest: string;
  decided_at: unknown;
  expires_at: unknown;
  decided_by: string;
  patch: string | null;
  patch_reason: string | null;
  standing_approval_id: string | null;
  policy_name: string;
  policy_version: number | bigint;
  require_passkey: unknown;
};

function consumedRowOf(r: ConsumedSqlRow): ConsumedRow {
  return {
    id: r.id,
    status: r.status,
    runId: r.run_id,
    callId: r.call_id,
    tool: r.tool,
    argsDigest: r.args_digest,
    decidedAt: asDateOrNull(r.decided_at),
    expiresAt: asDate(r.expires_at),
    decidedBy: r.decided_by,
    patch: r.patch,
    patchReason: r.patch_reason,
    standingApprovalId: r.standing_approval_id,
    policyName: r.policy_name,
    policyVersion: Number(r.policy_version),
    requirePasskey: asBool(r.require_passkey),
  };
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
  policyName: string;
  policyVersion: number;
  requirePasskey: boolean;
};

/**
 * The answer to a consume of this decided row at `now`, with its receipt,
 * anchored in the chain by the consume's audit event; the votes come from
 * recordConsume.
 */
async function signedAnswer(
  service: AuthenticatedService,
  row: ConsumedRow,
  now: Date,
  event: AuditAnchor,
  signingKey: ActiveKey,
  assertions: ReceiptAssertion[] | null,
) {
  const decision = CONSUMABLE.find((s) => s === row.status)!;
  const decidedAt = (row.decidedAt ?? row.expiresAt).toISOString();
  const decidedBy = parseDecidedBy(row.decidedBy);
  const iat = Math.floor(now.getTime() / 1000);
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
    iat,
    exp: iat + env().RECEIPT_TTL_SECONDS,
    policy: { name: row.policyName, version: row.policyVersion },
    audit_seq: event.seq,
    audit_head: event.hash,
    // Who decided, when no one looked at this call: the standing approval whose approvers are named.
    ...(row.standingApprovalId ? { standing_approval: row.standingApprovalId } : {}),
    // Each approving vote's passkey assertion, in decided_by's order, when the policy required passkeys (docs/passkeys.md).
    ...(assertions ? { assertions } : {}),
  };
  const receipt = await signReceipt(claims, signingKey);
  return {
    approval_id: row.id,
    decision,
    decided_by: decidedBy,
    decided_at: decidedAt,
    consumed_at: claims.consumed_at,
    receipt,
    ...(decision === "revised" && row.patch !== null
      ? { patch: JSON.parse(row.patch) as JsonPatch, proposal: { by: decidedBy[0] ?? "", reason: row.patchReason ?? "", at: decidedAt } }
      : {}),
  };
}

type AuditAnchor = { seq: number; hash: string };

/**
 * In the consume's transaction: the audit event, appended last so the
 * chain's head is held as briefly as possible; returns the votes and the
 * event the receipt names.
 */
async function recordConsume(
  sql: Sql,
  service: AuthenticatedService,
  row: ConsumedRow,
): Promise<{ reviews: ReviewEntry[]; event: AuditAnchor; assertions: ReceiptAssertion[] | null }> {
  // Why, for the agent: the votes and reasons. Not in the receipt, which is
  // evidence of the binding and the decision, kept and passed around longer.
  const reviews = await reviewTrail(sql, row.id);
  const assertions = row.requirePasskey ? await approvingAssertions(sql, row.id) : null;
  const event = await appendAuditEvent(sql, {
    type: "approval.consumed",
    actor: `service:${service.slug}`,
    approvalId: row.id,
    data: { decision: row.status, args_digest: row.argsDigest, run_id: row.runId, call_id: row.callId },
  });
  return { reviews, event: { seq: event.seq, hash: event.hash }, assertions };
}

/**
 * The approving votes' assertions, in the order the votes were recorded (the
 * order of decided_by), each with its vote's reason: the signed challenge
 * covers the reason, and the receipt carries no other copy of it.
 */
async function approvingAssertions(sql: Sql, approvalId: string): Promise<ReceiptAssertion[]> {
  const rows = await sql.all<{
    reviewer_email: string;
    reason: string | null;
    credential_id: string;
    nonce: string;
    authenticator_data: string;
    client_data_json: string;
    signature: string;
  }>(
    `SELECT r.reviewer_email, r.reason, v.credential_id, v.nonce, v.authenticator_data, v.client_data_json, v.signature
     FROM reviews r JOIN vote_assertions v ON v.review_id = r.id
     WHERE r.approval_id = ? AND r.decision = 'approve'
     ORDER BY r.created_at ASC, r.id ASC`,
    [approvalId],
  );
  return rows.map((r) => ({
    reviewer: r.reviewer_email,
    credential_id: r.credential_id,
    nonce: r.nonce,
    authenticator_data: r.authenticator_data,
    client_data_json: r.client_data_json,
    signature: r.signature,
    reason: r.reason ?? "",
  }));
}
