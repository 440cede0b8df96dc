// Standing approvals (docs/standing-approvals.md), the reviewer's side:
// proposed from a pending request's page, approved by the policy's quorum
// (the proposer counts as one), revoked by its reviewers or an admin.
// Proposing and approving are decisions: each asks the one authority check
// (lib/reviews/authority.ts) under the policy as it is now, with its pace
// rules measured on the source request's page (standing-rules.ts). Listing
// is list-standing.ts; applying one at ingest, where every approver is asked
// again, is apply-standing.ts.
import "server-only";
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { z } from "zod";
import { db } from "../db/client";
import { direct } from "../db/sql";
import { inTransaction } from "../db/transaction";
import { recordAudit } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { AppError } from "../errors";
import { newId } from "../ids";
import { can } from "../auth/permissions";
import { loadPolicies } from "../policies/load-policies";
import { loadRedactor } from "../redaction-rules/manage-rules";
import { parseHidden } from "../revisions/hidden-values";
import { approversWhoCount, mayDecide, type Person } from "../reviews/authority";
import { loadPeople, loadPerson } from "../reviews/people";
import { rolesOf, visibleTo } from "../reviews/visibility";
import { parseStringList } from "../string-list";
import { reasonTextSchema } from "../reviews/record-review";
import { buildPins, pinnablePaths, pinRequestSchema, pinsMatch, pinWords, storedPins } from "./pins";
import {
  assertMayDecide,
  currentPolicy,
  isItsReviewer,
  lockStanding,
  parseWith,
  PASSKEY_REFUSAL,
  sourceOf,
  standingRules,
  type SourceFacts,
} from "./standing-rules";

// Listing lives in list-standing.ts; callers of this module's actions find it here too.
export { countStandingToApprove, listStanding, standingGroup, STANDING_GROUPS, type StandingGroup, type StandingView } from "./list-standing";

export const proposeStandingSchema = z.object({
  approvalId: z.string().min(1).max(100),
  pins: z.array(pinRequestSchema).min(1, "pin at least one argument value"),
  expiresInSeconds: z.number().int().min(60, "must last at least a minute"),
  maxUses: z.number().int().min(1).max(1_000_000).nullish(),
  reason: reasonTextSchema.min(1, "say why calls like this one may run without asking"),
});
export type ProposeStandingInput = z.input<typeof proposeStandingSchema>;

const digestOf = (v: unknown) => "sha256:" + createHash("sha256").update(canonicalize(v)!).digest("hex");

function parseProposal(input: ProposeStandingInput) {
  return parseWith(proposeStandingSchema, input);
}

/**
 * What the request's page offers for proposing a standing approval to this
 * viewer: the longest expiry the policy allows and the values a pin can
 * name; null when they may not propose one (policy forbids, not theirs,
 * the request no longer pending).
 */
export async function standingOffer(
  viewer: Person | null,
  a: SourceFacts & { redactedArgs: string; redactedDigests: string | null },
): Promise<{ maxTtlSeconds: number; paths: string[] } | null> {
  const hidden = parseHidden(a.redactedDigests);
  if (!hidden) return null;
  const policies = await loadPolicies(direct());
  const policy = currentPolicy(policies, a, a.service.slug);
  if (!policy || policy.standingMaxTtlSeconds <= 0 || policy.requirePasskey) return null;
  if (!mayDecide(viewer, a, standingRules(policies, a), new Date()).ok) return null;
  return { maxTtlSeconds: policy.standingMaxTtlSeconds, paths: pinnablePaths(JSON.parse(a.redactedArgs), hidden) };
}

