// The one authority check (docs/security.md, "One rule on every
// path"): may this person decide this request now, under the policy as it is
// now? Every decision path asks it at the moment its decision takes effect,
// for every person it counts: a vote from the browser, Slack or a run's
// batch, a revision's carried vote, a passkey vote, proposing and approving a
// standing approval, and each use of one at ingest, where each of its
// approvers is asked again. Pure: callers read the person, the request and
// the policies inside their transaction and pass them in.
import type { ErrorCode } from "../errors";
import { personKeys, requesterKey } from "../identity/requester-key";
import { matchPolicy, type Effects, type PolicyRule } from "../policies/match-policy";

/**
 * Every path by which a decision is made. The parity test
 * (test/reviews/authority-parity.suite.ts) has one row per entry and fails
 * when a path has none: a new path adds itself here and its row there.
 */
export const DECISION_PATHS = ["browser", "slack", "batch", "revision", "passkey", "standing.propose", "standing.approve", "standing.apply"] as const;
export type DecisionPath = (typeof DECISION_PATHS)[number];

/** Who asked for a request: `requested_by` as sent, and its key (lib/identity) as stored at ingestion. */
export type RequesterFacts = {
  requestedBy: string | null;
  requesterKey: string | null;
};

/** A role as held: a time-bound one (role grant --until) until `expiresAt`, otherwise until revoked. */
export type HeldRole = { role: string; expiresAt: Date | null };

/** The roles in force at `now`: a time-bound role counts up to its end, not at it, swept or not. */
export function rolesInForce(roles: readonly HeldRole[], now: Date): string[] {
  return roles.filter((r) => r.expiresAt === null || r.expiresAt.getTime() > now.getTime()).map((r) => r.role);
}

/** A person as the check needs them, read now (roles and the disabled flag count at once). */
export type Person = {
  id: string;
  email: string;
  disabledAt: Date | null;
  roles: HeldRole[];
  identities: Array<{ email: string | null; subject: string }>;
};

/** What is decided: a request, or a standing approval (with its source request's requester). */
export type Subject = RequesterFacts & { status: string; expiresAt: Date };

/** The rules a decision is made under now (rulesNow). */
export type DecisionRules = {
  /** The policy that governs calls like this one now. */
  policy: string;
  /** The roles that may decide: the policy's, and its escalation roles only for an escalated request. */
  roles: string[];
  quorum: number;
  minReviewSeconds: number;
  requireFullView: boolean;
  requirePasskey: boolean;
};

export type Refusal = {
  ok: false;
  code: Extract<ErrorCode, "not-found" | "forbidden" | "expired" | "already-decided" | "self-review" | "not-eligible" | "already-reviewed">;
  message: string;
};
export type Eligibility = { ok: true } | Refusal;

/** What a request was promised when it arrived (its policy's snapshot), and whether it was escalated since. */
export type ArrivalRules = {
  quorum: number;
  minReviewSeconds: number;
  requireFullView: boolean;
  requirePasskey: boolean;
  escalated: boolean;
};

/**
 * The rules a request is decided under now: the roles of the policy that
 * governs calls like it now (a role the policy dropped no longer decides; an
 * escalation role only once the request was escalated), and the stricter of
 * that policy and the one it arrived under for everything else, so a change
 * never lowers what a waiting request needs.
 */
export function rulesNow(
  policies: readonly PolicyRule[],
  call: { service: string; tool: string; effects: string },
  arrival: ArrivalRules,
): DecisionRules {
  const policy = matchPolicy(policies, { service: call.service, tool: call.tool, effects: call.effects as Effects });
  const roles = arrival.escalated ? [...new Set([...policy.roles, ...policy.escalateToRoles])] : [...policy.roles];
  return {
    policy: policy.name,
    roles,
    quorum: Math.max(arrival.quorum, policy.quorum),
    minReviewSeconds: Math.max(arrival.minReviewSeconds, policy.minReviewSeconds),
    requireFullView: arrival.requireFullView || policy.requireFullView,
    requirePasskey: arrival.requirePasskey || policy.requirePasskey,
  };
}

/** rulesNow() for a stored request: its call, and what it was promised when it arrived. */
export function rulesOfRequest(
  policies: readonly PolicyRule[],
  a: {
    service: { slug: string };
    tool: string;
    effects: string;
    quorum: number;
    minReviewSeconds: number;
    requireFullView: boolean;
    requirePasskey: boolean;
    escalatedAt: Date | null;
  },
): DecisionRules {
  return rulesNow(policies, { service: a.service.slug, tool: a.tool, effects: a.effects }, { ...a, escalated: a.escalatedAt !== null });
}

/**
 * The requester (docs/security.md): the request's requester key equals the
 * key of the person's email, or of a linked identity's email or subject.
 * The key is also recomputed from `requested_by`, so a key stored by an older
 * version (or not yet backfilled) cannot let a requester through.
 */
export function isRequester(subject: RequesterFacts, person: Pick<Person, "email" | "identities">): boolean {
  const keys = [subject.requesterKey, subject.requestedBy === null ? null : requesterKey(subject.requestedBy)];
  if (keys.every((k) => k === null)) return false;
  const mine = personKeys(person);
  return keys.some((k) => k !== null && mine.includes(k));
}

/**
 * May this person decide this subject now, under these rules? The account is
 * enabled, the subject pending and unexpired, the person not its requester
 * under any spelling, and holding one of the roles that decide it now (a
 * time-bound role only before its end).
 */
export function mayDecide(person: Person | null, subject: Subject, rules: Pick<DecisionRules, "roles">, now: Date): Eligibility {
  if (!person || person.disabledAt) return ACCOUNT_REFUSAL;
  if (subject.status !== "pending") return { ok: false, code: "already-decided", message: `this request is already ${subject.status}` };
  if (subject.expiresAt.getTime() <= now.getTime()) return { ok: false, code: "expired", message: "this request has expired" };
  return personMayDecide(person, subject, rules, now);
}

const ACCOUNT_REFUSAL: Refusal = { ok: false, code: "forbidden", message: "your account cannot review" };

/**
 * mayDecide()'s part about the person, whatever state the subject is in:
 * for who may revoke a standing approval, or be told about a request.
 */
export function personMayDecide(person: Person | null, subject: RequesterFacts, rules: Pick<DecisionRules, "roles">, now: Date): Eligibility {
  if (!person || person.disabledAt) return ACCOUNT_REFUSAL;
  if (isRequester(subject, person)) return { ok: false, code: "self-review", message: "you requested this call, so you cannot review it" };
  if (!rolesInForce(person.roles, now).some((r) => rules.roles.includes(r))) {
    return { ok: false, code: "not-eligible", message: `this request needs one of these roles now: ${rules.roles.join(", ")}` };
  }
  return { ok: true };
}

/**
 * Which of these approvals still count (in the order given): each approver
 * asked again, now. A person unknown to the database (deleted) never counts.
 */
export function approversWhoCount(
  approvers: ReadonlyArray<{ id: string; person: Person | null }>,
  subject: Subject,
  rules: Pick<DecisionRules, "roles">,
  now: Date,
): { counted: Person[]; refused: Array<{ id: string; email: string | null; code: Refusal["code"] }> } {
  const counted: Person[] = [];
  const refused: Array<{ id: string; email: string | null; code: Refusal["code"] }> = [];
  for (const a of approvers) {
    const verdict = mayDecide(a.person, subject, rules, now);
    if (verdict.ok && a.person) counted.push(a.person);
    else refused.push({ id: a.id, email: a.person?.email ?? null, code: verdict.ok ? "forbidden" : verdict.code });
  }
  return { counted, refused };
}
