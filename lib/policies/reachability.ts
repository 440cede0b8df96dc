// Can anybody satisfy a policy, and does a role mean anything? The one rule
// behind the policy form, `policy set`, every way of giving a role (`role
// grant`, `user add --role`, `group map`, the users and groups pages), the
// policies page's "unreachable" list and the policy file's group mappings
// (docs/operations.md, Policies nobody can satisfy).
//
// A role is *known* when an enabled user holds it now (by hand, through a
// directory group, or time-bound and not yet ended: a role that ends soon
// still counts now), when a directory group is mapped to it (its members hold
// it from their next sign-in or SCIM update), or when the permission table
// names it (admin, auditor). A role some other policy names is not known for
// that alone: a typo copied into two policies is still a typo.
//
// A policy is *unreachable* when it names a role that is not known, or when
// its quorum is above the number of distinct enabled users holding any of its
// roles or escalation roles now (a request that waits for escalation can still
// be decided). When the quorum equals that number, the policy is reachable
// but tight: nobody approves a request they raised, so a request raised by one
// of them cannot reach its quorum; that is a note, not a refusal.
//
// A role is *used* when a policy requires it or escalates to it, or the
// permission table names it; granting a role nobody uses gives no one anything.
import "server-only";
import { db, type Tx } from "../db/client";
import { AppError } from "../errors";
import { PERMISSIONS } from "../auth/permissions";
import { inForceAt } from "../users/in-force";

/** Roles the permission table gives meaning to, whatever the policies say. */
export const PERMISSION_ROLES: ReadonlySet<string> = new Set(
  Object.values(PERMISSIONS).flatMap((needs): readonly string[] => (needs === "any" ? [] : needs)),
);

export type RoleFacts = {
  /** role → ids of the enabled users holding it now */
  holders: ReadonlyMap<string, ReadonlySet<string>>;
  /** roles a directory group is mapped to */
  mapped: ReadonlySet<string>;
  /** roles a policy requires or escalates to */
  used: ReadonlySet<string>;
};

export type PolicyRoles = { roles: readonly string[]; escalate_to_roles: readonly string[]; quorum: number };

export type Problem =
  | { code: "unknown-role"; role: string; message: string }
  | { code: "quorum-above-eligible"; quorum: number; eligible: number; message: string }
  | { code: "role-unused"; role: string; message: string };

export type Reachability = { problems: Problem[]; notes: string[] };

/** What the rules read, in one go: enabled holders of roles in force at `now`, group mappings, the policies' roles. */
export async function readRoleFacts(tx: Tx = db(), now = new Date()): Promise<RoleFacts> {
  const [held, mappings, policies] = await Promise.all([
    tx.userRole.findMany({ where: { user: { disabledAt: null }, ...inForceAt(now) }, select: { role: true, userId: true } }),
    tx.groupRoleMapping.findMany({ select: { role: true } }),
    tx.policy.findMany({ select: { roles: true, escalateToRoles: true } }),
  ]);
  const holders = new Map<string, Set<string>>();
  for (const r of held) holders.set(r.role, (holders.get(r.role) ?? new Set()).add(r.userId));
  const used = new Set<string>();
  for (const p of policies) for (const role of [...parseRoles(p.roles), ...parseRoles(p.escalateToRoles)]) used.add(role);
  return { holders, mapped: new Set(mappings.map((m) => m.role)), used };
}

function parseRoles(json: string): string[] {
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? value.filter((r): r is string => typeof r === "string") : [];
}

const quoted = (role: string) => `“${role}”`;
const people = (n: number) => (n === 1 ? "1 enabled person" : `${n} enabled people`);
const approvals = (n: number) => (n === 1 ? "1 approval" : `${n} approvals`);

function isKnown(role: string, facts: RoleFacts): boolean {
  return (facts.holders.get(role)?.size ?? 0) > 0 || facts.mapped.has(role) || PERMISSION_ROLES.has(role);
}

