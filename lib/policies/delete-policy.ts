import "server-only";
import { inTransaction } from "../db/transaction";
import { holdAuditHead, recordAudit } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { AppError } from "../errors";
import { assertPoliciesEditable } from "./policy-source";
import { policyNameSchema } from "./schemas";

/** Deletes a policy by name. The default policy can be edited, never deleted. */
export async function deletePolicy(nameInput: string, actor: Actor): Promise<{ name: string; deleted: true }> {
  assertPoliciesEditable();
  const name = policyNameSchema.parse(nameInput);
  return inTransaction(async (tx) => {
    await holdAuditHead(tx);
    recordAudit({ type: "policy.changed", actor, data: { policy: name, change: "deleted" } });
    const row = await tx.policy.findUnique({ where: { name }, select: { id: true, isDefault: true } });
    if (!row) throw new AppError("not-found", `no policy named ${name}`);
    if (row.isDefault) throw new AppError("conflict", "the default policy can be edited but not deleted");
    await tx.policy.delete({ where: { id: row.id } });
    return { name, deleted: true as const };
  });
}
