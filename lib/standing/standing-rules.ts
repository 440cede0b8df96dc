// The rules every reviewer's action on a standing approval is decided under
// (standing-approvals.ts proposes, approves and revokes; list-standing.ts
// says who may): the policy that governs calls like its source request now,
// the one authority check with the pace rules measured on the source's page,
// and the lock a decision on it takes.
import "server-only";
import { z } from "zod";
import type { Tx } from "../db/client";
import type { Unit } from "../db/transaction";
import { AppError, issuesOf } from "../errors";
import { matchPolicy, type PolicyRule } from "../policies/match-policy";
import { mayDecide, personMayDecide, rulesNow, type DecisionRules, type Person, type RequesterFacts, type Subject } from "../reviews/authority";
import { readReviewView, paceRefusal } from "../reviews/review-views";

/** The source request as the rules need it: its call, requester, status, expiry and policy snapshot. */
export type SourceFacts = RequesterFacts & {
  id: string;
  tool: string;
  effects: string;
  policyName: string;
  status: string;
  expiresAt: Date;
  quorum: number;
  minReviewSeconds: number;
  requireFullView: boolean;
  requirePasskey: boolean;
  service: { slug: string };
};

/**
 * The rules a standing approval from this source is decided under now: the
 * policy that governs calls like it now, as for a request that was never
 * escalated (a standing approval decides new requests, which are not), and
 * at least the quorum it was proposed under.
 */
export function standingRules(policies: PolicyRule[], source: SourceFacts, proposedQuorum = 0): DecisionRules {
  return rulesNow(
    policies,
    { service: source.service.slug, tool: source.tool, effects: source.effects },
    { ...source, quorum: Math.max(source.quorum, proposedQuorum), escalated: false },
  );
}

/** Throws the refusal when the person may not decide this now, or when the policy's pace rules are not met on the source's page. */
export async function assertMayDecide(tx: Unit, person: Person | null, subject: Subject, source: SourceFacts, rules: DecisionRules, now: Date) {
  const verdict = mayDecide(person, subject, rules, now);
  if (!verdict.ok) throw new AppError(verdict.code, verdict.message);
  if (rules.minReviewSeconds > 0 || rules.requireFullView) {
    const refusal = paceRefusal(rules, await readReviewView(tx, source.id, person!.id), now, null);
    if (refusal) throw new AppError(refusal.code, `${refusal.message} (on the page of the request it was proposed from)`);
  }
}

/** One of its reviewers now (the person part of the check): who may revoke it, and approve it while it is proposed. */
export function isItsReviewer(person: Person | null, s: RequesterFacts, rules: DecisionRules | null, now: Date): boolean {
  return rules !== null && personMayDecide(person, s, rules, now).ok;
}

/** The policy that governs requests like this one now: the request's own, or null if another now matches. */
export function currentPolicy(policies: PolicyRule[], a: { policyName: string; tool: string; effects: string }, service: string): PolicyRule | null {
  const p = matchPolicy(policies, { service, tool: a.tool, effects: a.effects as "read" | "write" | "destructive" });
  return p.name === a.policyName ? p : null;
}

export const PASSKEY_REFUSAL = (policy: string) =>
  `policy ${policy} requires a passkey for every vote: a standing approval cannot carry one, so none can be created, approved or applied under it`;

export async function lockStanding(tx: Tx, id: string) {
  await tx.$executeRaw`UPDATE standing_approvals SET approve_count = approve_count WHERE id = ${id}`;
  return tx.standingApproval.findUnique({ where: { id }, include: { votes: { select: { reviewerId: true } } } });
}

export function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new AppError("invalid-request", `${first?.path.join(".") || "input"}: ${first?.message ?? "invalid"}`, { issues: issuesOf(parsed.error) });
  }
  return parsed.data;
}

/** The source request's columns standingRules() needs. */
export const SOURCE_SELECT = {
  id: true,
  tool: true,
  effects: true,
  policyName: true,
  status: true,
  expiresAt: true,
  quorum: true,
  minReviewSeconds: true,
  requireFullView: true,
  requirePasskey: true,
  requestedBy: true,
  requesterKey: true,
  service: { select: { slug: true } },
} as const;

export async function sourceOf(tx: Tx, s: { sourceApprovalId: string }): Promise<SourceFacts | null> {
  return tx.approval.findUnique({ where: { id: s.sourceApprovalId }, select: SOURCE_SELECT });
}
