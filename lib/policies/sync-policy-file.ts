// At start-up with POLICY_FILE set: make the policies table equal the file,
// in one audited transaction. Policies not in the file are deleted; without a
// "default" entry the default policy returns to its baseline. Run by every
// instance at start; a second instance finds nothing left to change.
import "server-only";
import { db, type Tx } from "../db/client";
import { inTransaction } from "../db/transaction";
import { appendAuditEvent, holdAuditHead, recordAudit } from "../audit/append-event";
import { DEFAULT_POLICY } from "./default-policy";
import { auditDataOf, definitionOf, sameDefinition, writePolicyRow } from "./policy-rows";
import { ruleFromRow } from "./load-policies";
import type { PolicyFile } from "./policy-file";
import { DEFAULT_POLICY_NAME, type PolicyDefinition } from "./schemas";
import { fileMappingNotes } from "./reachability";

export type SyncResult = { created: string[]; replaced: string[]; deleted: string[]; unchanged: string[] };

const SOURCE = "policy-file";

/** The policies the file makes the table hold: its own, and the default's baseline unless it has a "default". */
export function desiredPolicies(file: Pick<PolicyFile, "policies">): PolicyDefinition[] {
  if (file.policies.some((p) => p.name === DEFAULT_POLICY_NAME)) return file.policies;
  // Priority 0 in the audit record, as before (the default's priority is never compared or written).
  const baseline: PolicyDefinition = { ...DEFAULT_POLICY, priority: 0 };
  return [...file.policies, baseline];
}

/**
 * The file's group mappings whose role none of its policies uses: not
 * refused (the file is the deployment's own), named by start-up and `policy check`.
 */
export function policyFileNotes(file: Pick<PolicyFile, "policies" | "groups">): string[] {
  return fileMappingNotes(desiredPolicies(file), file.groups);
}

async function plan(tx: Tx, desired: PolicyDefinition[]) {
  const rows = await tx.policy.findMany();
  const byName = new Map(rows.map((r) => [r.name, r]));
  const wanted = new Set(desired.map((p) => p.name));
  const result: SyncResult = { created: [], replaced: [], deleted: [], unchanged: [] };
  const writes: Array<{ p: PolicyDefinition; row: (typeof rows)[number] | null }> = [];
  for (const p of desired) {
    const row = byName.get(p.name) ?? null;
    if (row && sameDefinition(definitionOf(ruleFromRow(row)), p, row.isDefault)) {
      result.unchanged.push(p.name);
      continue;
    }
    (row ? result.replaced : result.created).push(p.name);
    writes.push({ p, row });
  }
  const deletes = rows.filter((r) => !r.isDefault && !wanted.has(r.name));
  result.deleted = deletes.map((r) => r.name);
  return { result, writes, deletes };
}

export async function syncPolicyFile(file: PolicyFile): Promise<SyncResult> {
  const desired = desiredPolicies(file);
  const first = await plan(db(), desired);
  if (first.writes.length === 0 && first.deletes.length === 0) return first.result;
  return inTransaction(async (tx) => {
    // Takes the head lock first; the plan is then made again on current rows.
    await holdAuditHead(tx);
    recordAudit({
      type: "policy.changed",
      actor: "system",
      data: { source: SOURCE, change: "synced", file_digest: file.digest, policies: desired.length },
    });
    const { result, writes, deletes } = await plan(tx, desired);
    for (const { p, row } of writes) {
      const event = await appendAuditEvent(tx, {
        type: "policy.changed",
        actor: "system",
        data: auditDataOf(p, row ? "replaced" : "created", SOURCE),
      });
      await writePolicyRow(tx, p, row, event.seq);
    }
    for (const row of deletes) {
      await tx.policy.delete({ where: { id: row.id } });
      recordAudit({
        type: "policy.changed",
        actor: "system",
        data: { policy: row.name, change: "deleted", source: SOURCE },
      });
    }
    return result;
  });
}
