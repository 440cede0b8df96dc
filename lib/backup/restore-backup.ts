// `admin restore --in FILE` (docs/operations.md): a snapshot (format.ts)
// into an empty database, of either kind. Nothing is written until the
// whole file has been judged, in this order:
//
//   1. its bytes are the ones signed: the rows' SHA-256 is the manifest's,
//      and the manifest's signature verifies under a receipt signing key
//      this installation can vouch for: one of the snapshot's own keys
//      whose private half opens under this ENCRYPTION_KEY (only a holder of
//      that key could have sealed it), or one of this database's keys;
//   2. its rows are the manifest's: tables, order and counts;
//   3. its audit chain verifies (lib/audit/verify-chain.ts's ChainWalk,
//      under this AUDIT_KEY) up to the head row it holds.
//
// Then, in one transaction, the start-up rows of the empty database (the
// default policy, its one event, the chain's head, the signing key) make
// way for the snapshot's rows, and `audit verify` runs on the result.
// Consumed requests keep their consumed_at: they stay consumed.
import "server-only";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { resolve } from "node:path";
import type { JWK } from "jose";
import { z } from "zod";
import { decryptSecret } from "../crypto/at-rest";
import { direct, directTransaction, type Sql, type SqlParam } from "../db/sql";
import { AppError } from "../errors";
import { auditKeyObject, ChainWalk, verifyChain, type ChainBreak, type VerifyResult } from "../audit/verify-chain";
import { headerSchema, manifestSignatureValid, rowLineSchema, signatureKid, type Header, type Manifest } from "./format";
import { NOT_BACKED_UP, POSTGRES_SCHEMA, quoted, SQLITE_SCHEMA, tablesFrom, type ColumnKind, type TableInfo } from "./tables";
import type { Row } from "./snapshot";

export class BackupRefused extends AppError {
  constructor(message: string) {
    super("conflict", message);
  }
}

export type RestoreResult = {
  restored: Record<string, number>;
  source: Manifest["source"];
  created_at: string;
  audit: VerifyResult;
};

/** The lines of a file after its first, each with the SHA-256 of exactly those bytes. */
async function* linesOf(path: string, onHeader: (line: string) => void, hash: ReturnType<typeof createHash>): AsyncGenerator<string> {
  let carry: Buffer = Buffer.alloc(0);
  let inHeader = true;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    let data = chunk;
    if (inHeader) {
      const nl = data.indexOf(0x0a);
      if (nl < 0) {
        carry = Buffer.concat([carry, data]);
        if (carry.length > 16 << 20) throw new BackupRefused("this file is not a Countersign backup (no manifest line)");
        continue;
      }
      onHeader(Buffer.concat([carry, data.subarray(0, nl)]).toString("utf8"));
      carry = Buffer.alloc(0);
      data = data.subarray(nl + 1);
      inHeader = false;
    }
    hash.update(data);
    let buf = carry.length ? Buffer.concat([carry, data]) : data;
    let nl: number;
    while ((nl = buf.indexOf(0x0a)) >= 0) {
      yield buf.subarray(0, nl).toString("utf8");
      buf = buf.subarray(nl + 1);
    }
    carry = Buffer.from(buf);
  }
  if (inHeader) {
    if (carry.length) onHeader(carry.toString("utf8"));
    return;
  }
  if (carry.length) yield carry.toString("utf8");
}

function parseHeader(line: string): Header {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    throw new BackupRefused("this file is not a Countersign backup (its first line is not a manifest)");
  }
  const parsed = headerSchema.safeParse(raw);
  if (!parsed.success)
    throw new BackupRefused("this file is not a Countersign backup of a format this version reads (its first line is not a manifest)");
  return parsed.data;
}

const eventRowSchema = z.object({
  seq: z.number(),
  id: z.string(),
  at: z.string(),
  type: z.string(),
  actor: z.string(),
  approval_id: z.string().nullable(),
  data: z.string(),
  prev_hash: z.string(),
  hash: z.string(),
});

