import "server-only";
import { db, type Tx } from "../db/client";
import { viewOf, type PolicyView } from "./policy-rows";
import { policyFieldsOf } from "./schemas";

/** Every policy, the default last. */
export async function listPolicies(tx: Tx = db()): Promise<PolicyView[]> {
  const rows = await tx.policy.findMany({ orderBy: [{ isDefault: "asc" }, { name: "asc" }] });
  return rows.map(viewOf);
}

/** The command line's shape (the same field names as `policy set` and a policy file). */
export function policyJson(p: PolicyView) {
  return { ...policyFieldsOf(p), default: p.isDefault, updated_at: p.updatedAt.toISOString() };
}
