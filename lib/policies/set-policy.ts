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
import { overriddenProblems, policyReachability, readRoleFacts, UnreachableError, type Problem } from "./reachability";

class StaleRead extends Error {}

export type SetPolicyResult = {
  change: "created" | "replaced";
  policy: PolicyView;
  /** Reachable, but worth knowing (reachability.ts). */
  notes: string[];
  /** What `anyway` saved it in spite of (empty when nothing was wrong). */
  overridden: Problem[];
};

/**
 * Saves a policy. One nobody could satisfy now (reachability.ts) is refused
 * with an UnreachableError, unless `anyway` (an admin preparing roles in
 * advance); then its policy.changed event records what was overridden.
 */
export async function setPolicy(input: PolicyInput, actor: Actor, options: { anyway?: boolean } = {}): Promise<SetPolicyResult> {
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
        const { problems, notes } = policyReachability(p, await readRoleFacts(tx));
        if (problems.length > 0 && !options.anyway) throw new UnreachableError("policy", problems);
        const data = auditDataOf(p, change);
        if (problems.length > 0) data.anyway = overriddenProblems(problems);
        const event = await appendAuditEvent(tx, { type: "policy.changed", actor, data });
        const existing = await findPolicyRow(tx, p.name);
        if (Boolean(existing) !== Boolean(guess)) throw new StaleRead();
        await writePolicyRow(tx, p, existing, event.seq);
        return { change, policy: viewOf((await findPolicyRow(tx, p.name))!), notes, overridden: problems };
      });
    } catch (e) {
      if (!(e instanceof StaleRead) || attempt >= 3) throw e;
    }
  }
}
