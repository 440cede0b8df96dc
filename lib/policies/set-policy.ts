// `policy set` and the admin page's Save: create a policy, or replace the one
// with that name (docs/operations.md). New requests get the new rule; pending
// requests keep the snapshot taken when they arrived.
import "server-only";
import { inTransaction } from "../db/transaction";
import { appendAuditEvent } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { auditDataOf, findPolicyRow, viewOf, writePolicyRow, type PolicyView } from "./policy-rows";
import { assertPoliciesEditable } from "./policy-source";
import { policyInputSchema, type PolicyInput } from "./schemas";

class StaleRead extends Error {}

export async function setPolicy(input: PolicyInput, actor: Actor): Promise<{ change: "created" | "replaced"; policy: PolicyView }> {
  assertPoliciesEditable();
  const p = policyInputSchema.parse(input);
  for (let attempt = 0; ; attempt++) {
    try {
      return await inTransaction(async (tx) => {
        // The event says "created" or "replaced", so look first; the append
        // then takes the chain's head lock, and a second look (now
        // serialized with other writers) must agree, or we start over.
        const guess = await findPolicyRow(tx, p.name);
        const change = guess ? "replaced" : "created";
        const event = await appendAuditEvent(tx, { type: "policy.changed", actor, data: auditDataOf(p, change) });
        const existing = await findPolicyRow(tx, p.name);
        if (Boolean(existing) !== Boolean(guess)) throw new StaleRead();
        await writePolicyRow(tx, p, existing, event.seq);
        return { change, policy: viewOf((await findPolicyRow(tx, p.name))!) };
      });
    } catch (e) {
      if (!(e instanceof StaleRead) || attempt >= 3) throw e;
    }
  }
}
