// Requests stored before requester keys existed get theirs once, at start-up
// (prepareDatabase). Idempotent and safe for several instances at once: only
// rows still without a key are touched, and every instance computes the same
// key. Batches keep each transaction short on a large table.
import "server-only";
import { inTransaction } from "../db/transaction";
import { requesterKey } from "./requester-key";

const BATCH = 500;

/** Fills approvals.requester_key where requested_by is set; returns the number of rows keyed. */
export async function backfillRequesterKeys(batch = BATCH): Promise<number> {
  let keyed = 0;
  for (;;) {
    const done = await inTransaction(async (tx) => {
      const rows = await tx.approval.findMany({
        where: { requestedBy: { not: null }, requesterKey: null },
        select: { id: true, requestedBy: true },
        orderBy: { id: "asc" },
        take: batch,
      });
      for (const r of rows) {
        await tx.approval.updateMany({ where: { id: r.id, requesterKey: null }, data: { requesterKey: requesterKey(r.requestedBy!) } });
      }
      return rows.length;
    });
    keyed += done;
    // requesterKey() is total, so every row read was keyed: a short batch is the last.
    if (done < batch) return keyed;
  }
}
