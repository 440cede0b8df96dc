// The database-wide numbers, read at scrape time by the instance holding the
// metrics lease (lease.ts). Three short reads, each on an index:
// - pending requests per service: one count per service on approvals'
//   (service_id, status, created_at) index; services with none count 0;
// - the notification outbox: its pending messages by channel, found through
//   the (status, next_attempt_at) index the delivery worker uses;
// - the callback outbox: its pending deliveries, the same way.
// "Pending" in an outbox is every message not yet sent, dropped or given up
// on, including those waiting for a retry.
import "server-only";
import type { Channel } from "../notifications/queue-message";
import { asDate, type Sql } from "../db/sql";

/** Every outbox channel: the notification channels and the callbacks to services. */
export const OUTBOX_CHANNELS = ["email", "push", "webhook", "slack", "callback"] as const satisfies readonly (Channel | "callback")[];

export type OutboxChannelState = { backlog: number; oldestAgeSeconds: number };

export type DatabaseGauges = {
  pendingByService: Array<{ slug: string; pending: number }>;
  outbox: Record<string, OutboxChannelState>;
};

export async function readDatabaseGauges(sql: Sql, now = new Date()): Promise<DatabaseGauges> {
  const services = await sql.all<{ slug: string; pending: unknown }>(
    `SELECT s.slug AS slug,
       (SELECT COUNT(*) FROM approvals a WHERE a.service_id = s.id AND a.status = 'pending') AS pending
     FROM services s ORDER BY s.slug`,
  );
  const notifications = await sql.all<{ channel: string; backlog: unknown; oldest: unknown }>(
    "SELECT channel, COUNT(*) AS backlog, MIN(created_at) AS oldest FROM notifications WHERE status = 'pending' GROUP BY channel",
  );
  const [callbacks] = await sql.all<{ backlog: unknown; oldest: unknown }>(
    "SELECT COUNT(*) AS backlog, MIN(created_at) AS oldest FROM callback_deliveries WHERE status = 'pending'",
  );
  const state = (backlog: unknown, oldest: unknown): OutboxChannelState => ({
    backlog: Number(backlog),
    oldestAgeSeconds: oldest === null || oldest === undefined ? 0 : Math.max(0, (now.getTime() - asDate(oldest).getTime()) / 1000),
  });
  const outbox: Record<string, OutboxChannelState> = {};
  for (const channel of OUTBOX_CHANNELS) outbox[channel] = { backlog: 0, oldestAgeSeconds: 0 };
  for (const row of notifications) outbox[row.channel] = state(row.backlog, row.oldest);
  outbox.callback = state(callbacks?.backlog ?? 0, callbacks?.oldest ?? null);
  return {
    pendingByService: services.map((s) => ({ slug: s.slug, pending: Number(s.pending) })),
    outbox,
  };
}
