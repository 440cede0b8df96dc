// GET /api/metrics (docs/operations.md, "Metrics"): who may scrape, and the
// exposition text. Off (404) unless METRICS_TOKEN is set; then only
// "Authorization: Bearer <METRICS_TOKEN>" gets an answer, compared in
// constant time. The text holds this instance's own series (registry.ts)
// and, on the one instance holding the metrics lease (lease.ts), the
// database-wide gauges (database-gauges.ts).
import "server-only";
import { Gauge, Registry } from "prom-client";
import { constantTimeEqual, tokenHash } from "../crypto/at-rest";
import { direct } from "../db/sql";
import { env } from "../env";
import { AppError } from "../errors";
import { errorFields, log } from "../log";
import { readDatabaseGauges, type DatabaseGauges } from "./database-gauges";
import { holdMetricsLease } from "./lease";
import { enableProcessMetrics, processMetrics } from "./registry";

/** Throws not-found while metrics are off, unauthorized for any other credential than the token. */
export function authorizeScrape(authorization: string | null): void {
  const token = env().METRICS_TOKEN;
  if (!token) throw new AppError("not-found");
  const given = /^Bearer +(\S+)\s*$/i.exec(authorization ?? "")?.[1] ?? "";
  // Both sides hashed first: equal lengths, so the comparison time says nothing about the token.
  if (!constantTimeEqual(tokenHash(given), tokenHash(token))) throw new AppError("unauthorized");
}

/** The database-wide series, in a registry of their own for this one scrape (scrapes may overlap). */
function databaseRegistry(gauges: DatabaseGauges | null): Registry {
  const registry = new Registry();
  const held = new Gauge({
    name: "countersign_metrics_lease_held",
    help: "1 if this instance holds the metrics lease and so exposes the database-wide series in this scrape, else 0.",
    registers: [registry],
  });
  held.set(gauges ? 1 : 0);
  if (!gauges) return registry;
  const pending = new Gauge({
    name: "countersign_pending_requests",
    help: "Requests waiting for a decision, by service slug (database-wide: exposed by one instance at a time).",
    labelNames: ["service_slug"] as const,
    registers: [registry],
  });
  for (const s of gauges.pendingByService) pending.set({ service_slug: s.slug }, s.pending);
  const backlog = new Gauge({
    name: "countersign_outbox_backlog",
    help: "Outbox messages not yet sent, dropped or given up on, by channel (database-wide: exposed by one instance at a time).",
    labelNames: ["channel"] as const,
    registers: [registry],
  });
  const age = new Gauge({
    name: "countersign_outbox_oldest_age_seconds",
    help: "Age of the oldest message in the outbox backlog, by channel; 0 when there is none (database-wide: exposed by one instance at a time).",
    labelNames: ["channel"] as const,
    registers: [registry],
  });
  for (const [channel, state] of Object.entries(gauges.outbox)) {
    backlog.set({ channel }, state.backlog);
    age.set({ channel }, state.oldestAgeSeconds);
  }
  return registry;
}

/** The database-wide numbers if this instance holds the lease; null if another does or the database cannot answer. */
async function databaseGaugesIfHolder(): Promise<DatabaseGauges | null> {
  try {
    const sql = direct();
    if (!(await holdMetricsLease(sql))) return null;
    return await readDatabaseGauges(sql);
  } catch (e) {
    // The instance's own series still go out; the database-wide ones are missing from this scrape.
    log.warn("metrics: database-wide gauges unavailable", errorFields(e));
    return null;
  }
}

export async function renderMetrics(): Promise<{ body: string; contentType: string }> {
  enableProcessMetrics();
  const own = processMetrics().registry;
  const shared = databaseRegistry(await databaseGaugesIfHolder());
  const body = await Registry.merge([own, shared]).metrics();
  return { body, contentType: own.contentType };
}
