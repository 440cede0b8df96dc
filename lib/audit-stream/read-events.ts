// The audit events after a sink's cursor, in seq order, read straight from
// the chain: what a sink is sent is exactly what audit_events holds.
import "server-only";
import { asDate, type Sql } from "../db/sql";
import type { StreamEvent } from "./sink";

type Row = {
  seq: unknown;
  id: string;
  at: unknown;
  type: string;
  actor: string;
  approval_id: string | null;
  data: string;
  prev_hash: string;
  hash: string;
};

/** Up to `limit` events with seq > `after`, oldest first. */
export async function eventsAfter(sql: Sql, after: number, limit: number): Promise<StreamEvent[]> {
  const rows = await sql.all<Row>(
    "SELECT seq, id, at, type, actor, approval_id, data, prev_hash, hash FROM audit_events WHERE seq > ? ORDER BY seq LIMIT ?",
    [after, limit],
  );
  return rows.map((r) => ({
    seq: Number(r.seq),
    id: r.id,
    at: asDate(r.at).toISOString(),
    type: r.type,
    actor: r.actor,
    approvalId: r.approval_id,
    data: JSON.parse(r.data) as Record<string, unknown>,
    prevHash: r.prev_hash,
    hash: r.hash,
  }));
}

/** The chain's last seq (0 when it is empty). */
export async function headSeq(sql: Sql): Promise<number> {
  const [row] = await sql.all<{ seq: unknown }>("SELECT MAX(seq) AS seq FROM audit_events");
  return row?.seq == null ? 0 : Number(row.seq);
}
