// Appends one event to the audit chain, inside the caller's transaction, so
// the event and the change it records commit or vanish together.
//
// The first statement bumps the single head row: on PostgreSQL that row lock
// queues concurrent appenders (across instances) until this transaction ends;
// on SQLite the transaction already holds the write lock. Either way each
// appender reads the head its predecessor committed: one unbroken chain.
// Call it last in a transaction, to hold the head for as short a time as
// possible: two statements on PostgreSQL, then the commit. A transaction that
// records several events collects them and appends them together
// (appendAuditEvents; finalizeApproval's auditInto).
import "server-only";
import { createSecretKey, type KeyObject } from "node:crypto";
import { env } from "../env";
import { newId } from "../ids";
import type { Tx } from "../db/client";
import { sqlOf, type Sql } from "../db/sql";
import { canonicalJson } from "@countersign/client";
import { eventHash, type ChainedEvent } from "./chain";
import { auditDataSchema, type AuditInput } from "./events";

let auditKey: KeyObject | undefined; // AUDIT_KEY is read once per process (lib/env.ts)

export async function appendAuditEvent(tx: Tx | Sql, input: AuditInput): Promise<ChainedEvent & { hash: string }> {
  const [event] = await appendAuditEvents(tx, [input]);
  return event!;
}

/**
 * Appends events in order, holding the head once: one bump of the sequence
 * by their number, one insert, one head update, however many there are (an
 * ingest that a standing approval decides writes three; the outbox records
 * a batch of sent messages). Call it last in a transaction.
 */
export async function appendAuditEvents(tx: Tx | Sql, inputs: AuditInput[]): Promise<Array<ChainedEvent & { hash: string }>> {
  if (inputs.length === 0) return [];
  const sql = sqlOf(tx);
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
