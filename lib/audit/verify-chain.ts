// `audit verify` (CONTRACT §7, §8): walks the chain in sequence order, in
// batches (constant memory), and reports the first event that breaks it:
// a gap or reordering in seq, a prevHash that is not its predecessor's hash,
// or a hash that does not match the event's fields under AUDIT_KEY. A
// checkpoint signed earlier also catches truncation and rewrites after it.
import "server-only";
import { CompactSign, compactVerify, importJWK, type JWK } from "jose";
import { z } from "zod";
import { db } from "../db/client";
import { env } from "../env";
import { currentSigningKey } from "../receipts/signing-keys";
import { eventHash, GENESIS_HASH, type ChainedEvent } from "./chain";
import { canonicalJson } from "../digest/args-digest";

const BATCH = 5000;

export type VerifyResult =
  | { ok: true; events: number; head: string }
  | { ok: false; events: number; seq: number; reason: string };

type StoredEvent = ChainedEvent & { hash: string };

/** Every event in sequence order, a batch at a time. */
export async function* eventsInOrder(since?: Date): AsyncGenerator<StoredEvent> {
  let after = 0;
  for (;;) {
    const rows = await db().auditEvent.findMany({
      where: { seq: { gt: after }, ...(since ? { at: { gte: since } } : {}) },
      orderBy: { seq: "asc" },
      take: BATCH,
    });
    for (const r of rows) yield { ...r, at: r.at.toISOString() };
    if (rows.length < BATCH) return;
    after = rows[rows.length - 1]!.seq;
  }
}

export const checkpointSchema = z.object({
  seq: z.number().int().min(0),
  head: z.string().regex(/^[0-9a-f]{64}$/),
  signature: z.string().min(1),
});
export type Checkpoint = z.infer<typeof checkpointSchema>;

export async function verifyChain(options: { checkpoint?: Checkpoint } = {}): Promise<VerifyResult> {
  const key = Buffer.from(env().AUDIT_KEY, "base64");
  let expectedSeq = 1;
  let prevHash = GENESIS_HASH;
  let count = 0;
  for await (const ev of eventsInOrder()) {
    const broken = (reason: string): VerifyResult => ({ ok: false, events: count, seq: ev.seq, reason });
    if (ev.seq !== expectedSeq) return { ok: false, events: count, seq: expectedSeq, reason: ev.seq > expectedSeq ? "missing-event" : "out-of-order" };
    if (ev.prevHash !== prevHash) return broken("prev-hash-mismatch");
    if (eventHash(key, ev) !== ev.hash) return broken("hash-mismatch");
    prevHash = ev.hash;
    expectedSeq++;
    count++;
  }
  // The head row moves with every append: a chain shorter than it was truncated.
  const head = await db().auditHead.findUnique({ where: { id: 1 } });
  if (head && (head.seq !== count || head.hash !== prevHash)) {
    return { ok: false, events: count, seq: count + 1, reason: "truncated-below-head" };
  }
  if (options.checkpoint) {
    const cp = options.checkpoint;
    if (!(await checkpointSignatureValid(cp))) return { ok: false, events: count, seq: cp.seq, reason: "checkpoint-signature-invalid" };
    if (cp.seq > count) return { ok: false, events: count, seq: count + 1, reason: "truncated-after-checkpoint" };
    if (cp.seq > 0) {
      const at = await db().auditEvent.findUnique({ where: { seq: cp.seq }, select: { hash: true } });
      if (at?.hash !== cp.head) return { ok: false, events: count, seq: cp.seq, reason: "rewritten-since-checkpoint" };
    }
  }
  return { ok: true, events: count, head: prevHash };
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
