// Appends events to the audit chain, inside the caller's transaction, so
// the events and the change they record commit or vanish together.
//
// recordAudit(input) is the usual way: the event is kept with the
// transaction (lib/db/unit-of-work.ts) and appended, with every other event
// the transaction recorded, in the order recorded, as its last statements
// before the commit. appendAuditEvent(tx, input) appends at once (after
// anything recorded before it), for a caller that needs the event's seq or
// hash in the same transaction (a receipt's anchor, a policy's version).
//
// The append's first statement bumps the single head row: on PostgreSQL that
// row lock queues concurrent appenders (across instances) until this
// transaction ends; on SQLite the transaction already holds the write lock.
// Either way each appender reads the head its predecessor committed: one
// unbroken chain. Appended last, the head is held for as short a time as
// possible: two statements on PostgreSQL, then the commit.
import "server-only";
import { createSecretKey, type KeyObject } from "node:crypto";
import { env } from "../env";
import { newId } from "../ids";
import { type Sql } from "../db/sql";
import { beforeCommit, workState } from "../db/unit-of-work";
import { canonicalJson } from "@countersign/client";
import { eventHash, type ChainedEvent } from "./chain";
import { auditDataSchema, type AuditInput } from "./events";

let auditKey: KeyObject | undefined; // AUDIT_KEY is read once per process (lib/env.ts)

// Symbol.for: a Next.js build can hold several copies of this module; they must share one list per transaction.
const RECORDED = Symbol.for("countersign.audit.recorded");

/** The enclosing transaction's recorded events, not yet appended (the first call queues their append before the commit). */
function recordedEvents(): AuditInput[] | undefined {
  return workState(RECORDED, () => {
    const recorded: AuditInput[] = [];
    beforeCommit((sql) => appendChained(sql, recorded.splice(0)).then(() => undefined));
    return recorded;
  });
}

/**
 * Records an event of the enclosing transaction: appended, in order with the
 * others it records, as the transaction's last statements before its commit.
 * Throws outside a transaction (an event never commits apart from its change).
 */
export function recordAudit(input: AuditInput): void {
  const recorded = recordedEvents();
  if (!recorded) throw new Error("recordAudit outside a transaction: open one with inTransaction or directTransaction");
  // Checked now, where the caller can see which event was wrong.
  auditDataSchema.parse(input.data ?? {});
  recorded.push(input);
}

/**
 * Takes the chain's head now and holds it to the commit, for a transaction
 * whose checks must run one at a time with every other writer's (the
 * last-admin check, names that must stay unique): on PostgreSQL the head
 * row's lock, which every appender queues on; on SQLite the transaction
 * already holds the database's write lock. Its events are still appended at
 * the commit.
 */
export async function holdAuditHead(sql: Sql): Promise<void> {
  if (sql.dialect === "postgresql") await sql.all("SELECT seq FROM audit_head WHERE id = 1 FOR UPDATE");
}

/** Appends one event now (after what the transaction recorded before it) and returns it. */
export async function appendAuditEvent(sql: Sql, input: AuditInput): Promise<ChainedEvent & { hash: string }> {
  const [event] = await appendAuditEvents(sql, [input]);
  return event!;
}

/** Appends events now, in order, after what the transaction recorded before them; returns these. */
export async function appendAuditEvents(sql: Sql, inputs: AuditInput[]): Promise<Array<ChainedEvent & { hash: string }>> {
  const earlier = recordedEvents()?.splice(0) ?? [];
  const events = await appendChained(sql, [...earlier, ...inputs]);
  return events.slice(earlier.length);
}

/**
 * Appends events in order, holding the head once: one bump of the sequence
 * by their number, one insert, one head update, however many there are (an
 * ingest that a standing approval decides writes three; the outbox records
 * a batch of sent messages).
 */
async function appendChained(sql: Sql, inputs: AuditInput[]): Promise<Array<ChainedEvent & { hash: string }>> {
  if (inputs.length === 0) return [];
  const datas = inputs.map((input) => canonicalJson(auditDataSchema.parse(input.data ?? {})));
  const [row] = await sql.all<{ seq: number | bigint; hash: string }>("UPDATE audit_head SET seq = seq + ? WHERE id = 1 RETURNING seq, hash", [
    inputs.length,
  ]);
  if (!row) throw new Error("audit chain head is missing (migrations not applied?)");
  const key = (auditKey ??= createSecretKey(Buffer.from(env().AUDIT_KEY, "base64")));
  const at = new Date();
  let seq = Number(row.seq) - inputs.length;
  let prevHash = row.hash;
  const events = inputs.map((input, i) => {
    const event: ChainedEvent = {
      seq: ++seq,
      id: newId("evt"),
      at: at.toISOString(),
      type: input.type,
      actor: input.actor,
      approvalId: input.approvalId ?? null,
      data: datas[i]!,
      prevHash,
    };
    prevHash = eventHash(key, event);
    return { ...event, hash: prevHash };
  });
  const values = events.flatMap((e) => [e.seq, e.id, at, e.type, e.actor, e.approvalId, e.data, e.prevHash, e.hash]);
  const rows = events.map(() => "(?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ");
  const insert = `INSERT INTO audit_events (seq, id, at, type, actor, approval_id, data, prev_hash, hash) VALUES ${rows}`;
  if (sql.dialect === "postgresql") {
    // One statement, sent with the COMMIT where the transaction is the
    // driver's: other appenders wait on the head row until this transaction
    // ends, so each round trip made while holding it counts.
    await sql.runLast(`WITH event AS (${insert}) UPDATE audit_head SET hash = ? WHERE id = 1`, [...values, prevHash]);
  } else {
    // SQLite: the transaction holds the database's write lock throughout anyway.
    await sql.run(insert, values);
    await sql.run("UPDATE audit_head SET hash = ? WHERE id = 1", [prevHash]);
  }
  return events;
}
