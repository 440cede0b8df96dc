// Database-wide gauges (pending requests, outbox backlog) are the same
// numbers whichever instance computes them; if every instance exposed them,
// a sum over instances would count them once per instance. So one instance
// at a time holds a lease on them: a row in metrics_leases, taken or renewed
// at each scrape (lib/outbox/lease.ts, holdNamedLease). The holder exposes
// them; the others leave them out.
import "server-only";
import { direct, type Sql } from "../db/sql";
import { holdNamedLease, leaseHolderId, type NamedLeaseTable } from "../outbox/lease";

const LEASE = "database-gauges";
const METRICS_LEASES: NamedLeaseTable = { table: "metrics_leases", until: "expires_at", returning: "holder" };

/**
 * How long a lease lasts without a renewal. The holder renews it at each of
 * its scrapes, so it keeps it while Prometheus scrapes it at least this
 * often; when it stops (and did not hand the lease back), another instance
 * takes over at its first scrape after this.
 */
export const METRICS_LEASE_SECONDS = 60;

/** Takes or renews the lease for `holder`; true if it holds it now. */
export async function holdMetricsLease(sql: Sql, holder = leaseHolderId(), now = new Date()): Promise<boolean> {
  return (await holdNamedLease(sql, METRICS_LEASES, LEASE, holder, now, METRICS_LEASE_SECONDS * 1000)) !== null;
}

/** Hands the lease back (shutdown), so another instance takes it at its next scrape. */
export async function releaseMetricsLease(sql: Sql = direct(), holder = leaseHolderId()): Promise<void> {
  await sql.run("DELETE FROM metrics_leases WHERE name = ? AND holder = ?", [LEASE, holder]);
}
