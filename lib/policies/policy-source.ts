// Where policies come from: the admin page and CLI, or POLICY_FILE. With a
// policy file the file is the only source (synced in at start-up), and every
// other edit is refused, so the running rules are always the file's.
import "server-only";
import { env } from "../env";
import { AppError } from "../errors";

export function policyFileInUse(): string | null {
  return env().POLICY_FILE ?? null;
}

export function assertPoliciesEditable(): void {
  const file = policyFileInUse();
  if (file) {
    throw new AppError("conflict", `policies are managed by the policy file (POLICY_FILE=${file}): edit that file and restart Countersign`);
  }
}
