// `audit archive --before ISO --out FILE` and `audit verify --archive FILE…`
// (docs/operations.md, Retention). Archiving writes the oldest part of the
// chain, every event before the given moment not archived yet, to a file,
// ending at a checkpoint signed with the receipt key; then, in one
// transaction, records the archive (audit_archives) and prunes those events.
// The database's chain then starts from that checkpoint.
//
// The file is JSON Lines: a signed manifest line, then the events as stored:
//
//   {"countersign_audit_archive":1,"manifest":{…},"checkpoint":{seq,head,signature},"signature":"<JWS>"}
//   {"seq":1,"id":"evt_…","at":"…","type":"…","actor":"…","approvalId":null,"data":"{…}","prevHash":"…","hash":"…"}
//
// Verifying with archives walks the chain from genesis through every
// archive the database recorded, in order, then the database's own events:
// a recorded archive not given is named, and so is a file that was edited.
import "server-only";
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, readFileSync, renameSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { basename, resolve } from "node:path";
import { createInterface } from "node:readline";
import { pipeline } from "node:stream/promises";
import { CompactSign, compactVerify, importJWK, type JWK } from "jose";
import { z } from "zod";
import { canonicalJson } from "@countersign/client";
import { recordAudit } from "../audit/append-event";
import { GENESIS_HASH } from "../audit/chain";
import {
  auditKeyObject,
  ChainWalk,
  checkpointSchema,
  checkpointSignatureValid,
  eventsInOrder,
  signCheckpoint,
  verifyChain,
  type StoredEvent,
  type VerifyResult,
} from "../audit/verify-chain";
import { db } from "../db/client";
import { directTransaction } from "../db/sql";
import { AppError } from "../errors";
import { newId } from "../ids";
import { currentSigningKey } from "../receipts/signing-keys";
import { HashedWriter } from "../backup/create-backup";

const FORMAT = "countersign-audit-archive/1";
const JWS_TYPE = "countersign-audit-archive+jws";

