// The default policy: what governs a request no other policy matches. Every
// database holds it from start-up (lib/startup/prepare.ts), and a policy file
// without a "default" entry brings it back to this baseline.
import "server-only";
import { inTransaction } from "../db/transaction";
import { appendAuditEvent } from "../audit/append-event";
import { DEFAULT_POLICY_NAME, type PolicyDefinition } from "./schemas";
import { writePolicyRow } from "./policy-rows";

// The default's priority plays no part in matching (it matches what nothing else does).
export const DEFAULT_POLICY: PolicyDefinition = {
  name: DEFAULT_POLICY_NAME,
  tool: "*",
  service: null,
  effects: null,
  roles: ["reviewer"],
  quorum: 1,
  ttl: 3600,
  priority: 1_000_000,
  remind_at: [],
  escalate_after: null,
  escalate_to_roles: [],
  slack_channel: null,
  standing_max_ttl: 0,
  require_passkey: false,
  min_review_seconds: 0,
  require_full_view: false,
};

class DefaultPolicyRace extends Error {}

/** Creates the default policy unless there is one; safe for several instances starting at once. */
export async function ensureDefaultPolicy(): Promise<void> {
  await inTransaction(async (tx) => {
    // The audit append takes the head lock first, so two instances cannot
    // both see "no default" and both create one.
    if (await tx.policy.findFirst({ where: { isDefault: true }, select: { id: true } })) return;
    const event = await appendAuditEvent(tx, {
      type: "policy.changed",
      actor: "system",
      data: { policy: DEFAULT_POLICY.name, change: "created" },
    });
    if (await tx.policy.findFirst({ where: { isDefault: true }, select: { id: true } })) {
      throw new DefaultPolicyRace();
    }
    await writePolicyRow(tx, DEFAULT_POLICY, null, event.seq);
  }).catch((e) => {
    if (!(e instanceof DefaultPolicyRace)) throw e;
  });
}
