// `audit verify` (docs/architecture.md): walks the chain in sequence order, in
// batches (constant memory), and reports the first event that breaks it:
// a gap or reordering in seq, a prevHash that is not its predecessor's hash,
// or a hash that does not match the event's fields under AUDIT_KEY. A
// checkpoint signed earlier also catches truncation and rewrites after it.
import "server-only";
import { createSecretKey, type KeyObject } from "node:crypto";
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
  | { ok: true; events: number; head: string; archived_through?: number; assertions?: StoredAssertionsResult }
  | { ok: false; events: number; seq: number; reason: string; assertions?: StoredAssertionsResult };

export type StoredEvent = ChainedEvent & { hash: string };

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

/** Where a walk along the chain found it broken: the event's sequence number and why. */
export type ChainBreak = { seq: number; reason: "missing-event" | "out-of-order" | "prev-hash-mismatch" | "hash-mismatch" };

/**
 * The chain's rules, one event at a time in sequence order: each event has
 * the next sequence number, links to its predecessor's hash, and hashes to
 * its own under AUDIT_KEY. Shared by `audit verify` (the database's events),
 * a restore (a snapshot's events, before anything is written) and the
 * archives of a pruned chain, so all of them judge an event alike. `from`:
 * the last event before the first one walked (genesis by default).
 */
export class ChainWalk {
  count = 0;
  expectedSeq: number;
  prevHash: string;

  constructor(
    private readonly key: KeyObject,
    from: { seq: number; hash: string } = { seq: 0, hash: GENESIS_HASH },
  ) {
    this.expectedSeq = from.seq + 1;
    this.prevHash = from.hash;
  }

  /** Takes the next event; a break (and the walk stays where it was) or null. */
  step(ev: StoredEvent): ChainBreak | null {
    if (ev.seq !== this.expectedSeq) return { seq: this.expectedSeq, reason: ev.seq > this.expectedSeq ? "missing-event" : "out-of-order" };
    if (ev.prevHash !== this.prevHash) return { seq: ev.seq, reason: "prev-hash-mismatch" };
    if (eventHash(this.key, ev) !== ev.hash) return { seq: ev.seq, reason: "hash-mismatch" };
    this.prevHash = ev.hash;
    this.expectedSeq++;
    this.count++;
    return null;
  }
}

/** AUDIT_KEY as a key object (hashing many events with it is a third cheaper). */
export function auditKeyObject(): KeyObject {
  return createSecretKey(Buffer.from(env().AUDIT_KEY, "base64"));
}

/** The chain's start in the database: genesis, or the head of the last archive (the events before it pruned). */
export type ChainBase = { seq: number; hash: string; signature?: string };

/**
 * Checks the whole chain in one read snapshot (so appends made meanwhile
 * cannot look like a truncation), reading BATCH events per query on a
 * dedicated connection (lib/db/read-snapshot.ts) and hashing them in a
 * plain loop, in sequence order: the first bad event is the one named.
 *
 * Where `audit archive` pruned the oldest events (lib/retention), the walk
 * starts from the last archive's signed checkpoint, and the result says
 * `archived_through`. `from`: where archives verified up to
 * (verifyWithArchives); the database's chain must start exactly there.
 */
