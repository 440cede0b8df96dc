// `audit verify` (docs/architecture.md): walks the chain in sequence order, in
// batches (constant memory), and reports the first event that breaks it:
// a gap or reordering in seq, a prevHash that is not its predecessor's hash,
// or a hash that does not match the event's fields under AUDIT_KEY. A
// checkpoint signed earlier also catches truncation and rewrites after it.
import "server-only";
import { createSecretKey } from "node:crypto";
import { CompactSign, compactVerify, importJWK, type JWK } from "jose";
import { z } from "zod";
import { db, Prisma } from "../db/client";
import { utcIso, withReadSnapshot } from "../db/read-snapshot";
import { env } from "../env";
import { currentSigningKey } from "../receipts/signing-keys";
import { eventHash, GENESIS_HASH, type ChainedEvent } from "./chain";
import { canonicalJson } from "@countersign/client";
import { verifyStoredVoteAssertions, type StoredAssertionsResult } from "../passkeys/verify-stored";

// 10,000 events are a few MB: large batches keep the per-query cost out of
// the per-event cost (`audit verify` checks 100,000 events in about 2 s).
const BATCH = 10_000;

/**
 * `assertions`: the votes stored with a passkey assertion, each verified again
 * (docs/passkeys.md); a failure makes the result "vote-assertion-invalid"
 * (seq 0: it is about votes, not one event of the chain).
 */
export type VerifyResult =
  | { ok: true; events: number; head: string; assertions?: StoredAssertionsResult }
  | { ok: false; events: number; seq: number; reason: string; assertions?: StoredAssertionsResult };

type StoredEvent = ChainedEvent & { hash: string };

/** The stored event's columns, in the order both readers below expect. */
const EVENT_COLUMNS = "seq, id, at, type, actor, approval_id, data, prev_hash, hash";

type EventRow = {
  seq: number | bigint;
  id: string;
  at: Date | string;
  type: string;
  actor: string;
  approval_id: string | null;
  data: string;
  prev_hash: string;
  hash: string;
};

/**
 * The events after `after` in sequence order, at most BATCH of them. A raw
 * query: the chain needs every column as stored, and Prisma's per-row model
 * mapping cost more than the hashing.
 */
async function batchAfter(after: number, since?: Date): Promise<StoredEvent[]> {
  const rows = await db().$queryRaw<EventRow[]>`
    SELECT ${Prisma.raw(EVENT_COLUMNS)} FROM audit_events
    WHERE seq > ${after}${since ? Prisma.sql` AND at >= ${since}` : Prisma.empty}
    ORDER BY seq ASC LIMIT ${BATCH}`;
  return rows.map((r) => ({
    seq: Number(r.seq),
    id: r.id,
    at: utcIso(r.at),
    type: r.type,
    actor: r.actor,
    approvalId: r.approval_id,
    data: r.data,
    prevHash: r.prev_hash,
    hash: r.hash,
  }));
}

/**
 * Every event in sequence order, a batch at a time (constant memory); the
 * next batch is being read while the caller works through the current one.
 */
export async function* eventBatches(since?: Date): AsyncGenerator<StoredEvent[]> {
  let next = batchAfter(0, since);
  for (;;) {
    const rows = await next;
    const more = rows.length === BATCH;
    if (more) {
      next = batchAfter(rows[rows.length - 1]!.seq, since);
      next.catch(() => undefined); // a caller that stops early never awaits it
    }
    if (rows.length) yield rows;
    if (!more) return;
  }
}

/** Every event in sequence order, one at a time (`audit export`). */
export async function* eventsInOrder(since?: Date): AsyncGenerator<StoredEvent> {
  for await (const batch of eventBatches(since)) yield* batch;
}

export const checkpointSchema = z.object({
  seq: z.number().int().min(0),
  head: z.string().regex(/^[0-9a-f]{64}$/),
  signature: z.string().min(1),
});
export type Checkpoint = z.infer<typeof checkpointSchema>;

/**
 * Checks the whole chain in one read snapshot (so appends made meanwhile
 * cannot look like a truncation), reading BATCH events per query on a
 * dedicated connection (lib/db/read-snapshot.ts) and hashing them in a
 * plain loop, in sequence order: the first bad event is the one named.
 */
