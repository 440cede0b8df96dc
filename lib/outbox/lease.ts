// Leases on outbox rows: callback deliveries, notification triggers and
// messages. Every instance runs the same background passes over the same
// tables; a row is worked on only by whoever holds its lease. A claim is a
// conditional update (the row is pending and its lease, if any, ran out), so
// of two instances claiming at once only one update passes for each row; the
// claimer then reads back by its owner name exactly what it won. A lease runs
// out by itself, so a crashed instance holds nothing for long, and a stopping
// instance hands its leases back at once.
//
// The other kind of lease here is on one named row that one instance at a
// time holds: the database-wide metrics, each audit sink. It is taken or
// renewed by one conditional upsert that succeeds only when the lease is
// free, ran out, or is already the caller's; on PostgreSQL a racing upsert
// waits for the row and re-checks the condition, so two instances never
// both hold it.
import "server-only";
import { randomUUID } from "node:crypto";
import { placeholders, type Sql, type SqlParam, type SqlRow } from "../db/sql";

/** This instance's name on the leases it takes. */
export const WORKER_ID = `${process.pid}-${randomUUID().slice(0, 8)}`;
/** Longer than one pass over a batch may take (each pass keeps well inside it). */
export const LEASE_MS = 60_000;
/** A message or delivery still failing after this long is given up on (retries back off to an hour). */
export const GIVE_UP_AFTER_MS = 25 * 3600 * 1000;

let passes = 0;

/** A lease owner for one pass of this instance: what it claims, and only that, it reads back. */
export function passOwner(): string {
  return `${WORKER_ID}/${++passes}`;
}

/** The outbox tables, and the column by which each one's rows fall due. */
const OUTBOX = { callback_deliveries: "next_attempt_at", notifications: "next_attempt_at", notification_triggers: "due_at" } as const;
export type OutboxTable = keyof typeof OUTBOX;

/** Rows free to claim at the one `?`: pending, and not under a lease still running. */
export const CLAIMABLE_SQL = "status = 'pending' AND (lease_until IS NULL OR lease_until < ?)";

const leaseEnd = (at: Date) => new Date(at.getTime() + LEASE_MS);

/**
 * Claims, for `owner` and for LEASE_MS, up to `limit` rows due at `now`,
 * the earliest due first, in one statement; returns how many it won.
 * Whether a lease still runs is a question for the clock, whatever `now`. The
 * rows are re-checked as they are updated, so of two instances claiming at
 * once each row goes to one (on PostgreSQL the second waits for the row and
 * finds it leased).
 */
export async function claimDue(sql: Sql, table: OutboxTable, now: Date, limit: number, owner: string): Promise<number> {
  const due = OUTBOX[table];
  const at = new Date();
  return sql.run(
    `UPDATE ${table} SET lease_owner = ?, lease_until = ?
     WHERE id IN (SELECT id FROM ${table} WHERE ${due} <= ? AND ${CLAIMABLE_SQL} ORDER BY ${due} LIMIT ?) AND ${CLAIMABLE_SQL}`,
    [owner, leaseEnd(at), now, at, limit, at],
  );
}

/** Up to `limit` ids of rows due and free to claim at `now`, the earliest due first (for a pass that claims them one by one). */
export async function dueIds(sql: Sql, table: OutboxTable, now: Date, limit: number): Promise<string[]> {
  const due = OUTBOX[table];
  const rows = await sql.all<{ id: string }>(`SELECT id FROM ${table} WHERE ${due} <= ? AND ${CLAIMABLE_SQL} ORDER BY ${due} LIMIT ?`, [
    now,
    new Date(),
    limit,
  ]);
  return rows.map((r) => r.id);
}

/** Claims those of `ids` still free for `owner`, for LEASE_MS; returns how many it won. */
export async function claim(sql: Sql, table: OutboxTable, ids: readonly string[], owner: string): Promise<number> {
  if (ids.length === 0) return 0;
  const at = new Date();
  return sql.run(`UPDATE ${table} SET lease_owner = ?, lease_until = ? WHERE id IN (${placeholders(ids.length)}) AND ${CLAIMABLE_SQL}`, [
    owner,
    leaseEnd(at),
    ...ids,
    at,
  ]);
}

/** Hands back every lease `owner` holds (or, with `prefix`, every owner starting with it): due again at once, for any instance. */
export async function release(sql: Sql, table: OutboxTable, owner: string, { prefix = false } = {}): Promise<void> {
  // substr, not LIKE: exact on both databases, and nothing in a name to escape.
  const whose = prefix ? "substr(lease_owner, 1, ?) = ?" : "lease_owner = ?";
  await sql.run(`UPDATE ${table} SET lease_owner = NULL, lease_until = NULL WHERE ${whose}`, prefix ? [owner.length, owner] : [owner]);
}

/** Whether a message first queued at `createdAt` that failed again at `at` is given up on. */
export function givenUp(createdAt: Date, at: Date): boolean {
  return at.getTime() - createdAt.getTime() > GIVE_UP_AFTER_MS;
}

/**
 * A table of named leases: its `name` and `holder` columns, the column the
 * lease runs until, the columns a new row needs besides those (`newRow`), and
 * what a successful take reads back (`returning`). One shape per table, so a
 * caller cannot mix one table's columns with another's.
 */
export type NamedLeaseTable =
  | { table: "metrics_leases"; until: "expires_at"; newRow?: undefined; returning: "holder" }
  | { table: "audit_sinks"; until: "lease_until"; newRow: { sent_seq: 0 }; returning: "sent_seq" };

// One holder name per process for every named lease, on globalThis: the
// Next.js bundle and the background loop load separate copies of this
// module, and both must hold a lease as the same instance.
const HOLDER = Symbol.for("countersign.namedLease.holder");
const processGlobals = globalThis as unknown as { [HOLDER]?: string };

/** This process's name on the named leases it takes. */
export function leaseHolderId(): string {
  return (processGlobals[HOLDER] ??= randomUUID());
}

/**
 * Takes or renews the lease on `name` for `holder` until `ms` after `now`.
 * The row (its `returning` columns) if `holder` holds it now, null if another does.
 */
export async function holdNamedLease(sql: Sql, t: NamedLeaseTable, name: string, holder: string, now: Date, ms: number): Promise<SqlRow | null> {
  const extra: [string, SqlParam][] = Object.entries(t.newRow ?? {});
  const columns = ["name", "holder", t.until, ...extra.map(([column]) => column)];
  const rows = await sql.all(
    `INSERT INTO ${t.table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})
     ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, ${t.until} = excluded.${t.until}
     WHERE ${t.table}.holder IS NULL OR ${t.table}.${t.until} IS NULL OR ${t.table}.${t.until} <= ? OR ${t.table}.holder = excluded.holder
     RETURNING ${t.returning}`,
    [name, holder, new Date(now.getTime() + ms), ...extra.map(([, value]) => value), now],
  );
  return rows.length === 1 ? rows[0]! : null;
}