export async function verifyChain(options: { checkpoint?: Checkpoint; from?: { seq: number; hash: string } } = {}): Promise<VerifyResult> {
  const key = auditKeyObject();
  const scan = await withReadSnapshot(async (query) => {
    const archive = (await query(`SELECT last_seq, head_hash, signature FROM audit_archives ORDER BY last_seq DESC LIMIT 1`))[0];
    const base: ChainBase = archive
      ? { seq: Number(archive[0]), hash: archive[1] as string, signature: archive[2] as string }
      : { seq: 0, hash: GENESIS_HASH };
    const walk = new ChainWalk(key, base);
    const batchAfter = (seq: number) => query(`SELECT ${EVENT_COLUMNS} FROM audit_events WHERE seq > $1 ORDER BY seq ASC LIMIT $2`, [seq, BATCH]);
    let next = batchAfter(base.seq);
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
        const broken = walk.step(ev);
        if (broken) return { ok: false as const, events: walk.count, ...broken };
      }
      if (rows.length < BATCH) break;
    }
    const head = (await query(`SELECT seq, hash FROM audit_head WHERE id = 1`))[0];
    const atCheckpoint =
      options.checkpoint && options.checkpoint.seq > base.seq
        ? ((await query(`SELECT hash FROM audit_events WHERE seq = $1`, [options.checkpoint.seq]))[0]?.[0] as string | undefined)
        : options.checkpoint?.seq === base.seq
          ? base.hash
          : undefined;
    // Events left at or below the archived part: pruning removed them all, or someone put them back.
    const stray = Number((await query(`SELECT COUNT(*) FROM audit_events WHERE seq <= $1`, [base.seq]))[0]?.[0] ?? 0);
    return {
      base,
      stray,
      count: walk.count,
      prevHash: walk.prevHash,
      head: head ? { seq: Number(head[0]), hash: head[1] as string } : null,
      atCheckpoint,
    };
  });
  if ("ok" in scan) return scan;
  const { base, stray, count, prevHash, head, atCheckpoint } = scan;
  const archived = base.seq > 0 ? { archived_through: base.seq } : {};
  if (options.from && (options.from.seq !== base.seq || options.from.hash !== base.hash)) {
    return { ok: false, events: 0, seq: Math.min(options.from.seq, base.seq) + 1, reason: "archives-do-not-meet-database" };
  }
  if (base.signature !== undefined && !(await checkpointSignatureValid({ seq: base.seq, head: base.hash, signature: base.signature }))) {
    return { ok: false, events: 0, seq: base.seq, reason: "archive-record-invalid" };
  }
  if (stray > 0) return { ok: false, events: 0, seq: base.seq, reason: "event-inside-archived-range" };
  const last = base.seq + count;
  // The head row moves with every append: a chain shorter than it was truncated.
  if (head && (head.seq !== last || head.hash !== prevHash)) {
    return { ok: false, events: count, seq: last + 1, reason: "truncated-below-head" };
  }
  if (options.checkpoint) {
    const cp = options.checkpoint;
    if (!(await checkpointSignatureValid(cp))) return { ok: false, events: count, seq: cp.seq, reason: "checkpoint-signature-invalid" };
    if (cp.seq > last) return { ok: false, events: count, seq: last + 1, reason: "truncated-after-checkpoint" };
    // A checkpoint inside the archived part is checked against the archives (verifyWithArchives).
    if (cp.seq > 0 && cp.seq >= base.seq && atCheckpoint !== cp.head)
      return { ok: false, events: count, seq: cp.seq, reason: "rewritten-since-checkpoint" };
  }
  const assertions = await verifyStoredVoteAssertions();
  if (assertions.failures.length > 0) return { ok: false, events: count, seq: 0, reason: "vote-assertion-invalid", assertions };
  return { ok: true, events: count, head: prevHash, ...archived, assertions };
}

/** `audit checkpoint`: the current head, signed with the receipt key. */
export async function createCheckpoint(): Promise<Checkpoint> {
  const head = await db().auditHead.findUniqueOrThrow({ where: { id: 1 } });
  return signCheckpoint(head.seq, head.hash);
}

/** A checkpoint of any event: its sequence number and hash, signed with the current receipt key. */
export async function signCheckpoint(seq: number, head: string): Promise<Checkpoint> {
  const { kid, key } = await currentSigningKey();
  const signature = await new CompactSign(new TextEncoder().encode(canonicalJson({ seq, head })))
    .setProtectedHeader({ alg: "EdDSA", kid, typ: "countersign-audit-checkpoint+jws" })
    .sign(key);
  return { seq, head, signature };
}

export async function checkpointSignatureValid(cp: Checkpoint): Promise<boolean> {
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
