// Appends one event to the audit chain, inside the caller's transaction, so
// the event and the change it records commit or vanish together.
//
// The first statement bumps the single head row: on PostgreSQL that row lock
// queues concurrent appenders (across instances) until this transaction ends;
// on SQLite the transaction already holds the write lock. Either way each
// appender reads the head its predecessor committed: one unbroken chain.
// Call it last in a transaction, to hold the head for as short a time as
// possible: two statements on PostgreSQL, then the commit.
import "server-only";
import { createSecretKey, type KeyObject } from "node:crypto";
import { env } from "../env";
import { newId } from "../ids";
import type { Tx } from "../db/client";
import { canonicalJson } from "@countersign/client";
import { eventHash, type ChainedEvent } from "./chain";
import { auditDataSchema, type AuditInput } from "./events";

let auditKey: KeyObject | undefined; // AUDIT_KEY is read once per process (lib/env.ts)

export async function appendAuditEvent(tx: Tx, input: AuditInput): Promise<ChainedEvent & { hash: string }> {
  const data = canonicalJson(auditDataSchema.parse(input.data ?? {}));
  const head = await tx.$queryRaw<Array<{ seq: number | bigint; hash: string }>>`
    UPDATE audit_head SET seq = seq + 1 WHERE id = 1 RETURNING seq, hash`;
  const row = head[0];
  if (!row) throw new Error("audit chain head is missing (migrations not applied?)");
  const event: ChainedEvent = {
    seq: Number(row.seq),
    id: newId("evt"),
    at: new Date().toISOString(),
    type: input.type,
    actor: input.actor,
    approvalId: input.approvalId ?? null,
    data,
    prevHash: row.hash,
  };
  const hash = eventHash((auditKey ??= createSecretKey(Buffer.from(env().AUDIT_KEY, "base64"))), event);
  if (env().databaseProvider === "postgresql") {
    // One statement: other appenders wait on the head row until this
    // transaction ends, so each round trip made while holding it counts.
    await tx.$executeRaw`
      WITH event AS (
        INSERT INTO audit_events (seq, id, at, type, actor, approval_id, data, prev_hash, hash)
        VALUES (${event.seq}, ${event.id}, ${new Date(event.at)}, ${event.type}, ${event.actor}, ${event.approvalId}, ${event.data}, ${event.prevHash}, ${hash})
      )
      UPDATE audit_head SET hash = ${hash} WHERE id = 1`;
  } else {
    // SQLite: the transaction holds the database's write lock throughout anyway.
    await tx.auditEvent.create({ data: { ...event, at: new Date(event.at), hash } });
    await tx.$executeRaw`UPDATE audit_head SET hash = ${hash} WHERE id = 1`;
  }
  return { ...event, hash };
}

/**
 * Appends several events in order, holding the head once: one bump of the
 * sequence by their number, one insert, one head update, however many there
 * are (the outbox records a batch of sent messages this way). Same chain,
 * same rules as appendAuditEvent; call it last in a transaction too.
 */
export async function appendAuditEvents(tx: Tx, inputs: AuditInput[]): Promise<void> {
  if (inputs.length === 0) return;
  if (inputs.length === 1) {
    await appendAuditEvent(tx, inputs[0]!);
    return;
  }
  const datas = inputs.map((input) => canonicalJson(auditDataSchema.parse(input.data ?? {})));
  const bumped = await tx.$queryRaw<Array<{ seq: number | bigint; hash: string }>>`
    UPDATE audit_head SET seq = seq + ${inputs.length} WHERE id = 1 RETURNING seq, hash`;
  const row = bumped[0];
  if (!row) throw new Error("audit chain head is missing (migrations not applied?)");
  const key = (auditKey ??= createSecretKey(Buffer.from(env().AUDIT_KEY, "base64")));
  const at = new Date();
  let seq = Number(row.seq) - inputs.length;
  let prevHash = row.hash;
  const rows = inputs.map((input, i) => {
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
    return { ...event, at, hash: prevHash };
  });
  await tx.auditEvent.createMany({ data: rows });
  await tx.$executeRaw`UPDATE audit_head SET hash = ${prevHash} WHERE id = 1`;
}
