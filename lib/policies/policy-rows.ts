// Between a policy definition (schemas.ts) and its stored row: writing one,
// comparing one, and the audit data that records one. Callers hold the
// audit head lock (they took it, or appended an event, first in the same transaction).
import "server-only";
import type { Tx } from "../db/client";
import type { AuditData } from "../audit/events";
import { newId } from "../ids";
import { ruleFromRow } from "./load-policies";
import type { PolicyRule } from "./match-policy";
import { DEFAULT_POLICY_NAME, POLICY_FIELDS, type PolicyDefinition } from "./schemas";

export type PolicyView = PolicyDefinition & { isDefault: boolean; updatedAt: Date; version: number };

export function definitionOf(rule: PolicyRule): PolicyDefinition {
  return {
    name: rule.name,
    tool: rule.toolPattern,
    service: rule.serviceSlug,
    effects: rule.effects,
    roles: rule.roles,
    quorum: rule.quorum,
    ttl: rule.ttlSeconds,
    priority: rule.priority,
    remind_at: rule.remindAt,
    escalate_after: rule.escalateAfterSeconds,
    escalate_to_roles: rule.escalateToRoles,
    slack_channel: rule.slackChannel,
    standing_max_ttl: rule.standingMaxTtlSeconds,
    require_passkey: rule.requirePasskey,
    min_review_seconds: rule.minReviewSeconds,
    require_full_view: rule.requireFullView,
  };
}

type Row = Parameters<typeof ruleFromRow>[0] & { id: string; updatedAt: Date };

export function viewOf(row: Row): PolicyView {
  return { ...definitionOf(ruleFromRow(row)), isDefault: row.isDefault, updatedAt: row.updatedAt, version: row.version };
}

/** Same rule? The default policy's priority plays no part in matching, so it is not compared. */
export function sameDefinition(a: PolicyDefinition, b: PolicyDefinition, isDefault: boolean): boolean {
  return POLICY_FIELDS.every((f) => (f === "priority" && isDefault) || JSON.stringify(a[f]) === JSON.stringify(b[f]));
}

export function auditDataOf(p: PolicyDefinition, change: "created" | "replaced" | "deleted", source?: string): AuditData {
  const data: AuditData = { policy: p.name, change };
  if (change !== "deleted") {
    for (const f of POLICY_FIELDS) {
      if (f === "name") continue;
      // Audit data holds strings, not number lists: reminders as typed on the command line.
      const value = p[f];
      data[f] = f === "remind_at" ? p.remind_at.join(",") : (value as Exclude<typeof value, number[]>);
    }
  }
  if (source) data.source = source;
  return data;
}

export async function findPolicyRow(tx: Tx, name: string) {
  return tx.policy.findUnique({ where: { name } });
}

/**
 * Creates the row, or replaces the existing one's rule (the default keeps its
 * match-all shape and priority). `version` is the sequence number of the
 * policy.changed event the caller appended for this change.
 */
export async function writePolicyRow(
  tx: Tx,
  p: PolicyDefinition,
  existing: { id: string; isDefault: boolean } | null,
  version: number,
): Promise<void> {
  const rule = {
    serviceSlug: p.service,
    toolPattern: p.tool,
    effects: p.effects,
    roles: JSON.stringify(p.roles),
    quorum: p.quorum,
    ttlSeconds: p.ttl,
    remindAt: JSON.stringify(p.remind_at),
    escalateAfterSeconds: p.escalate_after,
    escalateToRoles: JSON.stringify(p.escalate_to_roles),
    slackChannel: p.slack_channel,
    standingMaxTtlSeconds: p.standing_max_ttl,
    requirePasskey: p.require_passkey,
    minReviewSeconds: p.min_review_seconds,
    requireFullView: p.require_full_view,
    version,
  };
  if (!existing) {
    await tx.policy.create({
      data: { id: newId("pol"), name: p.name, ...rule, priority: p.priority, isDefault: p.name === DEFAULT_POLICY_NAME },
    });
  } else if (existing.isDefault) {
    await tx.policy.update({
      where: { id: existing.id },
      data: {
        roles: rule.roles,
        quorum: rule.quorum,
        ttlSeconds: rule.ttlSeconds,
        remindAt: rule.remindAt,
        escalateAfterSeconds: rule.escalateAfterSeconds,
        escalateToRoles: rule.escalateToRoles,
        slackChannel: rule.slackChannel,
        standingMaxTtlSeconds: rule.standingMaxTtlSeconds,
        requirePasskey: rule.requirePasskey,
        minReviewSeconds: rule.minReviewSeconds,
        requireFullView: rule.requireFullView,
        version,
      },
    });
  } else {
    await tx.policy.update({ where: { id: existing.id }, data: { ...rule, priority: p.priority } });
  }
}