/** How many of the latest requests of this service and tool the proposed pins would have matched (nothing is written). */
export async function previewStanding(reviewerId: string, input: { approvalId: string; pins: unknown }, recent = 200) {
  const { approvalId, pins: pinRequests } = parseWith(proposeStandingSchema.pick({ approvalId: true, pins: true }), input);
  const redactor = await loadRedactor(direct());
  const viewer = await loadPerson(direct(), reviewerId);
  const a = await db().approval.findUnique({ where: { id: approvalId }, include: { service: { select: { slug: true } } } });
  if (!a || !visibleTo(viewer, a)) throw new AppError("not-found");
  const verdict = mayDecide(viewer, a, standingRules(await loadPolicies(direct()), a), new Date());
  if (!verdict.ok) throw new AppError(verdict.code, verdict.message);
  const hidden = parseHidden(a.redactedDigests);
  if (!hidden) throw new AppError("invalid-request", "this request arrived before standing approvals existed: propose from a newer request");
  const built = buildPins(JSON.parse(a.redactedArgs), hidden, pinRequests, (v) => typeof v !== "string" || redactor.findSecret(v) === null);
  if (!built.ok) throw new AppError("invalid-request", built.message, { issues: [{ path: "pins", message: built.message }] });
  const rows = await db().approval.findMany({
    where: { serviceId: a.serviceId, tool: a.tool, id: { not: a.id } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: recent,
    select: { redactedArgs: true, redactedDigests: true },
  });
  let matched = 0;
  for (const r of rows) {
    const h = parseHidden(r.redactedDigests);
    if (h && pinsMatch(built, JSON.parse(r.redactedArgs), h)) matched++;
  }
  return { matched, of: rows.length, pins: pinWords(built, "this request") };
}

/**
 * Proposes "approve calls like this one" from a pending request: a decision
 * like a vote on it, so the proposer must be able to decide that request now
 * (and as for a request never escalated: an escalation role decides only
 * escalated requests), after the policy's time on its page.
 */
export async function proposeStanding(reviewerId: string, input: ProposeStandingInput) {
  const { approvalId, pins: pinRequests, expiresInSeconds, maxUses, reason } = parseProposal(input);
  const redactor = await loadRedactor(direct());

  const created = await inTransaction(async (tx) => {
    const now = new Date();
    const policies = await loadPolicies(tx);
    const a = await tx.approval.findUnique({ where: { id: approvalId }, include: { service: { select: { slug: true } } } });
    const viewer = await loadPerson(tx, reviewerId);
    if (!a || !visibleTo(viewer, a)) throw new AppError("not-found");
    const policy = currentPolicy(policies, a, a.service.slug);
    if (!policy)
      throw new AppError(
        "invalid-request",
        "the policy for calls like this one has changed since this request arrived: propose from a newer request",
      );
    const rules = standingRules(policies, a);
    await assertMayDecide(tx, viewer, a, a, rules, now);
    if (rules.requirePasskey) throw new AppError("forbidden", PASSKEY_REFUSAL(policy.name));
    if (policy.standingMaxTtlSeconds <= 0) throw new AppError("forbidden", `policy ${policy.name} does not allow standing approvals`);
    if (expiresInSeconds > policy.standingMaxTtlSeconds) {
      throw new AppError("invalid-request", `policy ${policy.name} allows standing approvals of at most ${policy.standingMaxTtlSeconds} seconds`);
    }
    const hidden = parseHidden(a.redactedDigests);
    if (!hidden) throw new AppError("invalid-request", "this request arrived before standing approvals existed: propose from a newer request");
    const built = buildPins(JSON.parse(a.redactedArgs), hidden, pinRequests, (v) => typeof v !== "string" || redactor.findSecret(v) === null);
    if (!built.ok) throw new AppError("invalid-request", built.message, { issues: [{ path: "pins", message: built.message }] });

    const email = viewer!.email;
    const active = rules.quorum <= 1;
    const s = await tx.standingApproval.create({
      data: {
        id: newId("sta"),
        serviceId: a.serviceId,
        tool: a.tool,
        pins: storedPins(built),
        reason,
        sourceApprovalId: a.id,
        requestedBy: a.requestedBy,
        requesterKey: a.requesterKey,
        policyName: policy.name,
        requiredRoles: JSON.stringify(rules.roles),
        quorum: rules.quorum,
        proposedById: reviewerId,
        status: active ? "active" : "proposed",
        approveCount: 1,
        approvedBy: JSON.stringify([email]),
        maxUses: maxUses ?? null,
        createdAt: now,
        expiresAt: new Date(now.getTime() + expiresInSeconds * 1000),
        activatedAt: active ? now : null,
      },
    });
    await tx.standingVote.create({ data: { id: newId("stv"), standingId: s.id, reviewerId, reviewerEmail: email, createdAt: now } });
    const actor: Actor = `user:${email}`;
    // Pins hold argument values: the chain keeps their digest and their paths.
    recordAudit({
      type: "standing.proposed",
      actor,
      approvalId: a.id,
      data: {
        standing: s.id,
        service: a.service.slug,
        tool: a.tool,
        pins_digest: digestOf(JSON.parse(s.pins)),
        paths: built.pins.map((p) => p.path).slice(0, 50),
        expires_at: s.expiresAt.toISOString(),
        max_uses: s.maxUses,
        quorum: s.quorum,
        reason,
      },
    });
    if (active)
      recordAudit({
        type: "standing.approved",
        actor,
        data: { standing: s.id, approvals: 1, quorum: s.quorum, active: true, approved_by: [email] },
      });
    return s;
  });
  return { id: created.id, status: created.status };
}

/**
 * One more approval of a proposed standing approval, under the policy as it
 * is now and its pace rules on the source request's page. It becomes active
 * when the approvals that still count (each earlier approver asked again)
 * reach the quorum.
 */
export async function approveStanding(reviewerId: string, standingId: string) {
  return inTransaction(async (tx) => {
    const now = new Date();
    const s = await lockStanding(tx, standingId);
    const viewer = await loadPerson(tx, reviewerId);
    if (!s || !visibleTo(viewer, s)) throw new AppError("not-found");
    const source = await sourceOf(tx, s);
    if (!source) throw new AppError("not-found");
    const policies = await loadPolicies(tx);
    const rules = standingRules(policies, source, s.quorum);
    const subject = { ...s, status: s.status === "proposed" ? "pending" : s.status };
    if (s.status !== "proposed") throw new AppError("already-decided", `this standing approval is already ${s.status}`);
    await assertMayDecide(tx, viewer, subject, source, rules, now);
    if (s.votes.some((v) => v.reviewerId === reviewerId)) throw new AppError("already-reviewed", "you have already approved it");
    if (rules.policy !== s.policyName) {
      throw new AppError("forbidden", `calls like this one are now governed by policy ${rules.policy}: propose again from a new request`);
    }
    if (rules.requirePasskey) throw new AppError("forbidden", PASSKEY_REFUSAL(s.policyName));

    const email = viewer!.email;
    const people = await loadPeople(
      tx,
      s.votes.map((v) => v.reviewerId),
    );
    const { counted } = approversWhoCount(
      s.votes.map((v) => ({ id: v.reviewerId, person: people.get(v.reviewerId) ?? null })),
      subject,
      rules,
      now,
    );
    const approvedBy = [...parseStringList(s.approvedBy), email];
    const active = counted.length + 1 >= rules.quorum;
    await tx.standingVote.create({ data: { id: newId("stv"), standingId, reviewerId, reviewerEmail: email, createdAt: now } });
    await tx.standingApproval.update({
      where: { id: standingId },
      data: {
        approveCount: counted.length + 1,
        approvedBy: JSON.stringify(approvedBy),
        quorum: rules.quorum,
        ...(active ? { status: "active", activatedAt: now } : {}),
      },
    });
    recordAudit({
      type: "standing.approved",
      actor: `user:${email}`,
      data: {
        standing: standingId,
        approvals: counted.length + 1,
        quorum: rules.quorum,
        active,
        ...(active ? { approved_by: [...counted.map((p) => p.email), email] } : {}),
      },
    });
    return { id: standingId, status: active ? "active" : "proposed", approvals: counted.length + 1, quorum: rules.quorum };
  });
}

/** Revoked by an admin (or the CLI), or by a reviewer who holds one of its roles now; effective for the next request. */
export async function revokeStanding(by: { userId: string } | "cli", standingId: string) {
  return inTransaction(async (tx) => {
    const s = await lockStanding(tx, standingId);
    let actor: Actor = "cli";
    if (by !== "cli") {
      const viewer = await loadPerson(tx, by.userId);
      if (!s || !visibleTo(viewer, s)) throw new AppError("not-found");
      const now = new Date();
      const admin = can({ roles: rolesOf(viewer!, now) }, "admin:policies");
      const source = admin ? null : await sourceOf(tx, s);
      const reviewer = source !== null && isItsReviewer(viewer, s, standingRules(await loadPolicies(tx), source, s.quorum), now);
      if (!admin && !reviewer) throw new AppError("forbidden", "only its reviewers and admins can revoke it");
      actor = `user:${viewer!.email}`;
    }
    if (!s) throw new AppError("not-found");
    if (s.status === "revoked") throw new AppError("already-decided", "this standing approval is already revoked");
    const now = new Date();
    await tx.standingApproval.update({ where: { id: standingId }, data: { status: "revoked", revokedAt: now, revokedBy: actor } });
    recordAudit({ type: "standing.revoked", actor, data: { standing: standingId, uses: s.uses } });
    return { id: standingId, status: "revoked" as const, revoked_at: now.toISOString() };
  });
}
