import "server-only";
import bcrypt from "bcryptjs";

const COST = 11;
// Compared against when the email is unknown, so a wrong email costs the same
// time as a wrong password and the answer reveals nothing.
const DUMMY_HASH = bcrypt.hashSync("countersign-timing-equaliser", COST);

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, COST);
}

export async function verifyPassword(password: string, hash: string | null | undefined): Promise<boolean> {
  const ok = await bcrypt.compare(password, hash ?? DUMMY_HASH);
  return ok && hash != null;
}