/** What the first pass learnt of the rows, before anything is believed. */
type Survey = {
  bodySha256: string;
  malformed: number | null; // line number of the first row line that is not a row
  order: string[]; // tables in the order their rows came
  counts: Map<string, number>;
  signingKeys: Array<{ kid: string; public_jwk: string; private_jwk_enc: string }>;
  head: { seq: number; hash: string } | null;
  chainBreak: ChainBreak | null;
  chainEnd: { seq: number; hash: string };
};

async function survey(path: string): Promise<{ header: Header; survey: Survey }> {
  const hash = createHash("sha256");
  let header: Header | undefined;
  const s: Omit<Survey, "bodySha256" | "chainEnd"> = { malformed: null, order: [], counts: new Map(), signingKeys: [], head: null, chainBreak: null };
  // The chain starts at genesis, or after the last archive (audit_archives' rows come before the events).
  let base = { seq: 0, hash: "0".repeat(64) };
  let walk: ChainWalk | undefined;
  let lineNo = 1;
  try {
    for await (const line of linesOf(path, (l) => (header = parseHeader(l)), hash)) {
      lineNo++;
      if (s.malformed !== null) continue; // keep hashing: the hash decides what to report
      let row: z.infer<typeof rowLineSchema>;
      try {
        row = rowLineSchema.parse(JSON.parse(line));
      } catch {
        s.malformed = lineNo;
        continue;
      }
      if (s.order[s.order.length - 1] !== row.t) s.order.push(row.t);
      s.counts.set(row.t, (s.counts.get(row.t) ?? 0) + 1);
      if (row.t === "signing_keys") s.signingKeys.push(row.r as Survey["signingKeys"][number]);
      if (row.t === "audit_head" && row.r.id === 1) s.head = { seq: Number(row.r.seq), hash: String(row.r.hash) };
      if (row.t === "audit_archives" && Number(row.r.last_seq) > base.seq) base = { seq: Number(row.r.last_seq), hash: String(row.r.head_hash) };
      if (row.t === "audit_events" && !s.chainBreak) {
        walk ??= new ChainWalk(auditKeyObject(), base);
        const ev = eventRowSchema.safeParse(row.r);
        s.chainBreak = ev.success
          ? walk.step({ ...ev.data, approvalId: ev.data.approval_id, prevHash: ev.data.prev_hash })
          : { seq: walk.expectedSeq, reason: "hash-mismatch" };
      }
    }
  } catch (e) {
    if (e instanceof AppError) throw e;
    const code = (e as { code?: unknown }).code;
    throw new BackupRefused(code === "ENOENT" ? `no such file: ${path}` : `cannot read ${path}`);
  }
  if (!header) throw new BackupRefused("this file is not a Countersign backup (it is empty)");
  const end = walk ? { seq: walk.expectedSeq - 1, hash: walk.prevHash } : base;
  return { header, survey: { ...s, bodySha256: hash.digest("hex"), chainEnd: end } };
}

const privateJwkSchema = z.object({ kty: z.literal("OKP"), crv: z.literal("Ed25519"), x: z.string(), d: z.string() });

/**
 * The public key to check the signature with: the snapshot's key named by
 * the signature, if its sealed private half opens under this ENCRYPTION_KEY
 * and matches; else this database's own key of that kid.
 */
async function vouchedKey(kid: string | undefined, keys: Survey["signingKeys"]): Promise<JWK | null> {
  if (!kid) return null;
  const own = keys.find((k) => k.kid === kid);
  if (own) {
    try {
      const priv = privateJwkSchema.parse(JSON.parse(decryptSecret(own.private_jwk_enc, "receipt.signing_key")));
      const pub = JSON.parse(own.public_jwk) as JWK;
      if (pub.x === priv.x && pub.kty === "OKP" && pub.crv === "Ed25519") return { kty: "OKP", crv: "Ed25519", x: priv.x };
    } catch {
      // sealed under another ENCRYPTION_KEY, or not a key: not vouched for
    }
  }
  const [local] = await direct().all<{ public_jwk: string }>("SELECT public_jwk FROM signing_keys WHERE kid = ?", [kid]);
  return local ? (JSON.parse(local.public_jwk) as JWK) : null;
}

