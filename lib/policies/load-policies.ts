import "server-only";
import { z } from "zod";
import type { Tx } from "../db/client";
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
  };
}

export async function loadPolicies(tx: Tx): Promise<PolicyRule[]> {
  const rows = await tx.policy.findMany({ orderBy: { name: "asc" } });
  return rows.map(ruleFromRow);
}
