// Policies (docs/architecture.md): set, list, delete, which one matches, and the
// offline check of a policy file.
import { AppError } from "@/lib/errors";
import { setPolicy } from "@/lib/policies/set-policy";
import { deletePolicy } from "@/lib/policies/delete-policy";
import { listPolicies, policyJson } from "@/lib/policies/list-policies";
import { whichPolicy } from "@/lib/policies/which-policy";
import { PolicyFileError, readPolicyFile } from "@/lib/policies/policy-file";
import { policyFileNotes } from "@/lib/policies/sync-policy-file";
import { POLICY_FIELDS, splitRoles } from "@/lib/policies/schemas";
import { listStanding, revokeStanding } from "@/lib/standing/standing-approvals";
import { one, optional, switchFlag, withAnywayHint, type Command } from "./flags";

export const policyCommands: Record<string, Command> = {
  "policy set": {
    usage:
      "policy set --name N --tool GLOB [--service S] [--effects E] --roles R1,R2 --quorum Q --ttl SECONDS [--priority P] [--remind-at F1,F2] [--escalate-after SECONDS --escalate-to-roles R1,R2] [--slack-channel C|#name] [--standing-max-ttl SECONDS] [--require-passkey true|false] [--min-review-seconds SECONDS] [--require-full-view true|false] [--anyway]",
    // A field's flag is its name with dashes: remind_at → --remind-at. --anyway saves a policy nobody
    // could satisfy yet (lib/policies/reachability.ts).
    flags: [...POLICY_FIELDS.map((f) => f.replaceAll("_", "-")), "anyway"],
    run: async (f) => {
      const anyway = switchFlag(f, "anyway");
      const { change, policy, notes, overridden } = await withAnywayHint(() =>
        setPolicy(
          {
            name: one(f, "name"),
            tool: one(f, "tool"),
            service: optional(f, "service"),
            effects: optional(f, "effects"),
            roles: splitRoles(one(f, "roles")),
            quorum: one(f, "quorum"),
            ttl: one(f, "ttl"),
            priority: optional(f, "priority"),
            remind_at: optional(f, "remind-at"),
            escalate_after: optional(f, "escalate-after"),
            escalate_to_roles: optional(f, "escalate-to-roles"),
            slack_channel: optional(f, "slack-channel"),
            standing_max_ttl: optional(f, "standing-max-ttl"),
            require_passkey: optional(f, "require-passkey"),
            min_review_seconds: optional(f, "min-review-seconds"),
            require_full_view: optional(f, "require-full-view"),
          },
          "cli",
          { anyway },
        ),
      );
      return {
        change,
        policy: policyJson(policy),
        ...(overridden.length ? { saved_anyway: overridden.map((p) => p.message) } : {}),
        ...(notes.length ? { notes } : {}),
      };
    },
  },
  "policy list": {
    usage: "policy list",
    flags: [],
    run: async () => ({ policies: (await listPolicies()).map(policyJson) }),
  },
  "policy delete": {
    usage: "policy delete --name N",
    flags: ["name"],
    run: (f) => deletePolicy(one(f, "name"), "cli"),
  },
  "policy test": {
    usage: "policy test --service S --tool T [--effects E]",
    flags: ["service", "tool", "effects"],
    run: async (f) => {
      const answer = await whichPolicy({
        service: one(f, "service"),
        tool: one(f, "tool"),
        effects: optional(f, "effects"),
      });
      const p = answer.policy;
      return {
        ...answer.question,
        policy: {
          name: p.name,
          roles: p.roles,
          quorum: p.quorum,
          ttl: p.ttlSeconds,
          remind_at: p.remindAt,
          escalate_after: p.escalateAfterSeconds,
          escalate_to_roles: p.escalateToRoles,
          slack_channel: p.slackChannel,
          standing_max_ttl: p.standingMaxTtlSeconds,
          require_passkey: p.requirePasskey,
          min_review_seconds: p.minReviewSeconds,
          require_full_view: p.requireFullView,
          default: p.isDefault,
        },
        also_matching: answer.alsoMatching,
      };
    },
  },
  "policy check": {
    usage: "policy check FILE",
    flags: [],
    args: ["FILE"],
    offline: true,
    run: async (_f, [file]) => {
      try {
        const checked = readPolicyFile(file!);
        const notes = policyFileNotes(checked);
        return {
          ok: true,
          policies: checked.policies.length,
          ...(checked.groups.length ? { group_mappings: checked.groups.length } : {}),
          ...(notes.length ? { notes } : {}),
        };
      } catch (e) {
        if (e instanceof PolicyFileError) throw new AppError("invalid-request", e.message);
        throw e;
      }
    },
  },
};

/** Standing approvals (docs/standing-approvals.md): list them, revoke one. */
export const ruleCommands: Record<string, Command> = {
  "rule list": {
    usage: "rule list",
    flags: [],
    run: async () => ({
      rules: (await listStanding("cli")).map((s) => ({
        id: s.id,
        service: s.service,
        tool: s.tool,
        pins: s.pins,
        status: s.status,
        policy: s.policy,
        approved_by: s.approvedBy,
        quorum: s.quorum,
        uses: s.uses,
        max_uses: s.maxUses,
        last_used_at: s.lastUsedAt?.toISOString() ?? null,
        expires_at: s.expiresAt.toISOString(),
        source_approval: s.sourceApprovalId,
      })),
    }),
  },
  "rule revoke": {
    usage: "rule revoke --id ID",
    flags: ["id"],
    run: (f) => revokeStanding("cli", one(f, "id")),
  },
};