/** Judges the file; returns what restoring needs, or throws the first reason to refuse it. */
async function judge(path: string): Promise<Header> {
  const { header, survey: s } = await survey(path);
  const { manifest, signature } = header;
  if (s.bodySha256 !== manifest.body_sha256) {
    throw new BackupRefused("the snapshot was changed after it was signed: its rows' SHA-256 is not the one its manifest signs");
  }
  const publicKey = await vouchedKey(signatureKid(signature), s.signingKeys);
  if (!publicKey) {
    throw new BackupRefused(
      "the snapshot's signature cannot be checked: it names no receipt signing key that opens under this ENCRYPTION_KEY or that this database holds",
    );
  }
  if (!(await manifestSignatureValid(manifest, signature, publicKey))) throw new BackupRefused("the snapshot's signature does not verify");
  if (s.malformed !== null) throw new BackupRefused(`line ${s.malformed} of the snapshot is not a row`);
  const listed = manifest.tables.map((t) => t.name);
  const present = s.order.filter((t) => (s.counts.get(t) ?? 0) > 0);
  const expectedOrder = manifest.tables.filter((t) => t.rows > 0).map((t) => t.name);
  if (present.join(",") !== expectedOrder.join(",") || manifest.tables.some((t) => (s.counts.get(t.name) ?? 0) !== t.rows)) {
    throw new BackupRefused("the snapshot's rows do not match its manifest (tables, order or counts)");
  }
  if (!listed.includes("audit_events") || !listed.includes("audit_head")) throw new BackupRefused("the snapshot holds no audit chain");
  if (s.chainBreak) {
    throw new BackupRefused(`the snapshot's audit chain does not verify: event ${s.chainBreak.seq}: ${s.chainBreak.reason}`);
  }
  const head = s.head ?? { seq: 0, hash: "0".repeat(64) };
  if (head.seq !== s.chainEnd.seq || head.hash !== s.chainEnd.hash) {
    throw new BackupRefused(`the snapshot's audit chain does not verify: event ${s.chainEnd.seq + 1}: truncated-below-head`);
  }
  return header;
}

async function targetTables(sql: Sql): Promise<TableInfo[]> {
  const q = sql.dialect === "postgresql" ? POSTGRES_SCHEMA : SQLITE_SCHEMA;
  const names = (await sql.all<{ name: string }>(q.tables)).map((r) => r.name);
  const columns = (await sql.all<{ table: string; name: string; type: string; pk: number }>(q.columns)).map((c) => ({ ...c, pk: Number(c.pk) }));
  return tablesFrom(names, columns, await sql.all<{ table: string; parent: string }>(q.foreignKeys));
}

/**
 * Tables holding rows beyond what start-up writes into a new database: the
 * default policy with its one `policy.changed` event, the chain's head and
 * the receipt signing key. Restoring anywhere else would merge two histories.
 */
async function nonEmptyTables(sql: Sql, tables: TableInfo[]): Promise<string[]> {
  const startUp: Record<string, string> = {
    policies: "is_default = TRUE",
    audit_events: "type = 'policy.changed' AND actor = 'system' AND seq = 1",
    audit_head: "1 = 1",
    signing_keys: "1 = 1",
  };
  const busy: string[] = [];
  for (const t of tables) {
    const allowed = startUp[t.name];
    const where = allowed ? ` WHERE NOT (${allowed})` : "";
    const [row] = await sql.all<{ n: number | bigint }>(`SELECT COUNT(*) AS n FROM ${quoted(t.name)}${where}`);
    if (Number(row?.n ?? 0) > 0) busy.push(t.name);
  }
  return busy;
}

function refuseNonEmpty(busy: string[]): never {
  throw new BackupRefused(
    `restore only goes into an empty database, and this one holds rows in ${busy.join(", ")}; point DATABASE_URL at a new database`,
  );
}

