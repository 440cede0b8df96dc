// Standing approvals at ingest (docs/standing-approvals.md): which active
// ones match a new request (matchingStanding, read-only), and the use of the
// first that may still decide it (useFirstStanding, in the request's own
// transaction). A standing approval is a set of votes: at every use each of
// its approvers is asked again, now, whether they may decide this request
// (lib/reviews/authority.ts), including the policy's pace rules for their
// vote on the source request's page, and those who pass must still meet the
// quorum of the policy as it is now. Otherwise it does not apply, the request
// waits for people, and a standing.skipped event says why (never values).
import "server-only";
import { asBool, asDate, asDateOrNull, type Sql } from "../db/sql";
import { recordAudit } from "../audit/append-event";
import { mayDecide, type DecisionRules, type Refusal } from "../reviews/authority";
import { loadPeople } from "../reviews/people";
import { paceRefusal } from "../reviews/review-views";
import type { PolicyRule } from "../policies/match-policy";
import type { HiddenEntry } from "../revisions/hidden-values";
import { finalizeApproval } from "../approvals/finalize";
import { parsePins, pinsMatch } from "./pins";

type IngestedRow = {
  id: string;
  serviceId: string;
  tool: string;
  requestedBy: string | null;
  requesterKey: string | null;
  createdAt: Date;
  expiresAt: Date;
};

/** A standing approval whose pins match a new request, with what checking and applying it needs. */
export type StandingMatch = { id: string; sourceApprovalId: string; policyName: string; quorum: number };

/**
 * The active standing approvals whose pins match a new request, first
 * created first: read-only, so the ingest reads them before its transaction
 * (and decides from them whether the request needs its reviewers told).
 * Expiry, uses and pins are checked here; who may decide is checked at the
 * use (useFirstStanding), and the use itself is counted by its conditional
 * UPDATE. A policy that forbids standing approvals, or requires passkeys for
 * every vote, is never matched against them.
 */
export async function matchingStanding(
  sql: Sql,
  approval: IngestedRow,
  policy: PolicyRule,
  args: { view: unknown; hidden: readonly HiddenEntry[] },
): Promise<StandingMatch[]> {
  if (policy.standingMaxTtlSeconds <= 0 || policy.requirePasskey) return [];
  const now = approval.createdAt;
  const candidates = await sql.all<{
    id: string;
    source_approval_id: string;
    expires_at: unknown;
    policy_name: string;
    quorum: number | bigint;
    max_uses: number | bigint | null;
    uses: number | bigint;
    pins: string;
  }>(
    `SELECT id, source_approval_id, expires_at, policy_name, quorum, max_uses, uses, pins FROM standing_approvals
     WHERE service_id = ? AND tool = ? AND status = 'active' ORDER BY created_at ASC, id ASC`,
    [approval.serviceId, approval.tool],
  );
  const matches: StandingMatch[] = [];
  for (const s of candidates) {
    if (asDate(s.expires_at) <= now) continue;
    if (s.max_uses !== null && Number(s.uses) >= Number(s.max_uses)) continue;
    const pins = parsePins(s.pins);
    if (!pins || !pinsMatch(pins, args.view, args.hidden)) continue;
    matches.push({ id: s.id, sourceApprovalId: s.source_approval_id, policyName: s.policy_name, quorum: Number(s.quorum) });
  }
  return matches;
}

/** Why a matching standing approval did not decide a request (standing.skipped). */
type Skip = {
  why: "policy-changed" | "requester-among-approvers" | "approvers";
  approvers: Array<{ approver: string | null; why: Refusal["code"] | "review-too-early" | "full-view-required" }>;
  counted: number;
  quorum: number;
};

/**
 * Asks the authority check for each approver of `match`, now, on this
 * request: the approvers who may decide it (in the order they voted), or why
 * the standing approval may not.
 */
