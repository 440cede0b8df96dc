// Refusals anyone can provoke without credentials (webhooks to unknown slugs,
// bad signatures, rate-limited sign-ins) are counted per minute, kind, subject
// and reason instead of each writing an audit event (docs/security.md). Counting
// is one upsert, so every instance adds to the same row. Once a minute is
// over, a background flush turns each row into ONE audit event carrying the
// count, so a flood grows the chain by a handful of events a minute at most.
//
// The flush is safe on several instances at once: a row is claimed by
// deleting it inside the transaction that appends its event, so exactly one
// instance gets its count (the others delete nothing and write nothing), and
// a crash mid-flush rolls the delete back for the next try. A refusal
// counted after its row was flushed starts a new row, flushed later:
// the events' counts always add up to the refusals.
import "server-only";
import { db, type Tx } from "../db/client";
import { inTransaction } from "../db/transaction";
import { ERROR_STATUS } from "../errors";
import { recordAudit } from "./append-event";
import type { AuditData } from "./events";

export const REFUSAL_KINDS = ["webhook.rejected", "user.sign_in_refused", "slack.interaction_rejected"] as const;
export type RefusalKind = (typeof REFUSAL_KINDS)[number];

/** Subject of webhook refusals whose slug names no enabled service (never one row per slug sent). */
export const UNKNOWN_SERVICE_SUBJECT = "(unknown)";
export const SIGN_IN_SUBJECT = "(sign-in)";
export const SLACK_SUBJECT = "(slack)";

export type Refusal = { kind: RefusalKind; subject: string; reason: string };

/** Seconds after a minute ends before it is flushed: lets refusals still in flight land in their row. */
const FLUSH_GRACE_SECONDS = 5;
const FLUSH_BATCH = 200;

export function minuteOf(ms: number): number {
  const s = Math.floor(ms / 1000);
  return s - (s % 60);
}

/** Counts one refusal; returns how many of the same kind, subject and reason this minute has counted, itself included. */
export async function countRefusal(tx: Tx, refusal: Refusal, now = Date.now()): Promise<number> {
  const minute = minuteOf(now);
  const rows = await tx.$queryRaw<Array<{ count: number | bigint }>>`
    INSERT INTO refusal_tallies (minute, kind, subject, reason, count)
    VALUES (${minute}, ${refusal.kind}, ${refusal.subject}, ${refusal.reason}, 1)
    ON CONFLICT (minute, kind, subject, reason) DO UPDATE SET count = refusal_tallies.count + 1
    RETURNING count`;
  return Number(rows[0]?.count ?? 0);
}

type TallyRow = { minute: number; kind: string; subject: string; reason: string };

function isRefusalKind(kind: string): kind is RefusalKind {
  return (REFUSAL_KINDS as readonly string[]).includes(kind);
}

function eventData(row: TallyRow & { kind: RefusalKind }, count: number): AuditData {
  const minute = new Date(row.minute * 1000).toISOString();
  if (row.kind === "user.sign_in_refused") return { minute, reason: row.reason, count };
  // Webhook reasons are error codes, except the refused signatures' finer
  // reasons (unknown-service, bad-signature, stale…), which all answer 401.
  const status = row.reason in ERROR_STATUS ? ERROR_STATUS[row.reason as keyof typeof ERROR_STATUS] : 401;
  return { minute, service: row.subject, reason: row.reason, status, count };
}

/**
 * Appends one audit event per tally row of every minute that is over (as of
 * `now`), and removes the row with it. Returns how many events it wrote.
 */
export async function flushRefusalTallies(now = Date.now()): Promise<number> {
  const before = minuteOf(now - FLUSH_GRACE_SECONDS * 1000);
  const due = await db().refusalTally.findMany({
    where: { minute: { lt: before } },
    orderBy: [{ minute: "asc" }],
    take: FLUSH_BATCH,
    select: { minute: true, kind: true, subject: true, reason: true },
  });
  let written = 0;
  for (const row of due) {
    const { kind } = row;
    if (!isRefusalKind(kind)) continue;
    const wrote = await inTransaction(async (tx) => {
      const claimed = await tx.$queryRaw<Array<{ count: number | bigint }>>`
        DELETE FROM refusal_tallies
        WHERE minute = ${row.minute} AND kind = ${kind} AND subject = ${row.subject} AND reason = ${row.reason}
        RETURNING count`;
      if (claimed.length === 0) return false; // another instance flushed it
      const count = Number(claimed[0]!.count);
      recordAudit({ type: kind, actor: "system", data: eventData({ ...row, kind }, count) });
      return true;
    });
    if (wrote) written++;
  }
  return written;
}
