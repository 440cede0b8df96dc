/**
 * The call id of a revision. Countersign keeps one request per (run, call),
 * so a revision needs a new call id; deriving it from the original one (and
 * the revision's place in the chain) lets an executor that asks again find
 * the same revision instead of opening another. The Python client derives
 * the same ids.
 */
import { createHash } from "node:crypto";

/** The longest call id Countersign accepts, counted as it counts (UTF-16 code units). */
const MAX_CALL_ID = 200;
/** How much of a long original id a shortened revision id keeps. */
const KEPT = 150;

/**
 * The k-th revision's call id (k = 1, 2, … along the chain): `<call id>~rev<k>`,
 * or, when that is longer than 200, the first 150 characters of the call id,
 * `~rev<k>~` and the first 16 hex digits of the SHA-256 of the whole call id
 * (UTF-8), so long ids that share a beginning still differ.
 */
export function revisionCallId(originalCallId: string, k: number): string {
  if (!Number.isInteger(k) || k < 1) throw new RangeError("a revision's number is a whole number from 1");
  const plain = `${originalCallId}~rev${k}`;
  if (plain.length <= MAX_CALL_ID) return plain;
  const hash = createHash("sha256").update(originalCallId, "utf8").digest("hex").slice(0, 16);
  return `${keepStart(originalCallId, KEPT)}~rev${k}~${hash}`;
}

/** The first `units` UTF-16 code units, one fewer rather than half a surrogate pair. */
function keepStart(text: string, units: number): string {
  const cut = text.slice(0, units);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}
