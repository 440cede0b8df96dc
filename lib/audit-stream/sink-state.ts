// Each sink's row in audit_sinks: its cursor (the last seq it accepted), the
// last send and the last failure's class, and its lease: a named lease
// (lib/outbox/lease.ts), so one instance at a time sends to a sink. The
// cursor moves only under the lease and only forward from where the holder
// read it.
import "server-only";
import { asDateOrNull, type Sql } from "../db/sql";
import { holdNamedLease, type NamedLeaseTable } from "../outbox/lease";
import type { SinkName } from "./sink";

/** How long a lease lasts without renewal; each accepted batch renews it, and a pass hands it back when done. */
export const SINK_LEASE_MS = 60_000;
const AUDIT_SINKS: NamedLeaseTable = { table: "audit_sinks", until: "lease_until", newRow: { sent_seq: 0 }, returning: "sent_seq" };

/** Takes or renews `sink`'s lease for `holder`; its cursor if it holds it now, null if another instance does. */
export async function takeSinkLease(sql: Sql, sink: SinkName, holder: string, now: Date): Promise<number | null> {
  const row = await holdNamedLease(sql, AUDIT_SINKS, sink, holder, now, SINK_LEASE_MS);
  return row ? Number(row.sent_seq) : null;
}

/** Moves the cursor from `from` to `to` and renews the lease; false if the lease was lost (another instance took over). */
export async function advanceCursor(sql: Sql, sink: SinkName, holder: string, from: number, to: number, now: Date): Promise<boolean> {
  const n = await sql.run(
    `UPDATE audit_sinks SET sent_seq = ?, last_sent_at = ?, last_error_class = NULL, lease_until = ?
     WHERE name = ? AND holder = ? AND sent_seq = ?`,
    [to, now, new Date(now.getTime() + SINK_LEASE_MS), sink, holder, from],
  );
  return n === 1;
}

/** Records a failed send (its class only) and hands the lease back: the next pass tries again from the same cursor. */
export async function recordSinkFailure(sql: Sql, sink: SinkName, holder: string, errorClass: string, now: Date): Promise<void> {
  await sql.run("UPDATE audit_sinks SET last_error_class = ?, last_error_at = ?, holder = NULL, lease_until = NULL WHERE name = ? AND holder = ?", [
    errorClass,
    now,
    sink,
    holder,
  ]);
}

/** Hands `holder`'s lease on `sink` (or on every sink) back. */
export async function releaseSinkLease(sql: Sql, holder: string, sink?: SinkName): Promise<void> {
  if (sink) await sql.run("UPDATE audit_sinks SET holder = NULL, lease_until = NULL WHERE name = ? AND holder = ?", [sink, holder]);
  else await sql.run("UPDATE audit_sinks SET holder = NULL, lease_until = NULL WHERE holder = ?", [holder]);
}

export type SinkRow = { name: string; sentSeq: number; lastSentAt: Date | null; lastErrorClass: string | null; lastErrorAt: Date | null };

export async function sinkRows(sql: Sql): Promise<SinkRow[]> {
  const rows = await sql.all<Record<string, unknown>>(
    "SELECT name, sent_seq, last_sent_at, last_error_class, last_error_at FROM audit_sinks ORDER BY name",
  );
  return rows.map((r) => ({
    name: String(r.name),
    sentSeq: Number(r.sent_seq),
    lastSentAt: asDateOrNull(r.last_sent_at),
    lastErrorClass: (r.last_error_class as string | null) ?? null,
    lastErrorAt: asDateOrNull(r.last_error_at),
  }));
}