/** Why nobody could satisfy this policy now (problems), and what is worth knowing though it can be (notes). Pure. */
export function policyReachability(p: PolicyRoles, facts: RoleFacts): Reachability {
  const problems: Problem[] = [];
  const all = [...new Set([...p.roles, ...p.escalate_to_roles])];
  for (const role of all) {
    if (!isKnown(role, facts)) {
      problems.push({
        code: "unknown-role",
        role,
        message: `No enabled user holds the role ${quoted(role)} and no directory group is mapped to it: check its spelling, or grant it first.`,
      });
    }
  }
  const eligible = new Set(all.flatMap((role) => [...(facts.holders.get(role) ?? [])])).size;
  const who = all.map(quoted).join(" or ");
  const notes: string[] = [];
  if (p.quorum > eligible) {
    problems.push({
      code: "quorum-above-eligible",
      quorum: p.quorum,
      eligible,
      message:
        eligible === 0
          ? `It needs ${approvals(p.quorum)}, but no enabled user holds ${who}.`
          : `It needs ${approvals(p.quorum)}, but only ${people(eligible)} hold${eligible === 1 ? "s" : ""} ${who}.`,
    });
  } else if (p.quorum === eligible) {
    notes.push(
      `Only ${people(eligible)} hold${eligible === 1 ? "s" : ""} ${who}: a request raised by one of them cannot reach ${approvals(p.quorum)}, since nobody approves their own request.`,
    );
  }
  return { problems, notes };
}

/** Why granting this role gives nobody anything (no policy requires it or escalates to it). Pure. */
export function grantReachability(role: string, facts: RoleFacts): Reachability {
  if (facts.used.has(role) || PERMISSION_ROLES.has(role)) return { problems: [], notes: [] };
  return {
    problems: [
      {
        code: "role-unused",
        role,
        message: `No policy requires the role ${quoted(role)} or escalates to it, so holding it lets nobody review anything: check its spelling, or create the policy first.`,
      },
    ],
    notes: [],
  };
}

/**
 * The check every way of giving a role runs before it stores anything: a
 * hand grant, a new user's roles, a group mapping. Roles no policy uses are
 * refused (UnreachableError naming each) unless `anyway`; returns what
 * `anyway` overrode, for the change's audit event (empty when nothing was wrong).
 */
export async function refuseUnusedRoles(
  tx: Tx,
  what: Exclude<Change, "policy">,
  roles: readonly string[],
  anyway: boolean | undefined,
  now = new Date(),
): Promise<Problem[]> {
  const facts = await readRoleFacts(tx, now);
  const problems = [...new Set(roles)].flatMap((role) => grantReachability(role, facts).problems);
  if (problems.length > 0 && !anyway) throw new UnreachableError(what, problems);
  return problems;
}

/** The overridden problems of one role, as its event's `anyway` field (absent when none). */
export function overriddenFor(role: string, problems: readonly Problem[]): { anyway?: string[] } {
  const mine = problems.filter((p) => p.code === "role-unused" && p.role === role);
  return mine.length > 0 ? { anyway: overriddenProblems(mine) } : {};
}

/**
 * A policy file's group mappings whose role none of the file's policies uses
 * (with POLICY_FILE the file is the only source of policies): the same rule
 * as `group map`, read from the file alone, so `policy check` can run it
 * offline. The file is not refused for them; start-up and `policy check`
 * name them. Pure.
 */
export function fileMappingNotes(
  policies: ReadonlyArray<Pick<PolicyRoles, "roles" | "escalate_to_roles">>,
  groups: ReadonlyArray<{ group: string; role: string }>,
): string[] {
  const used = new Set(policies.flatMap((p) => [...p.roles, ...p.escalate_to_roles]));
  const facts: RoleFacts = { holders: new Map(), mapped: new Set(), used };
  return groups.flatMap(({ group, role }) => grantReachability(role, facts).problems.map((p) => `The group ${quoted(group)}: ${p.message}`));
}

/** The problems as the audit data of a change saved in spite of them (codes and roles, never free text). */
export function overriddenProblems(problems: readonly Problem[]): string[] {
  return problems.map((p) => (p.code === "quorum-above-eligible" ? `${p.code}:${p.quorum}>${p.eligible}` : `${p.code}:${p.role}`));
}

/** What a refused change was: a policy, a hand grant, a new user with roles, a group mapping. */
export type Change = "policy" | "grant" | "user" | "mapping";

const REFUSED: Record<Change, string> = {
  policy: "Not saved: nobody could satisfy this policy now.",
  grant: "Not granted: this role would give nobody anything.",
  user: "Not created: a role given to this user would give nobody anything.",
  mapping: "Not mapped: this role would give nobody anything.",
};

/**
 * The refusal of a change nobody could satisfy. Its message says why, in
 * plain words and without naming a surface's way round it: each surface adds
 * its own ("Save anyway" on the page, `--anyway` on the command line).
 */
export class UnreachableError extends AppError {
  readonly summary: string;
  constructor(
    readonly what: Change,
    readonly problems: Problem[],
  ) {
    const summary = REFUSED[what];
    super("invalid-request", `${summary} ${problems.map((p) => p.message).join(" ")}`);
    this.summary = summary;
  }
}
