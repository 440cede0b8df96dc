import "server-only";
import bcrypt from "bcryptjs";
import pLimit from "p-limit";

export const PASSWORD_HASH_COST = 11;
const COST = PASSWORD_HASH_COST;
// Compared against when the email is unknown, so a wrong email costs the same
// time as a wrong password and the answer reveals nothing. A fixed hash of a
// random password nobody kept, at the same cost: a comparison's time depends
// on the cost the hash names, and no process pays for a hash when it loads.
export const DUMMY_HASH = "$2b$11$KGcSKcB3FYWDzDMN6mCHme77bHQ3SFIynMpybBgu3Kiki3L/78zkS";

// bcryptjs runs on the event loop in ~100 ms slices: more checks at once add
// no throughput, and every other request waits for a slice of each. One runs
// at a time, a bounded number wait, and the rest are turned away (the caller
// answers rate-limited) instead of queueing without end.
export const PASSWORD_CHECKS_AT_ONCE = 1;
export const PASSWORD_CHECKS_WAITING = 16;
const checks = pLimit(PASSWORD_CHECKS_AT_ONCE);

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, COST);
}

/** true/false, or "busy" when too many checks are already waiting (nothing was compared). */
export async function verifyPassword(password: string, hash: string | null | undefined): Promise<boolean | "busy"> {
  if (checks.pendingCount >= PASSWORD_CHECKS_WAITING) return "busy";
  const ok = await checks(() => bcrypt.compare(password, hash ?? DUMMY_HASH));
  return ok && hash != null;
}
