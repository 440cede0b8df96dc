// `admin backup --out FILE` (docs/operations.md): the whole database as one
// signed snapshot file (format.ts), taken while the app keeps serving
// (snapshot.ts). The rows are written first to a file beside FILE, hashed as
// they go; the signed manifest line is then written before them, and the
// result renamed to FILE, so FILE never exists half-written.
import "server-only";
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, renameSync, rmSync, statSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { env } from "../env";
import { AppError } from "../errors";
import { currentSigningKey } from "../receipts/signing-keys";
import { BACKUP_FORMAT, signManifest, type Manifest } from "./format";
import { withSnapshot } from "./snapshot";

export type BackupResult = {
  out: string;
  bytes: number;
  tables: Record<string, number>;
  audit_head: { seq: number; hash: string } | null;
  signed_by: string;
};

const FLUSH_AT = 1 << 20;

/** Buffered appends to a file, with the SHA-256 and length of what was written. */
export class HashedWriter {
  private buffer: string[] = [];
  private size = 0;
  readonly hash = createHash("sha256");
  bytes = 0;
  constructor(private readonly file: FileHandle) {}
  async write(text: string): Promise<void> {
    this.buffer.push(text);
    this.size += text.length;
    if (this.size >= FLUSH_AT) await this.flush();
  }
  async flush(): Promise<void> {
    if (!this.buffer.length) return;
    const chunk = Buffer.from(this.buffer.join(""), "utf8");
    this.buffer = [];
    this.size = 0;
    this.hash.update(chunk);
    this.bytes += chunk.length;
    await this.file.write(chunk);
  }
}

export async function createBackup(outPath: string): Promise<BackupResult> {
  const out = resolve(outPath);
  if (existsSync(out)) throw new AppError("invalid-request", `${outPath} exists already; a backup never overwrites a file`);
  const bodyPath = `${out}.rows.partial`;
  const finalPath = `${out}.partial`;
  try {
    const body = await open(bodyPath, "wx", 0o600);
    let manifest: Manifest;
    try {
      const writer = new HashedWriter(body);
      manifest = await withSnapshot(env().DATABASE_URL, dirname(out), async (source) => {
        const tables: Manifest["tables"] = [];
        let head: Manifest["audit_head"] = null;
        for (const table of source.tables) {
          let rows = 0;
          for await (const row of source.rows(table)) {
            await writer.write(JSON.stringify({ t: table.name, r: row }) + "\n");
            rows++;
            if (table.name === "audit_head" && row.id === 1) head = { seq: Number(row.seq), hash: String(row.hash) };
          }
          tables.push({ name: table.name, rows, columns: table.columns.map((c) => c.name) });
        }
        await writer.flush();
        return {
          format: BACKUP_FORMAT,
          created_at: new Date().toISOString(),
          source: source.provider,
          migration: source.migration,
          tables,
          audit_head: head,
          body_sha256: writer.hash.digest("hex"),
        };
      });
    } finally {
      await body.close();
    }
    const key = await currentSigningKey();
    const header = JSON.stringify({ countersign_backup: 1, manifest, signature: await signManifest(manifest, key) }) + "\n";
    const final = await open(finalPath, "wx", 0o600);
    await final.write(header);
    await final.close();
    await pipeline(createReadStream(bodyPath), createWriteStream(finalPath, { flags: "a" }));
    renameSync(finalPath, out);
    return {
      out,
      bytes: statSync(out).size,
      tables: Object.fromEntries(manifest.tables.map((t) => [t.name, t.rows])),
      audit_head: manifest.audit_head,
      signed_by: key.kid,
    };
  } finally {
    rmSync(bodyPath, { force: true });
    rmSync(finalPath, { force: true });
  }
}
