// A verified webhook becomes a pending request (docs/api.md): digest
// recomputed, policy matched and snapshotted, arguments and summary redacted,
// and the request, its webhook id and its audit event stored in one
// transaction. Raw arguments never leave this function.
import "server-only";
import { db, type Tx } from "../db/client";
import { inTransaction } from "../db/transaction";
import { appendAuditEvent } from "../audit/append-event";
import { scheduleFollowUps, scheduleNotice } from "../notifications/schedule";
import { countPossibleApprovers } from "../notifications/recipients";
import { argsDigest } from "@countersign/client";
import { AppError } from "../errors";
import { newId } from "../ids";
import { requesterKey } from "../identity/requester-key";
import { loadPolicies } from "../policies/load-policies";
import { matchPolicy } from "../policies/match-policy";
import { loadRedactor } from "../redaction-rules/manage-rules";
import type { ServiceAuth } from "../services/service-secrets";
import { announceChange, emitLocalChange } from "./changes";
import { nudgeBackgroundWork } from "../background";
import { approvalCreatedBody } from "./present";
import type { ApprovalCreated, ApprovalRequested } from "./schemas";
import { redactArguments } from "../revisions/hidden-values";
import { checkRevision, type RevisionCheck } from "../revisions/check-revision";
import { recordVoteInTx } from "../reviews/record-review";
import { applyStanding } from "../standing/standing-approvals";

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

function isUniqueViolation(e: unknown): boolean {
  return typeof e === "object" && e !== null && "code" in e && (e as { code: unknown }).code === "P2002";
}

/**
 * The proposer's approval of a matching revision, recorded through the one
 * vote function at the revision's creation instant (so a quorum of one
 * decides it as it arrives). Returns the row as it then is, or null when the
 * proposer may no longer vote on it (nothing is recorded then).
 */
async function carryProposerVote(tx: Tx, approvalId: string, revision: RevisionCheck, at: Date) {
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

export async function ingestApproval(service: ServiceAuth, webhookId: string, event: ApprovalRequested): Promise<IngestResult> {
  const { data } = event;
  // Salted when the sender salted (docs/security.md); the salt is kept for binding only and
  // goes into no answer, audit event, page or log.
  const digest = argsDigest(data.arguments, data.args_salt);
  if (data.args_digest !== undefined && data.args_digest !== digest) throw new AppError("digest-mismatch");

  // A repeat (same webhook-id, or same call) is rare: rather than two lookups
  // on every delivery, the insert below runs first, and its unique
  // constraints catch a repeat, which then answers like the first delivery.
  const policy = matchPolicy(await loadPolicies(db()), { service: service.slug, tool: data.tool, effects: data.effects });
  const redactor = await loadRedactor(db());
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
  const redactedArgs = JSON.stringify(view);
  // A revision is compared with its proposal before anything is stored (the original is final).
  const revision = data.revises === undefined ? null : await checkRevision(db(), service.id, data.revises, { tool: data.tool, view, hidden });
  const summary = data.summary === undefined ? null : redactor.redactText(data.summary);
  const ttl = Math.min(data.expires_in ?? policy.ttlSeconds, policy.ttlSeconds);
  const now = Date.now();

  try {
    const result = await inTransaction(async (tx) => {
      const requester = {
        requestedBy: data.requested_by ?? null,
        requesterKey: data.requested_by === undefined ? null : requesterKey(data.requested_by),
      };
      const requiredRoles = JSON.stringify(policy.roles);
      const possible = await countPossibleApprovers(tx, { ...requester, requiredRoles }, new Date(now));
      const approval = await tx.approval.create({
        data: {
          id: newId("apr"),
          serviceId: service.id,
          runId: data.run_id,
          callId: data.call_id,
          tool: data.tool,
          effects: data.effects,
          environment: data.environment ?? null,
          ...requester,
          summary,
          argsDigest: digest,
          argsSalt: data.args_salt ?? null,
          redactedArgs,
          redactedDigests: JSON.stringify(hidden),
          ...(revision
            ? {
                revisesId: revision.revisesId,
                revisionMatch: revision.match,
                revisionDiffers: revision.differs ? JSON.stringify(revision.differs) : null,
              }
            : {}),
          policyName: policy.name,
          requiredRoles,
          quorum: policy.quorum,
          quorumUnreachable: possible < policy.quorum,
          ttlSeconds: policy.ttlSeconds,
          remindAt: JSON.stringify(policy.remindAt),
          escalateAfterSeconds: policy.escalateAfterSeconds,
          escalateToRoles: JSON.stringify(policy.escalateToRoles),
          slackChannel: policy.slackChannel,
          createdAt: new Date(now),
          expiresAt: new Date(now + ttl * 1000),
        },
      });
      await tx.seenWebhook.create({ data: { serviceId: service.id, webhookId, approvalId: approval.id } });
      // Committed with the request: a crash after the answer still tells the reviewers,
      // and the admins when nobody could ever approve it.
      await scheduleNotice(tx, approval.id, "needs_review", approval.createdAt);
      if (approval.quorumUnreachable) await scheduleNotice(tx, approval.id, "quorum_unreachable", approval.createdAt);
      await scheduleFollowUps(tx, approval, policy);
      // Live queue pages: other instances hear it on commit (PostgreSQL NOTIFY).
      // Before the audit append, which holds the chain's head until the commit.
      await announceChange(tx, approval.id);
      await appendAuditEvent(tx, {
        type: "approval.requested",
        actor: `service:${service.slug}`,
        approvalId: approval.id,
        data: {
          service: service.slug,
          run_id: data.run_id,
          call_id: data.call_id,
          tool: data.tool,
          effects: data.effects,
          args_digest: digest,
          policy: policy.name,
          quorum: policy.quorum,
          ...(approval.quorumUnreachable ? { quorum_unreachable: true, possible_approvers: possible } : {}),
          ...(revision ? { revises: revision.revisesId, revision: revision.match ? "matches" : "differs" } : {}),
        },
      });
      let row = approval;
      if (revision?.match) {
        // The proposer approved these arguments: their vote counts here, under every rule
        // of a vote cast now (role held, not the requester, …), or not at all.
        row = (await carryProposerVote(tx, approval.id, revision, approval.createdAt)) ?? row;
      }
      // Calls like one a quorum already approved for a while are decided as they arrive.
      if (row.status === "pending" && (await applyStanding(tx, approval, policy, { view, hidden }, service.slug))) {
        row = await tx.approval.findUniqueOrThrow({ where: { id: approval.id } });
      }
      return { created: true, body: approvalCreatedBody(row) };
    });
    emitLocalChange(result.body.approval_id);
    // Its reviewers are told now, not at the next tick.
    if (result.created) nudgeBackgroundWork();
    return result;
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