function insertValue(kind: ColumnKind, v: Row[string]): SqlParam {
  if (v === null) return null;
  switch (kind) {
    case "timestamp":
      return new Date(String(v));
    case "boolean":
      return v === true;
    case "integer":
    case "number":
      return Number(v);
    default:
      return String(v);
  }
}

const PARAMS_PER_INSERT = 8000;

export async function restoreBackup(inPath: string): Promise<RestoreResult> {
  const path = resolve(inPath);
  const tables = await targetTables(direct());
  const busyBefore = await nonEmptyTables(direct(), tables);
  if (busyBefore.length) refuseNonEmpty(busyBefore);

  const { manifest } = await judge(path);
  const byName = new Map(tables.map((t) => [t.name, t]));
  const [applied] = await direct().all<{ n: number | bigint }>(
    "SELECT COUNT(*) AS n FROM _prisma_migrations WHERE migration_name = ? AND finished_at IS NOT NULL",
    [manifest.migration ?? ""],
  );
  if (manifest.migration && Number(applied?.n ?? 0) === 0) {
    throw new BackupRefused(
      `the snapshot was taken at schema version ${manifest.migration}, which this version of Countersign does not have; restore it with that version or newer`,
    );
  }
  for (const t of manifest.tables) {
    const target = byName.get(t.name);
    if (!target) {
      if ((NOT_BACKED_UP as readonly string[]).includes(t.name)) continue;
      throw new BackupRefused(`the snapshot holds table ${t.name}, which this database does not have`);
    }
    const missing = t.columns.filter((c) => !target.columns.some((tc) => tc.name === c));
    if (missing.length) throw new BackupRefused(`the snapshot's table ${t.name} has columns this database does not: ${missing.join(", ")}`);
  }

  const restored: Record<string, number> = {};
  await directTransaction(async (sql) => {
    const busy = await nonEmptyTables(sql, tables);
    if (busy.length) refuseNonEmpty(busy);
    // Children before parents; only start-up's rows are left by now.
    for (const t of [...tables].reverse()) await sql.run(`DELETE FROM ${quoted(t.name)}`);

    type Pending = { table: TableInfo; columns: Array<{ name: string; kind: ColumnKind }>; rows: Row[] };
    let pending = null as Pending | null;
    const flush = async () => {
      if (!pending || !pending.rows.length) return;
      const { table, columns, rows } = pending;
      const tuple = `(${columns.map(() => "?").join(", ")})`;
      const values = rows.flatMap((r) => columns.map((c) => insertValue(c.kind, r[c.name] ?? null)));
      await sql.run(
        `INSERT INTO ${quoted(table.name)} (${columns.map((c) => quoted(c.name)).join(", ")}) VALUES ${rows.map(() => tuple).join(", ")}`,
        values,
      );
      restored[table.name] = (restored[table.name] ?? 0) + rows.length;
      pending.rows = [];
    };
    const unused = createHash("sha256"); // the rows were hashed when judged
    for await (const line of linesOf(path, () => undefined, unused)) {
      const { t, r } = rowLineSchema.parse(JSON.parse(line));
      const table = byName.get(t);
      if (!table) continue; // a table left out of backups here (NOT_BACKED_UP)
      if (pending?.table !== table) {
        await flush();
        const listed = manifest.tables.find((m) => m.name === t)!.columns;
        pending = { table, columns: table.columns.filter((c) => listed.includes(c.name)), rows: [] };
      }
      pending.rows.push(r);
      if ((pending.rows.length + 1) * pending.columns.length > PARAMS_PER_INSERT) await flush();
    }
    await flush();
    for (const t of manifest.tables) {
      if (byName.has(t.name) && (restored[t.name] ?? 0) !== t.rows) {
        throw new BackupRefused(`restoring ${t.name} wrote ${restored[t.name] ?? 0} rows, not the manifest's ${t.rows}`);
      }
    }
  });

  const audit = await verifyChain();
  if (!audit.ok) throw new AppError("internal", `the restored database's audit chain does not verify (event ${audit.seq}: ${audit.reason})`);
  return { restored, source: manifest.source, created_at: manifest.created_at, audit };
}
