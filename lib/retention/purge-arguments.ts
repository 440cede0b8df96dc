// Retention of arguments (docs/operations.md): with RETENTION_DAYS set, a
// request decided longer ago than that loses what it held of its
// arguments: the redacted copy, the keyed digests of hidden values, the
// agent's summary and a reviewer's proposed patch (both can quote values).
// What it was, who decided it, why, and the digest the receipt binds stay.
//
// In batches, each one transaction with one `retention.purged` audit event
// naming its requests, so the chain says which were purged and when. The
// background job (lib/background.ts) runs it; `now` is explicit for tests.
import "server-only";
import { recordAudit } from "../audit/append-event";
import { directTransaction, placeholders } from "../db/sql";
import { env } from "../env";

/** Requests per batch: one audit event names them all (an event's lists hold 50 at most). */
export const PURGE_BATCH = 50;
/** What a purged request's redacted copy becomes: no arguments at all. */
export const PURGED_ARGS = "{}";

const DAY_MS = 86_400_000;

export function retentionCutoff(days: number, now: Date): Date {
  return new Date(now.getTime() - days * DAY_MS);
}

/**
 * Purges every request decided before `now` minus `days`, a batch at a
 * time; returns how many and in how many batches. Several instances may run
 * it at once: each batch takes its rows with a conditional update.
 */
export async function purgeExpiredArguments(
  options: { now?: Date; days?: number | undefined; maxBatches?: number } = {},
): Promise<{ purged: number; batches: number }> {
  const days = "days" in options ? options.days : env().RETENTION_DAYS;
  if (days === undefined) return { purged: 0, batches: 0 };
  const now = options.now ?? new Date();
  const cutoff = retentionCutoff(days, now);
  let purged = 0;
  let batches = 0;
  while (batches < (options.maxBatches ?? Infinity)) {
    const n = await directTransaction(async (sql) => {
      const due = await sql.all<{ id: string }>(
        `SELECT id FROM approvals WHERE status <> 'pending' AND decided_at < ? AND args_purged_at IS NULL
         ORDER BY decided_at, id LIMIT ${PURGE_BATCH}`,
        [cutoff],
      );
      if (!due.length) return 0;
      const ids = due.map((d) => d.id);
      const taken = await sql.all<{ id: string }>(
        `UPDATE approvals SET redacted_args = ?, redacted_digests = NULL, summary = NULL, patch = NULL, args_purged_at = ?
         WHERE id IN (${placeholders(ids.length)}) AND args_purged_at IS NULL RETURNING id`,
        [PURGED_ARGS, now, ...ids],
      );
      if (!taken.length) return 0;
      recordAudit({
        type: "retention.purged",
        actor: "system",
        data: { count: taken.length, decided_before: cutoff.toISOString(), retention_days: days, approvals: taken.map((t) => t.id).sort() },
      });
      return taken.length;
    });
    if (n === 0) break;
    purged += n;
    batches++;
  }
  return { purged, batches };
}