export async function verifyChain(options: { checkpoint?: Checkpoint } = {}): Promise<VerifyResult> {
  const key = createSecretKey(Buffer.from(env().AUDIT_KEY, "base64"));
  const scan = await withReadSnapshot(async (query) => {
    let expectedSeq = 1;
    let prevHash = GENESIS_HASH;
    let count = 0;
    const batchAfter = (seq: number) => query(`SELECT ${EVENT_COLUMNS} FROM audit_events WHERE seq > $1 ORDER BY seq ASC LIMIT $2`, [seq, BATCH]);
    let next = batchAfter(0);
    for (;;) {
      const rows = await next;
      // On PostgreSQL the next batch is on its way while this one is hashed.
      if (rows.length === BATCH) {
        next = batchAfter(Number(rows[rows.length - 1]![0]));
        next.catch(() => undefined); // awaited on the next turn, unless this batch breaks the chain
      }
      for (const r of rows) {
        const ev: StoredEvent = {
          seq: Number(r[0]),
          id: r[1] as string,
          at: utcIso(r[2]),
          type: r[3] as string,
          actor: r[4] as string,
          approvalId: r[5] as string | null,
          data: r[6] as string,
          prevHash: r[7] as string,
          hash: r[8] as string,
        };
        const broken = (reason: string): VerifyResult => ({ ok: false, events: count, seq: ev.seq, reason });
        if (ev.seq !== expectedSeq)
          return { ok: false as const, events: count, seq: expectedSeq, reason: ev.seq > expectedSeq ? "missing-event" : "out-of-order" };
        if (ev.prevHash !== prevHash) return broken("prev-hash-mismatch");
        if (eventHash(key, ev) !== ev.hash) return broken("hash-mismatch");
        prevHash = ev.hash;
        expectedSeq++;
        count++;
      }
      if (rows.length < BATCH) break;
    }
    const head = (await query(`SELECT seq, hash FROM audit_head WHERE id = 1`))[0];
    const atCheckpoint =
      options.checkpoint && options.checkpoint.seq > 0
        ? ((await query(`SELECT hash FROM audit_events WHERE seq = $1`, [options.checkpoint.seq]))[0]?.[0] as string | undefined)
        : undefined;
    return { count, prevHash, head: head ? { seq: Number(head[0]), hash: head[1] as string } : null, atCheckpoint };
  });
  if ("ok" in scan) return scan;
  const { count, prevHash, head, atCheckpoint } = scan;
  // The head row moves with every append: a chain shorter than it was truncated.
  if (head && (head.seq !== count || head.hash !== prevHash)) {
    return { ok: false, events: count, seq: count + 1, reason: "truncated-below-head" };
  }
  if (options.checkpoint) {
    const cp = options.checkpoint;
    if (!(await checkpointSignatureValid(cp))) return { ok: false, events: count, seq: cp.seq, reason: "checkpoint-signature-invalid" };
    if (cp.seq > count) return { ok: false, events: count, seq: count + 1, reason: "truncated-after-checkpoint" };
    if (cp.seq > 0 && atCheckpoint !== cp.head) return { ok: false, events: count, seq: cp.seq, reason: "rewritten-since-checkpoint" };
  }
  const assertions = await verifyStoredVoteAssertions();
  if (assertions.failures.length > 0) return { ok: false, events: count, seq: 0, reason: "vote-assertion-invalid", assertions };
  return { ok: true, events: count, head: prevHash, assertions };
}

/** `audit checkpoint`: the current head, signed with the receipt key. */
export async function createCheckpoint(): Promise<Checkpoint> {
  const head = await db().auditHead.findUniqueOrThrow({ where: { id: 1 } });
  const { kid, key } = await currentSigningKey();
  const signature = await new CompactSign(new TextEncoder().encode(canonicalJson({ seq: head.seq, head: head.hash })))
    .setProtectedHeader({ alg: "EdDSA", kid, typ: "countersign-audit-checkpoint+jws" })
    .sign(key);
  return { seq: head.seq, head: head.hash, signature };
}

async function checkpointSignatureValid(cp: Checkpoint): Promise<boolean> {
  const keys = await db().signingKey.findMany({ select: { kid: true, publicJwk: true } });
  for (const k of keys) {
    try {
      const publicKey = await importJWK(JSON.parse(k.publicJwk) as JWK, "EdDSA");
      const { payload } = await compactVerify(cp.signature, publicKey);
      const signed = JSON.parse(new TextDecoder().decode(payload)) as { seq: unknown; head: unknown };
      if (signed.seq === cp.seq && signed.head === cp.head) return true;
    } catch {
      // not this key
    }
  }
  return false;
}
