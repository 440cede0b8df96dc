// Which policy governs a request (docs/architecture.md): policies match on service,
// tool glob and effects; the most specific match wins, then the lowest
// priority number, then the name. The default policy matches what nothing
// else does. Pure: callers pass the policies in.
import { z } from "zod";

export const EFFECTS = ["read", "write", "destructive"] as const;
export type Effects = (typeof EFFECTS)[number];

export const toolPatternSchema = z.string().regex(/^[A-Za-z0-9_.:*-]{1,200}$/, "must be a tool name or a glob using '*'");

export type PolicyRule = {
  name: string;
  serviceSlug: string | null;
  toolPattern: string;
  effects: Effects | null;
  roles: string[];
  quorum: number;
  ttlSeconds: number;
  priority: number;
  isDefault: boolean;
  /** Reminders, as fractions of the TTL (strictly increasing). */
  remindAt: number[];
  /** Seconds until escalation; null: none. */
  escalateAfterSeconds: number | null;
  /** The roles escalation adds to the request's required roles. */
  escalateToRoles: string[];
  /** The Slack channel that gets the requests it matches (null: none). */
  slackChannel: string | null;
  /** The longest a standing approval may live under it, in seconds (0: none allowed). */
  standingMaxTtlSeconds: number;
  /** Votes need a WebAuthn assertion (docs/passkeys.md). */
  requirePasskey: boolean;
  /** Least seconds between the page being served to a reviewer and their vote (0: off; docs/insights.md). */
  minReviewSeconds: number;
  /** A reviewer whose view of the arguments was truncated must open them in full before voting. */
  requireFullView: boolean;
  /** The audit sequence number of the change that set this definition (0: set before versions were kept). */
  version: number;
};

export type PolicySnapshot = Pick<
  PolicyRule,
  | "name"
  | "version"
  | "roles"
  | "quorum"
  | "ttlSeconds"
  | "remindAt"
  | "escalateAfterSeconds"
  | "escalateToRoles"
  | "slackChannel"
  | "requirePasskey"
  | "minReviewSeconds"
  | "requireFullView"
>;

export function globMatches(pattern: string, tool: string): boolean {
  // Linear-time glob: '*' matches any run of characters (dots included).
  const parts = pattern.split("*");
  if (parts.length === 1) return pattern === tool;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!tool.startsWith(first) || !tool.endsWith(last) || tool.length < first.length + last.length) return false;
  let at = first.length;
  const end = tool.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = tool.indexOf(middle, at);
    if (found < 0 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}

/**
 * Specificity as a tuple compared left to right: an exact tool name beats a
 * glob, a named service beats any service, more literal characters in the
 * glob beat fewer, and named effects beat any effects.
 */
function specificity(p: PolicyRule): number[] {
  const exactTool = p.toolPattern.includes("*") ? 0 : 1;
  const literal = p.toolPattern.replaceAll("*", "").length;
  return [exactTool, p.serviceSlug ? 1 : 0, literal, p.effects ? 1 : 0];
}

function compare(a: PolicyRule, b: PolicyRule): number {
  const sa = specificity(a);
  const sb = specificity(b);
  for (let i = 0; i < sa.length; i++) if (sa[i] !== sb[i]) return sb[i]! - sa[i]!;
  return a.priority - b.priority || a.name.localeCompare(b.name);
}

export type PolicyRequest = { service: string; tool: string; effects: Effects };

/** Every non-default policy that matches, the winner first. */
export function matchingPolicies(policies: readonly PolicyRule[], request: PolicyRequest): PolicyRule[] {
  return policies
    .filter(
      (p) =>
        !p.isDefault &&
        (p.serviceSlug === null || p.serviceSlug === request.service) &&
        (p.effects === null || p.effects === request.effects) &&
        globMatches(p.toolPattern, request.tool),
    )
    .sort(compare);
}

export function matchPolicy(policies: readonly PolicyRule[], request: PolicyRequest): PolicyRule {
  const best = matchingPolicies(policies, request)[0];
  if (best) return best;
  const fallback = policies.find((p) => p.isDefault);
  if (!fallback) throw new Error("no default policy (database baseline missing)");
  return fallback;
}
