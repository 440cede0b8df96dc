// Expiry (docs/architecture.md): a pending request past expires_at becomes expired,
// with its audit event and callback, by the sweeper or by whoever touches it
// first. decided_at is the moment it expired.
import "server-only";
import { db } from "../db/client";
import { inTransaction, type Unit } from "../db/transaction";
import { emitLocalChange } from "./changes";
import { finalizeApproval } from "./finalize";

export async function expireIfDue(tx: Unit, a: { id: string; status: string; expiresAt: Date }, now = new Date()): Promise<boolean> {
  if (a.status !== "pending" || a.expiresAt.getTime() > now.getTime()) return false;
  return finalizeApproval(tx, a.id, "expired", {
    decidedBy: [],
    decidedAt: a.expiresAt,
    actor: "system",
    requireExpired: true,
  });
}

/** Marks up to `batch` overdue requests expired; returns how many it marked. */
export async function sweepExpired(batch = 100): Promise<number> {
  const due = await db().approval.findMany({
    where: { status: "pending", expiresAt: { lte: new Date() } },
    orderBy: { expiresAt: "asc" },
    take: batch,
    select: { id: true, status: true, expiresAt: true },
  });
  let marked = 0;
  for (const a of due) {
    // One transaction each: the conditional update makes racing sweepers on
    // several instances harmless (only one marks it).
    if (await inTransaction((tx) => expireIfDue(tx, a))) {
      marked++;
      emitLocalChange(a.id);
    }
  }
  return marked;
}
