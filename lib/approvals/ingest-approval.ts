// A verified webhook becomes a pending request (docs/api.md): digest
// recomputed, policy matched and snapshotted, arguments and summary redacted,
// and the request, its webhook id and its audit event stored in one
// transaction. Raw arguments never leave this function.
import "server-only";
import { db, type Tx } from "../db/client";
import { inTransaction, type Unit } from "../db/transaction";
import { direct, directTransaction, isUniqueViolation, placeholders, type Sql, type SqlParam } from "../db/sql";
import { recordAudit } from "../audit/append-event";
import { followUpNotices, scheduleNotices, type Notice } from "../notifications/schedule";
import { countPossibleApprovers } from "../notifications/recipients";
import { argsDigest } from "@countersign/client";
import { AppError } from "../errors";
import { newId } from "../ids";
import { requesterKey } from "../identity/requester-key";
import { loadPolicies } from "../policies/load-policies";
import { matchPolicy, type PolicyRule } from "../policies/match-policy";
import { loadRedactor } from "../redaction-rules/manage-rules";
import type { ServiceAuth } from "../services/service-secrets";
import { announceChange, emitLocalChange } from "./changes";
import { nudgeBackgroundWork } from "../background";
import { approvalCreatedBody } from "./present";
import type { ApprovalCreated, ApprovalRequested } from "./schemas";
import { redactArguments } from "../revisions/hidden-values";
import { checkRevision, type RevisionCheck } from "../revisions/check-revision";
import { recordVoteInTx } from "../reviews/record-review";
import { matchingStanding, useFirstStanding, type StandingMatch } from "../standing/apply-standing";

export type IngestResult = { created: boolean; body: ApprovalCreated };

/** The answer for a delivery we have seen before, if any (same webhook-id or same call). */
async function findRepeat(
  tx: Tx,
  service: ServiceAuth,
  webhookId: string,
  call: { run_id: string; call_id: string; tool: string },
  digest: string,
): Promise<IngestResult | null> {
  const seen = await tx.seenWebhook.findUnique({
    where: { serviceId_webhookId: { serviceId: service.id, webhookId } },
    select: { approvalId: true },
  });
  if (seen) {
    const first = await tx.approval.findUniqueOrThrow({ where: { id: seen.approvalId } });
    return { created: false, body: approvalCreatedBody(first) };
  }
  const sameCall = await tx.approval.findUnique({
    where: { serviceId_runId_callId: { serviceId: service.id, runId: call.run_id, callId: call.call_id } },
  });
  if (!sameCall) return null;
  // An approval must never apply to a swapped call.
  if (sameCall.tool !== call.tool || sameCall.argsDigest !== digest) throw new AppError("call-reused");
  return { created: false, body: approvalCreatedBody(sameCall) };
}

/**
 * The proposer's approval of a matching revision, recorded through the one
 * vote function at the revision's creation instant (so a quorum of one
 * decides it as it arrives). Returns the row as it then is, or null when the
 * proposer may no longer vote on it (nothing is recorded then).
 */
async function carryProposerVote(tx: Unit, approvalId: string, revision: RevisionCheck, at: Date) {
  try {
    await recordVoteInTx(tx, revision.proposerId, { approvalId, decision: "approve", reason: revision.reason }, "revision", {
      at,
      extra: { carried_from: revision.revisesId },
    });
  } catch (e) {
    if (e instanceof AppError) return null;
    throw e;
  }
  return tx.approval.findUniqueOrThrow({ where: { id: approvalId } });
}

/** The request's row as stored, with what its answer and the steps after the insert need. */
type NewRequest = {
  id: string;
  serviceId: string;
  tool: string;
  argsDigest: string;
  requestedBy: string | null;
  requesterKey: string | null;
  requiredRoles: string;
  createdAt: Date;
  expiresAt: Date;
  revisionMatch: boolean | null;
};

/**
 * Stores a new request in the caller's transaction: the row, its webhook id,
 * the change notice; the first of `standing` that can still be used decides
 * it; its audit events are recorded (appended last, at the commit). A request left pending gets
 * its notice triggers (committed with it: a crash after the answer still tells the
 * reviewers, and the admins when nobody could ever approve it). Plain
 * statements (lib/db/sql.ts): the driver's own transaction for an ordinary
 * webhook, Prisma's for a revision, whose carried vote needs it.
 */
