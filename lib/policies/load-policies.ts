import "server-only";
import { z } from "zod";
import { asBool, type Sql } from "../db/sql";
import { EFFECTS, type PolicyRule } from "./match-policy";

const rolesJson = z.string().transform((s, ctx) => {
  const parsed = z.array(z.string()).safeParse(JSON.parse(s));
  if (!parsed.success) {
    ctx.addIssue({ code: "custom", message: "stored roles are not a list of strings" });
    return z.NEVER;
  }
  return parsed.data;
});

const fractionsJson = z.string().transform((s, ctx) => {
  const parsed = z.array(z.number()).safeParse(JSON.parse(s));
  if (!parsed.success) {
    ctx.addIssue({ code: "custom", message: "stored reminders are not a list of numbers" });
    return z.NEVER;
  }
  return parsed.data;
});

type PolicyRow = {
  name: string;
  serviceSlug: string | null;
  toolPattern: string;
  effects: string | null;
  roles: string;
  quorum: number;
  ttlSeconds: number;
  priority: number;
  isDefault: boolean;
  remindAt: string;
  escalateAfterSeconds: number | null;
  escalateToRoles: string;
  slackChannel: string | null;
  standingMaxTtlSeconds: number;
  requirePasskey: boolean;
  minReviewSeconds: number;
  requireFullView: boolean;
  version: number;
};

/** A stored policy row as the matcher's rule. */
export function ruleFromRow(r: PolicyRow): PolicyRule {
  return {
    name: r.name,
    serviceSlug: r.serviceSlug,
    toolPattern: r.toolPattern,
    effects: z.enum(EFFECTS).nullable().parse(r.effects),
    roles: rolesJson.parse(r.roles),
    quorum: r.quorum,
    ttlSeconds: r.ttlSeconds,
    priority: r.priority,
    isDefault: r.isDefault,
    remindAt: fractionsJson.parse(r.remindAt),
    escalateAfterSeconds: r.escalateAfterSeconds,
    escalateToRoles: rolesJson.parse(r.escalateToRoles),
    slackChannel: r.slackChannel,
    standingMaxTtlSeconds: r.standingMaxTtlSeconds,
    requirePasskey: r.requirePasskey,
    minReviewSeconds: r.minReviewSeconds,
    requireFullView: r.requireFullView,
    version: r.version,
  };
}

// Parsed again only when the stored rows change (every webhook asks).
let cache: { key: string; rules: PolicyRule[] } | undefined;

export async function loadPolicies(sql: Sql): Promise<PolicyRule[]> {
  const rows = await sql.all<Record<string, unknown>>(
    `SELECT name, service_slug, tool_pattern, effects, roles, quorum, ttl_seconds, priority, is_default, remind_at,
            escalate_after_seconds, escalate_to_roles, slack_channel, standing_max_ttl, require_passkey,
            min_review_seconds, require_full_view, version
     FROM policies ORDER BY name ASC`,
  );
  const key = JSON.stringify(rows, (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v));
  if (cache?.key !== key) {
    const rules = rows.map((r) =>
      ruleFromRow({
        name: String(r.name),
        serviceSlug: r.service_slug === null ? null : String(r.service_slug),
        toolPattern: String(r.tool_pattern),
        effects: r.effects === null ? null : String(r.effects),
        roles: String(r.roles),
        quorum: Number(r.quorum),
        ttlSeconds: Number(r.ttl_seconds),
        priority: Number(r.priority),
        isDefault: asBool(r.is_default),
        remindAt: String(r.remind_at),
        escalateAfterSeconds: r.escalate_after_seconds === null ? null : Number(r.escalate_after_seconds),
        escalateToRoles: String(r.escalate_to_roles),
        slackChannel: r.slack_channel === null ? null : String(r.slack_channel),
        standingMaxTtlSeconds: Number(r.standing_max_ttl),
        requirePasskey: asBool(r.require_passkey),
        minReviewSeconds: Number(r.min_review_seconds),
        requireFullView: asBool(r.require_full_view),
        version: Number(r.version),
      }),
    );
    cache = { key, rules };
  }
  return [...cache.rules]; // the rules are shared, never changed; the list is the caller's
}
