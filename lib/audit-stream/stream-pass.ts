// One pass of audit streaming: for each sink, take its lease, send the
// events after its cursor in batches, moving the cursor after each batch the
// sink accepted. A failed batch leaves the cursor where it was (the next pass
// sends it again: at least once, in order) and records the failure's class.
// Several instances run passes; the lease lets one at a time send to a sink,
// and the cursor moves only from where the holder read it, so an instance
// that lost its lease stops instead of moving it.
import "server-only";
import { asDateOrNull, direct, type Sql } from "../db/sql";
import { env } from "../env";
import { errorFields, log } from "../log";
import { advanceCursor, recordSinkFailure, releaseSinkLease, takeSinkLease } from "./sink-state";
import { leaseHolderId } from "../outbox/lease";
import { eventsAfter, headSeq } from "./read-events";
import { errorClassOf, type AuditSink, type SinkName } from "./sink";
import { parseSyslogUrl, syslogSink } from "./syslog-sink";
import { webhookSink } from "./webhook-sink";
import { otlpSink } from "./otlp-sink";

export const STREAM_BATCH = 200;
/** Batches per sink per pass: a pass ends in bounded time; the next tick goes on. */
export const STREAM_MAX_BATCHES = 25;

export type SinkPassResult = {
  sink: SinkName;
  outcome: "leased-elsewhere" | "caught-up" | "more" | "failed" | "lease-lost" | "retry-later";
  sent: number;
  errorClass?: string;
};

/** After a failed send, a sink is tried again no sooner than this (not every second while it is down). */
export const STREAM_RETRY_MS = 5000;

export type PassOptions = {
  sql?: Sql;
  holder?: string;
  now?: () => Date;
  batch?: number;
  maxBatches?: number;
  /** How long after a failure the sink is tried again (STREAM_RETRY_MS). */
  retryAfterMs?: number;
};

/** The sinks the environment configures (none: streaming is off). */
export function configuredSinks(): AuditSink[] {
  const e = env();
  const sinks: AuditSink[] = [];
  const syslog = e.AUDIT_SYSLOG_URL ? parseSyslogUrl(e.AUDIT_SYSLOG_URL) : null;
  if (syslog) sinks.push(syslogSink(syslog));
  if (e.AUDIT_OTLP_URL) sinks.push(otlpSink(e.AUDIT_OTLP_URL, e.OTEL_SERVICE_NAME));
  if (e.AUDIT_WEBHOOK_URL && e.AUDIT_WEBHOOK_SECRET) sinks.push(webhookSink(e.AUDIT_WEBHOOK_URL, e.AUDIT_WEBHOOK_SECRET));
  return sinks;
}

/** Streams to every sink side by side (a slow one does not hold up the rest). */
export async function streamAuditPass(sinks: readonly AuditSink[], opts: PassOptions = {}): Promise<SinkPassResult[]> {
  return Promise.all(sinks.map((s) => streamToSink(s, opts)));
}

async function streamToSink(sink: AuditSink, opts: PassOptions): Promise<SinkPassResult> {
  const sql = opts.sql ?? direct();
  const holder = opts.holder ?? leaseHolderId();
  const now = opts.now ?? (() => new Date());
  const batch = opts.batch ?? STREAM_BATCH;
  const maxBatches = opts.maxBatches ?? STREAM_MAX_BATCHES;
  // Caught up (the usual case, each second): no lease taken, nothing written.
  const due = await dueState(sql, sink.name, now(), opts.retryAfterMs ?? STREAM_RETRY_MS);
  if (due !== "due") return { sink: sink.name, outcome: due, sent: 0 };
  let cursor = await takeSinkLease(sql, sink.name, holder, now());
  if (cursor === null) return { sink: sink.name, outcome: "leased-elsewhere", sent: 0 };
  let sent = 0;
  try {
    for (let i = 0; i < maxBatches; i++) {
      const events = await eventsAfter(sql, cursor, batch);
      if (events.length === 0) return { sink: sink.name, outcome: "caught-up", sent };
      try {
        await sink.send(events);
      } catch (e) {
        const errorClass = errorClassOf(e);
        if (errorClass === "internal") log.warn("audit stream: send failed", { sink: sink.name, ...errorFields(e) });
        await recordSinkFailure(sql, sink.name, holder, errorClass, now());
        return { sink: sink.name, outcome: "failed", sent, errorClass };
      }
      const to = events[events.length - 1]!.seq;
      if (!(await advanceCursor(sql, sink.name, holder, cursor, to, now()))) return { sink: sink.name, outcome: "lease-lost", sent };
      sent += events.length;
      cursor = to;
      if (events.length < batch) return { sink: sink.name, outcome: "caught-up", sent };
    }
    return { sink: sink.name, outcome: "more", sent };
  } finally {
    await releaseSinkLease(sql, holder, sink.name);
  }
}

/** Whether a pass has work for the sink (read only): not when it is caught up, nor just after a failure. */
async function dueState(sql: Sql, sink: SinkName, now: Date, retryAfterMs: number): Promise<"due" | "caught-up" | "retry-later"> {
  const [row] = await sql.all<{ sent_seq: unknown; last_error_class: string | null; last_error_at: unknown }>(
    "SELECT sent_seq, last_error_class, last_error_at FROM audit_sinks WHERE name = ?",
    [sink],
  );
  if (!row) return "due";
  if (Number(row.sent_seq) >= (await headSeq(sql))) return "caught-up";
  const failedAt = row.last_error_class ? asDateOrNull(row.last_error_at) : null;
  if (failedAt && now.getTime() - failedAt.getTime() < retryAfterMs) return "retry-later";
  return "due";
}

/** This instance's leases back (shutdown): another instance takes the sinks at its next pass. */
export async function releaseStreamLeases(sql: Sql = direct(), holder = leaseHolderId()): Promise<void> {
  await releaseSinkLease(sql, holder);
}