async function storeRequest(
  sql: Sql,
  service: ServiceAuth,
  webhookId: string,
  request: NewRequest,
  columns: Record<string, SqlParam>,
  policy: PolicyRule,
  audit: Record<string, unknown>,
  reads: { possible: number; standing: readonly StandingMatch[] },
): Promise<{ quorumUnreachable: boolean; standingId: string | null }> {
  const { possible, standing } = reads;
  const quorumUnreachable = possible < policy.quorum;
  const row: Record<string, SqlParam> = { ...columns, quorum_unreachable: quorumUnreachable };
  const names = Object.keys(row);
  await sql.run(`INSERT INTO approvals (${names.join(", ")}) VALUES (${placeholders(names.length)})`, Object.values(row));
  await sql.run("INSERT INTO seen_webhooks (service_id, webhook_id, approval_id, received_at) VALUES (?, ?, ?, ?)", [
    service.id,
    webhookId,
    request.id,
    request.createdAt,
  ]);
  const notices: Notice[] = [
    { kind: "needs_review", at: request.createdAt },
    ...(quorumUnreachable ? [{ kind: "quorum_unreachable", at: request.createdAt } as const] : []),
    ...followUpNotices(request, policy),
  ];
  if (standing.length === 0) await scheduleNotices(sql, request.id, notices);
  // Live queue pages: other instances hear it on commit (PostgreSQL NOTIFY).
  await announceChange(sql, request.id);
  // Recorded, and appended with the standing approval's events as the
  // transaction's last statements (lib/db/unit-of-work.ts).
  recordAudit({
    type: "approval.requested",
    actor: `service:${service.slug}`,
    approvalId: request.id,
    data: { ...audit, ...(quorumUnreachable ? { quorum_unreachable: true, possible_approvers: possible } : {}) },
  });
  // Calls like one a quorum already approved for a while are decided as they arrive: nobody is asked.
  const standingId = await useFirstStanding(sql, request, standing, { serviceSlug: service.slug, policy });
  if (standingId === null && standing.length > 0) await scheduleNotices(sql, request.id, notices);
  return { quorumUnreachable, standingId };
}

