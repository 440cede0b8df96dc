// Counting refusals while the app's background flush moves them from
// refusal_tallies into audit events: one SQL statement (one snapshot on both
// databases) reads the unflushed counts, the flushed events since a sequence
// number, and the chain head. Refusals between two snapshots =
// (tallies + events after the first head) now − tallies then.
import type { Db } from "@/lib/db/client";

export type RefusalFilter = { kind: string; subject: string; reason: string };
export type RefusalSnapshot = { head: number; pending: number; flushed: number; events: Array<Record<string, unknown>> };

export async function refusalSnapshot(db: Db, f: RefusalFilter, sinceSeq = 2_147_483_647): Promise<RefusalSnapshot> {
  const rows = await db.$queryRaw<Array<{ src: string; v: string }>>`
    SELECT 'tally' AS src, CAST(count AS TEXT) AS v FROM refusal_tallies WHERE kind = ${f.kind} AND subject = ${f.subject} AND reason = ${f.reason}
    UNION ALL
    SELECT 'event' AS src, data AS v FROM audit_events WHERE type = ${f.kind} AND seq > ${sinceSeq}
    UNION ALL
    SELECT 'head' AS src, CAST(seq AS TEXT) AS v FROM audit_head WHERE id = 1`;
  let head = 0;
  let pending = 0;
  const events: Array<Record<string, unknown>> = [];
  for (const r of rows) {
    if (r.src === "head") head = Number(r.v);
    else if (r.src === "tally") pending += Number(r.v);
    else {
      const data = JSON.parse(r.v) as Record<string, unknown>;
      const subject = f.kind === "webhook.rejected" ? data.service : "(sign-in)";
      if (subject === f.subject && data.reason === f.reason) events.push(data);
    }
  }
  return { head, pending, flushed: events.reduce((n, e) => n + Number(e.count), 0), events };
}

/** How many refusals matching `f` were counted since `before` was taken. */
export async function refusalsSince(db: Db, f: RefusalFilter, before: RefusalSnapshot): Promise<{ count: number; after: RefusalSnapshot }> {
  const after = await refusalSnapshot(db, f, before.head);
  return { count: after.pending + after.flushed - before.pending, after };
}
