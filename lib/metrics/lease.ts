// Database-wide gauges (pending requests, outbox backlog) are the same
// numbers whichever instance computes them; if every instance exposed them,
// a sum over instances would count them once per instance. So one instance
// at a time holds a lease on them: a row in metrics_leases, taken or renewed
// at each scrape by one conditional upsert that succeeds only when the lease
// is free, expired, or already this process's. The holder exposes them; the
// others leave them out. The same statement runs on SQLite and PostgreSQL
// (on PostgreSQL a racing upsert waits for the row and re-checks the
// condition, so two instances can never both win).
import "server-only";
import { randomUUID } from "node:crypto";
import { direct, type Sql } from "../db/sql";

const LEASE = "database-gauges";

/**
 * How long a lease lasts without a renewal. The holder renews it at each of
 * its scrapes, so it keeps it while Prometheus scrapes it at least this
 * often; when it stops (and did not hand the lease back), another instance
 * takes over at its first scrape after this.
 */
export const METRICS_LEASE_SECONDS = 60;

// One holder id per process, on globalThis like the registry (several
// copies of this module in one build must be one holder).
const KEY = Symbol.for("countersign.metrics.holder");
const g = globalThis as unknown as { [KEY]?: string };

export function metricsHolderId(): string {
  return (g[KEY] ??= randomUUID());
}

/** Takes or renews the lease for `holder`; true if it holds it now. */
export async function holdMetricsLease(sql: Sql, holder = metricsHolderId(), now = new Date()): Promise<boolean> {
  const until = new Date(now.getTime() + METRICS_LEASE_SECONDS * 1000);
  const rows = await sql.all<{ holder: string }>(
    `INSERT INTO metrics_leases (name, holder, expires_at) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
     WHERE metrics_leases.expires_at <= ? OR metrics_leases.holder = excluded.holder
     RETURNING holder`,
    [LEASE, holder, until, now],
  );
  return rows.length === 1;
}

/** Hands the lease back (shutdown), so another instance takes it at its next scrape. */
export async function releaseMetricsLease(sql: Sql = direct(), holder = metricsHolderId()): Promise<void> {
  await sql.run("DELETE FROM metrics_leases WHERE name = ? AND holder = ?", [LEASE, holder]);
}