async function whoDecides(
  sql: Sql,
  approval: IngestedRow,
  match: StandingMatch,
  policy: PolicyRule,
): Promise<{ ok: true; approvers: string[] } | ({ ok: false } & Skip)> {
  // A new request is never escalated: the policy's own roles decide it.
  const rules: DecisionRules = {
    policy: policy.name,
    roles: policy.roles,
    quorum: Math.max(match.quorum, policy.quorum),
    minReviewSeconds: policy.minReviewSeconds,
    requireFullView: policy.requireFullView,
    requirePasskey: policy.requirePasskey,
  };
  if (match.policyName !== policy.name) return { ok: false, why: "policy-changed", approvers: [], counted: 0, quorum: rules.quorum };
  const votes = await sql.all<{ reviewer_id: string; created_at: unknown; first_served_at: unknown; full_view_at: unknown; truncated: unknown }>(
    `SELECT v.reviewer_id, v.created_at, rv.first_served_at, rv.full_view_at, rv.truncated
     FROM standing_votes v LEFT JOIN review_views rv ON rv.approval_id = ? AND rv.user_id = v.reviewer_id
     WHERE v.standing_id = ? ORDER BY v.created_at ASC, v.id ASC`,
    [match.sourceApprovalId, match.id],
  );
  const people = await loadPeople(
    sql,
    votes.map((v) => v.reviewer_id),
  );
  const subject = { requestedBy: approval.requestedBy, requesterKey: approval.requesterKey, status: "pending", expiresAt: approval.expiresAt };
  const counted: string[] = [];
  const refused: Skip["approvers"] = [];
  for (const v of votes) {
    const person = people.get(v.reviewer_id) ?? null;
    const verdict = mayDecide(person, subject, rules, approval.createdAt);
    // Each vote met the policy's pace rules, as they are now, when it was cast.
    const view =
      v.first_served_at === null
        ? null
        : { firstServedAt: asDate(v.first_served_at), fullViewAt: asDateOrNull(v.full_view_at), truncated: asBool(v.truncated) };
    const pace = verdict.ok ? paceRefusal(rules, view, asDate(v.created_at), null) : null;
    if (verdict.ok && !pace && person) counted.push(person.email);
    else refused.push({ approver: person?.email ?? null, why: verdict.ok ? pace!.code : verdict.code });
  }
  // Never for a request whose requester is one of its approvers, however many others approved.
  if (refused.some((r) => r.why === "self-review"))
    return { ok: false, why: "requester-among-approvers", approvers: refused, counted: counted.length, quorum: rules.quorum };
  if (counted.length < rules.quorum) return { ok: false, why: "approvers", approvers: refused, counted: counted.length, quorum: rules.quorum };
  return { ok: true, approvers: counted };
}

/**
 * In the request's transaction: counts one use of a matching standing
 * approval and decides the request with it, approved by the approvers who
 * may still decide it. The use is counted by one conditional UPDATE, so
 * max_uses holds however many ingests race, on any number of instances (and
 * a revocation or expiry committed since the match wins). False when it did
 * not apply; a standing.skipped event then says why.
 */
async function useStanding(
  sql: Sql,
  approval: IngestedRow,
  match: StandingMatch,
  ctx: { serviceSlug: string; policy: PolicyRule },
): Promise<boolean> {
  const now = approval.createdAt;
  const who = await whoDecides(sql, approval, match, ctx.policy);
  if (!who.ok) {
    recordAudit({
      type: "standing.skipped",
      actor: "system",
      approvalId: approval.id,
      data: {
        standing: match.id,
        why: who.why,
        counted: who.counted,
        quorum: who.quorum,
        // "approver: why" for each approver who no longer counts (codes, never values).
        not_counted: who.approvers.map((a) => `${a.approver ?? "a deleted user"}: ${a.why}`).slice(0, 50),
      },
    });
    return false;
  }
  const [taken] = await sql.all<{ uses: number | bigint }>(
    `UPDATE standing_approvals SET uses = uses + 1, last_used_at = ?
     WHERE id = ? AND status = 'active' AND expires_at > ? AND (max_uses IS NULL OR uses < max_uses)
     RETURNING uses`,
    [now, match.id, now],
  );
  if (!taken) return false;
  await sql.run("UPDATE approvals SET standing_approval_id = ?, approve_count = ? WHERE id = ?", [match.id, who.approvers.length, approval.id]);
  recordAudit({
    type: "standing.applied",
    actor: "system",
    approvalId: approval.id,
    data: { standing: match.id, service: ctx.serviceSlug, tool: approval.tool, uses: Number(taken.uses), approved_by: who.approvers },
  });
  const decided = await finalizeApproval(sql, approval.id, "approved", {
    decidedBy: who.approvers,
    decidedAt: now,
    actor: "system",
  });
  if (!decided) throw new Error("a new request left pending state in its own transaction");
  return true;
}

/**
 * The first of `matches` that may still decide the request decides it
 * (useStanding): its id, or null when none did. Its events are recorded
 * with the transaction's others (recordAudit), in order.
 */
export async function useFirstStanding(
  sql: Sql,
  approval: IngestedRow,
  matches: readonly StandingMatch[],
  ctx: { serviceSlug: string; policy: PolicyRule },
): Promise<string | null> {
  for (const match of matches) if (await useStanding(sql, approval, match, ctx)) return match.id;
  return null;
}