export async function ingestApproval(service: ServiceAuth, webhookId: string, event: ApprovalRequested): Promise<IngestResult> {
  const { data } = event;
  // Salted when the sender salted (docs/security.md); the salt is kept for binding only and
  // goes into no answer, audit event, page or log.
  const digest = argsDigest(data.arguments, data.args_salt);
  if (data.args_digest !== undefined && data.args_digest !== digest) throw new AppError("digest-mismatch");

  // A repeat (same webhook-id, or same call) is rare: rather than two lookups
  // on every delivery, the insert below runs first, and its unique
  // constraints catch a repeat, which then answers like the first delivery.
  const policy = matchPolicy(await loadPolicies(direct()), { service: service.slug, tool: data.tool, effects: data.effects });
  const redactor = await loadRedactor(direct());
  // ids go into the audit chain as they are. The schema refused what the
  // built-in rules would hide; this refuses what the admin's rules would.
  for (const field of ["run_id", "call_id", "environment"] as const) {
    const rule = data[field] === undefined ? null : redactor.findSecret(data[field]);
    if (rule !== null) {
      const message = `must not contain a secret (it matches the ${rule} redaction rule)`;
      throw new AppError("invalid-request", `${field} ${message}`, { issues: [{ path: `data.${field}`, message }] });
    }
  }
  const { view, hidden } = redactArguments(redactor, service.id, data.arguments);
  // A revision is compared with its proposal before anything is stored (the original is final).
  const now = new Date();
  const revision =
    data.revises === undefined
      ? null
      : await checkRevision(db(), service.id, data.revises, {
          tool: data.tool,
          view,
          hidden,
          effects: data.effects,
          environment: data.environment ?? null,
          requestedBy: data.requested_by ?? null,
          now,
        });
  const ttl = Math.min(data.expires_in ?? policy.ttlSeconds, policy.ttlSeconds);

  const request: NewRequest = {
    id: newId("apr"),
    serviceId: service.id,
    tool: data.tool,
    argsDigest: digest,
    requestedBy: data.requested_by ?? null,
    requesterKey: data.requested_by === undefined ? null : requesterKey(data.requested_by),
    requiredRoles: JSON.stringify(policy.roles),
    createdAt: now,
    expiresAt: new Date(now.getTime() + ttl * 1000),
    revisionMatch: revision ? revision.match : null,
  };
  const columns: Record<string, SqlParam> = {
    id: request.id,
    service_id: service.id,
    run_id: data.run_id,
    call_id: data.call_id,
    tool: data.tool,
    effects: data.effects,
    environment: data.environment ?? null,
    requested_by: request.requestedBy,
    requester_key: request.requesterKey,
    summary: data.summary === undefined ? null : redactor.redactText(data.summary),
    args_digest: digest,
    args_salt: data.args_salt ?? null,
    redacted_args: JSON.stringify(view),
    redacted_digests: JSON.stringify(hidden),
    ...(revision
      ? {
          revises_id: revision.revisesId,
          revision_match: revision.match,
          revision_differs: revision.differs ? JSON.stringify(revision.differs) : null,
        }
      : {}),
    policy_name: policy.name,
    policy_version: policy.version,
    required_roles: request.requiredRoles,
    quorum: policy.quorum,
    ttl_seconds: policy.ttlSeconds,
    status: "pending",
    approve_count: 0,
    decided_by: "[]",
    remind_at: JSON.stringify(policy.remindAt),
    escalate_after_seconds: policy.escalateAfterSeconds,
    escalate_to_roles: JSON.stringify(policy.escalateToRoles),
    slack_channel: policy.slackChannel,
    require_passkey: policy.requirePasskey,
    min_review_seconds: policy.minReviewSeconds,
    require_full_view: policy.requireFullView,
    created_at: now,
    expires_at: request.expiresAt,
  };
  const audit = {
    service: service.slug,
    run_id: data.run_id,
    call_id: data.call_id,
    tool: data.tool,
    effects: data.effects,
    args_digest: digest,
    policy: policy.name,
    policy_version: policy.version,
    quorum: policy.quorum,
    ...(revision ? { revises: revision.revisesId, revision: revision.match ? "matches" : "differs" } : {}),
  };
  const answer = (quorumUnreachable: boolean, approvedOnArrival: boolean) =>
    approvalCreatedBody({
      ...request,
      quorumUnreachable,
      status: approvedOnArrival ? "approved" : "pending",
      decidedAt: approvedOnArrival ? now : null,
    });

  // The usual webhook: every statement on the driver; the reads first, then one short transaction.
  const storeOrdinary = async () => {
    const reads = {
      possible: await countPossibleApprovers(direct(), request, now),
      standing: await matchingStanding(direct(), request, policy, { view, hidden }),
    };
    return directTransaction(async (sql) => {
      const stored = await storeRequest(sql, service, webhookId, request, columns, policy, audit, reads);
      return answer(stored.quorumUnreachable, stored.standingId !== null);
    });
  };

  try {
    const result = revision
      ? await inTransaction(async (tx) => {
          const possible = await countPossibleApprovers(tx, request, now);
          // Matched now, used only after the carried vote. Every event is appended at the commit, so
          // the chain's head is still this transaction's last lock (lib/db/unit-of-work.ts).
          const standing = await matchingStanding(tx, request, policy, { view, hidden });
          const { quorumUnreachable } = await storeRequest(tx, service, webhookId, request, columns, policy, audit, { possible, standing: [] });
          let row = await tx.approval.findUniqueOrThrow({ where: { id: request.id } });
          if (revision.carries) {
            // The proposer approved these arguments, and the proposal is still fresh: their vote
            // counts here, under every rule of a vote cast now (role held, not the requester, …), or not at all.
            row = (await carryProposerVote(tx, request.id, revision, now)) ?? row;
          }
          if (row.status === "pending" && (await useFirstStanding(tx, request, standing, { serviceSlug: service.slug, policy })) !== null) {
            return answer(quorumUnreachable, true);
          }
          return approvalCreatedBody({ ...row, quorumUnreachable });
        })
      : await storeOrdinary();
    emitLocalChange(request.id);
    // Its reviewers are told now, not at the next tick (one decided as it arrived has none to tell).
    if (result.status === "pending") nudgeBackgroundWork();
    return { created: true, body: result };
  } catch (e) {
    // A repeat, or a concurrent identical delivery that won the race: the
    // transaction stored nothing; answer as the repeat of the first.
    if (isUniqueViolation(e)) {
      const raced = await findRepeat(db(), service, webhookId, data, digest);
      if (raced) return raced;
      // Not a repeat: another call already revised that request (one revision per proposal).
      if (revision) throw new AppError("already-revised", "that request was already revised by another call");
    }
    throw e;
  }
}