const manifestSchema = z.object({
  format: z.literal(FORMAT),
  first_seq: z.number().int().min(1),
  last_seq: z.number().int().min(1),
  prev_hash: z.string(),
  head: z.string(),
  events: z.number().int().min(1),
  before: z.string(),
  created_at: z.string(),
  body_sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
type ArchiveManifest = z.infer<typeof manifestSchema>;
const headerSchema = z.object({
  countersign_audit_archive: z.literal(1),
  manifest: manifestSchema,
  checkpoint: checkpointSchema,
  signature: z.string(),
});
const eventSchema = z.object({
  seq: z.number(),
  id: z.string(),
  at: z.string(),
  type: z.string(),
  actor: z.string(),
  approvalId: z.string().nullable(),
  data: z.string(),
  prevHash: z.string(),
  hash: z.string(),
});

async function chainBase(): Promise<{ seq: number; hash: string }> {
  const last = await db().auditArchive.findFirst({ orderBy: { lastSeq: "desc" }, select: { lastSeq: true, headHash: true } });
  return last ? { seq: last.lastSeq, hash: last.headHash } : { seq: 0, hash: GENESIS_HASH };
}

export type ArchiveResult = { out: string; first_seq: number; last_seq: number; events: number; head: string; sha256: string };

export async function archiveChain(before: Date, outPath: string): Promise<ArchiveResult> {
  const out = resolve(outPath);
  if (existsSync(out)) throw new AppError("invalid-request", `${outPath} exists already; an archive never overwrites a file`);
  const base = await chainBase();
  // The archived part ends before the first event at or after `before` (a prefix of the chain).
  const firstKept = await db().auditEvent.findFirst({
    where: { seq: { gt: base.seq }, at: { gte: before } },
    orderBy: { seq: "asc" },
    select: { seq: true },
  });
  const newest = await db().auditEvent.findFirst({
    where: { seq: { gt: base.seq }, at: { lt: before } },
    orderBy: { seq: "desc" },
    select: { seq: true },
  });
  const lastSeq = firstKept ? firstKept.seq - 1 : (newest?.seq ?? base.seq);
  if (lastSeq <= base.seq) throw new AppError("invalid-request", `no audit events before ${before.toISOString()} are left to archive`);

  // The events go to a file beside FILE as they are read (hashed as they go); the signed manifest line then goes before them.
  const partial = `${out}.partial`;
  const eventsPath = `${out}.events.partial`;
  const walk = new ChainWalk(auditKeyObject(), base);
  let manifest: ArchiveManifest;
  let checkpoint;
  try {
    const events = await open(eventsPath, "wx", 0o600);
    const writer = new HashedWriter(events);
    try {
      for await (const ev of eventsAfter(base.seq, lastSeq)) {
        const broken = walk.step(ev);
        if (broken) throw new AppError("conflict", `the audit chain does not verify at event ${broken.seq} (${broken.reason}); nothing was archived`);
        await writer.write(JSON.stringify(ev) + "\n");
      }
      await writer.flush();
    } finally {
      await events.close();
    }
    checkpoint = await signCheckpoint(lastSeq, walk.prevHash);
    manifest = {
      format: FORMAT,
      first_seq: base.seq + 1,
      last_seq: lastSeq,
      prev_hash: base.hash,
      head: walk.prevHash,
      events: walk.count,
      before: before.toISOString(),
      created_at: new Date().toISOString(),
      body_sha256: writer.hash.digest("hex"),
    };
    const { kid, key } = await currentSigningKey();
    const signature = await new CompactSign(new TextEncoder().encode(canonicalJson(manifest)))
      .setProtectedHeader({ alg: "EdDSA", kid, typ: JWS_TYPE })
      .sign(key);
    const file = await open(partial, "wx", 0o600);
    await file.write(JSON.stringify({ countersign_audit_archive: 1, manifest, checkpoint, signature }) + "\n");
    await file.close();
    await pipeline(createReadStream(eventsPath), createWriteStream(partial, { flags: "a" }));
    renameSync(partial, out);
  } finally {
    rmSync(eventsPath, { force: true });
    rmSync(partial, { force: true });
  }
  const sha256 = await fileSha256(out);
  await directTransaction(async (sql) => {
    await sql.run(
      `INSERT INTO audit_archives (id, first_seq, last_seq, prev_hash, head_hash, signature, file_name, sha256, before, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [newId("arc"), manifest.first_seq, lastSeq, base.hash, manifest.head, checkpoint.signature, basename(out), sha256, before, new Date()],
    );
    await sql.run("DELETE FROM audit_events WHERE seq > ? AND seq <= ?", [base.seq, lastSeq]);
    recordAudit({
      type: "audit.archived",
      actor: "cli",
      data: { first_seq: manifest.first_seq, last_seq: lastSeq, events: manifest.events, head: manifest.head, sha256, file: basename(out) },
    });
  });
  return { out, first_seq: manifest.first_seq, last_seq: lastSeq, events: manifest.events, head: manifest.head, sha256 };
}

async function fileSha256(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest("hex");
}

async function* eventsAfter(after: number, through: number): AsyncGenerator<StoredEvent> {
  for await (const ev of eventsInOrder()) {
    if (ev.seq <= after) continue;
    if (ev.seq > through) return;
    yield ev;
  }
}

/** A file given to `audit verify --archive`, as read: its manifest, if it is one, and its SHA-256. */
type GivenArchive = { path: string; sha256: string; header: z.infer<typeof headerSchema> | null };

function readHeader(path: string): GivenArchive {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    throw new AppError("invalid-request", `cannot read archive file ${path}`);
  }
  const nl = bytes.indexOf(0x0a);
  let header: GivenArchive["header"] = null;
  try {
    const parsed = headerSchema.safeParse(JSON.parse(bytes.subarray(0, nl < 0 ? bytes.length : nl).toString("utf8")));
    if (parsed.success) header = parsed.data;
  } catch {
    // not JSON: judged below as an edited (or foreign) file
  }
  return { path, sha256: createHash("sha256").update(bytes).digest("hex"), header };
}

async function manifestSigned(manifest: ArchiveManifest, signature: string): Promise<boolean> {
  for (const k of await db().signingKey.findMany({ select: { publicJwk: true } })) {
    try {
      const { payload, protectedHeader } = await compactVerify(signature, await importJWK(JSON.parse(k.publicJwk) as JWK, "EdDSA"));
      if (protectedHeader.typ === JWS_TYPE && new TextDecoder().decode(payload) === canonicalJson(manifest)) return true;
    } catch {
      // not this key
    }
  }
  return false;
}

export type ArchiveVerifyResult =
  | (VerifyResult & { ok: true; archived: number })
  | { ok: false; events: number; reason: string; archive?: string; seq?: number; first_seq?: number; last_seq?: number };

/**
 * `audit verify --archive FILE…`: the whole history, from genesis through
 * every archive the database recorded (each file judged: its bytes those
 * recorded and signed, its events a chain) to the database's events.
 */
export async function verifyWithArchives(paths: string[]): Promise<ArchiveVerifyResult> {
  const recorded = await db().auditArchive.findMany({ orderBy: { firstSeq: "asc" } });
  const given = paths.map((p) => readHeader(resolve(p)));
  const walk = new ChainWalk(auditKeyObject());
  let archived = 0;
  for (const record of recorded) {
    const file =
      given.find((g) => g.sha256 === record.sha256) ??
      given.find((g) => g.header?.manifest.first_seq === record.firstSeq && g.header.manifest.last_seq === record.lastSeq) ??
      given.find((g) => basename(g.path) === record.fileName);
    const range = { first_seq: record.firstSeq, last_seq: record.lastSeq };
    if (!file) return { ok: false, events: walk.count, reason: "archive-missing", archive: record.fileName, ...range };
    const edited = { ok: false as const, events: walk.count, reason: "archive-edited", archive: file.path, ...range };
    if (file.sha256 !== record.sha256 || !file.header) return edited;
    const { manifest, checkpoint, signature } = file.header;
    if (!(await manifestSigned(manifest, signature)) || !(await checkpointSignatureValid(checkpoint))) return edited;
    if (checkpoint.seq !== record.lastSeq || checkpoint.head !== record.headHash) return edited;
    // The events themselves: the chain, from where the previous archive ended.
    const lines = createInterface({ input: createReadStream(file.path), crlfDelay: Infinity });
    let first = true;
    for await (const line of lines) {
      if (first) {
        first = false;
        continue;
      }
      if (!line) continue;
      let ev: StoredEvent;
      try {
        ev = eventSchema.parse(JSON.parse(line));
      } catch {
        return edited;
      }
      const broken = walk.step(ev);
      if (broken) return { ok: false, events: walk.count, reason: broken.reason, seq: broken.seq, archive: file.path };
      archived++;
    }
    if (walk.expectedSeq - 1 !== record.lastSeq || walk.prevHash !== record.headHash) return edited;
  }
  const unknown = given.find((g) => !recorded.some((r) => r.sha256 === g.sha256));
  if (unknown) return { ok: false, events: walk.count, reason: "archive-not-recorded", archive: unknown.path };
  const db_ = await verifyChain({ from: { seq: walk.expectedSeq - 1, hash: walk.prevHash } });
  if (!db_.ok) return { ...db_, events: archived + db_.events };
  return { ...db_, events: archived + db_.events, archived };
}
