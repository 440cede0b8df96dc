// docs/operations.md, backup and restore, on real databases through the admin
// command line's dispatcher: a snapshot taken while requests keep arriving
// restores into a fresh database where `audit verify` passes, every table
// holds its manifest's count of rows, the rows agree with the chain, tokens
// still authenticate and a consumed decision answers already-consumed; a
// snapshot with one changed byte, or whose chain does not verify, is
// refused, and so is a database that is not empty; and (on the PostgreSQL
// lane) a snapshot goes to SQLite and back with every row the same.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminInProcess } from "../helpers/admin-cli";
import { freshDatabaseUrl, PG_TEST_URL, type Provider } from "../helpers/databases";
import { switchDatabase } from "../helpers/switch-database";

type Manifest = { tables: Array<{ name: string; rows: number }>; audit_head: { seq: number; hash: string } };
type Binding = { run_id: string; call_id: string; tool: string; args_digest: string };

const manifestOf = (file: string): Manifest => (JSON.parse(readFileSync(file, "utf8").split("\n", 1)[0]!) as { manifest: Manifest }).manifest;

/** Every row of a snapshot, per table, in a stable order (for comparing two snapshots). */
function rowsOf(file: string): Record<string, string[]> {
  const tables: Record<string, string[]> = {};
  for (const line of readFileSync(file, "utf8").split("\n").slice(1)) {
    if (!line) continue;
    const { t, r } = JSON.parse(line) as { t: string; r: unknown };
    (tables[t] ??= []).push(JSON.stringify(r));
  }
  for (const rows of Object.values(tables)) rows.sort();
  return tables;
}

export function backupSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`backup and restore (${provider})`, () => {
    const dir = mkdtempSync(join(tmpdir(), "cs-backup-test-"));
    const drops: Array<() => Promise<void>> = [];
    const freshUrl = async (p: Provider = provider) => {
      const fresh = await freshDatabaseUrl(p);
      drops.push(fresh.drop);
      return fresh.url;
    };
    const count = async (table: string) => {
      const { direct } = await import("@/lib/db/sql");
      const [row] = await direct().all<{ n: number | bigint }>(`SELECT COUNT(*) AS n FROM ${table}`);
      return Number(row!.n);
    };
    const consume = async (serviceId: string, slug: string, id: string, binding: Binding) => {
      const { consumeApproval } = await import("@/lib/approvals/consume-approval");
      return consumeApproval({ id: serviceId, slug }, id, binding);
    };
    const refusalOf = (p: Promise<unknown>) =>
      p.then(
        () => "consumed",
        (e: unknown) => (e as { code?: string }).code,
      );

    const snapshot = join(dir, "under-load.jsonl");
    let service: { id: string; slug: string; token: string };
    let consumed: { id: string; binding: Binding };
    let approved: { id: string; binding: Binding };
    let load: { before: number; after: number; duringBackup: number };
    let backupOutput: Record<string, unknown>;

    beforeAll(async () => {
      await switchDatabase(await freshUrl());
      const f = await import("../helpers/fixtures");
      const { recordReview } = await import("@/lib/reviews/record-review");
      const { db } = await import("@/lib/db/client");
      const svc = await f.makeService();
      service = { id: svc.auth.id, slug: svc.slug, token: svc.api_token };
      // The default policy: one reviewer decides.
      const reviewer = await f.makeUser(["reviewer"]);
      const bindingOf = async (id: string): Promise<Binding> => {
        const a = await db().approval.findUniqueOrThrow({ where: { id } });
        return { run_id: a.runId, call_id: a.callId, tool: a.tool, args_digest: a.argsDigest };
      };
      const decided = async () => {
        const a = await f.makeApproval(svc, { tool: "backup.pay", arguments: { amount: 10 } });
        await recordReview(reviewer.id, { approvalId: a.approval_id, decision: "approve" });
        return { id: a.approval_id, binding: await bindingOf(a.approval_id) };
      };
      consumed = await decided();
      expect((await consume(service.id, service.slug, consumed.id, consumed.binding)).decision).toBe("approved");
      approved = await decided();
      const denied = await f.makeApproval(svc, { tool: "backup.pay", arguments: { amount: 99 } });
      await recordReview(reviewer.id, { approvalId: denied.approval_id, decision: "deny", reason: "too much" });
      for (let i = 0; i < 150; i++) await f.makeApproval(svc, { tool: "backup.read", arguments: { n: i } });

      // The load: requests keep arriving, on three lanes, while the backup runs.
      let stop = false;
      // better-sqlite3 answers synchronously: each lane lets timers and I/O run between its requests.
      const lane = async () => {
        while (!stop) {
          await f.makeApproval(svc, { tool: "backup.load", arguments: { at: Date.now() } });
          await new Promise((r) => setImmediate(r));
        }
      };
      const lanes = [lane(), lane(), lane()];
      const during = async () => {
        await new Promise((r) => setTimeout(r, 200));
        const before = await count("approvals");
        const out = await adminInProcess(["backup", "--out", snapshot]);
        return { before, out, after: await count("approvals") };
      };
      const { before, out, after } = await during().finally(async () => {
        stop = true;
        await Promise.all(lanes);
      });
      expect(out.stderr).toBe("");
      expect(out.code).toBe(0);
      backupOutput = JSON.parse(out.stdout) as Record<string, unknown>;
      load = { before, after, duringBackup: after - before };
    });
    afterAll(async () => {
      const { db } = await import("@/lib/db/client");
      await db().$disconnect();
      for (const drop of drops) await drop();
    });

    it("takes the snapshot while requests keep arriving, with a signed manifest of row counts", () => {
      console.log(`backup (${provider}): ${load.duringBackup} requests arrived while it ran`);
      expect(load.duringBackup).toBeGreaterThan(0);
      const manifest = manifestOf(snapshot);
      const approvals = manifest.tables.find((t) => t.name === "approvals")!.rows;
      expect(approvals).toBeGreaterThanOrEqual(load.before);
      expect(approvals).toBeLessThanOrEqual(load.after);
      expect(backupOutput).toMatchObject({ tables: { approvals }, audit_head: manifest.audit_head });
      expect(backupOutput.signed_by).toEqual(expect.any(String));
      // No derived caches: rate-limit counters and the metrics lease stay behind.
      expect(manifest.tables.map((t) => t.name)).not.toContain("rate_limit_buckets");
      expect(manifest.tables.map((t) => t.name)).not.toContain("metrics_leases");
      // Parents before children: services before approvals before reviews.
      const order = manifest.tables.map((t) => t.name);
      expect(order.indexOf("services")).toBeLessThan(order.indexOf("approvals"));
      expect(order.indexOf("approvals")).toBeLessThan(order.indexOf("reviews"));
    });

    it("restores into a fresh database: audit verify passes, counts match the manifest, consumed stays consumed", async () => {
      await switchDatabase(await freshUrl());
      const restored = await adminInProcess(["restore", "--in", snapshot]);
      expect(restored.stderr).toBe("");
      expect(restored.code).toBe(0);
      const manifest = manifestOf(snapshot);
      expect(JSON.parse(restored.stdout)).toMatchObject({ ok: true, audit: { ok: true, events: manifest.audit_head.seq } });

      const verify = await adminInProcess(["audit", "verify"]);
      expect(verify.code).toBe(0);
      expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true, events: manifest.audit_head.seq, head: manifest.audit_head.hash });
      for (const t of manifest.tables) expect({ table: t.name, rows: await count(t.name) }).toEqual({ table: t.name, rows: t.rows });
      // One moment: every request in the snapshot has its approval.requested event, and no event names a request it lacks.
      expect(await count("audit_events WHERE type = 'approval.requested'")).toBe(await count("approvals"));

      // The executor's token still authenticates; the consumed decision stays consumed; the other is taken once.
      const { authenticateServiceToken } = await import("@/lib/services/authenticate-service");
      expect(await authenticateServiceToken(`Bearer ${service.token}`)).toEqual({ id: service.id, slug: service.slug });
      expect(await refusalOf(consume(service.id, service.slug, consumed.id, consumed.binding))).toBe("already-consumed");
      expect((await consume(service.id, service.slug, approved.id, approved.binding)).decision).toBe("approved");
      expect(await refusalOf(consume(service.id, service.slug, approved.id, approved.binding))).toBe("already-consumed");
      expect((await adminInProcess(["audit", "verify"])).code).toBe(0);
    });

    it("refuses to restore into a database that is not empty", async () => {
      // The database just restored (and used since).
      const approvals = await count("approvals");
      const again = await adminInProcess(["restore", "--in", snapshot]);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/restore only goes into an empty database, and this one holds rows in .*approvals/);
      expect(await count("approvals")).toBe(approvals);

      // A new database where someone already added one user.
      await switchDatabase(await freshUrl());
      const f = await import("../helpers/fixtures");
      await f.makeUser(["admin"]);
      const one = await adminInProcess(["restore", "--in", snapshot]);
      expect(one.code).toBe(1);
      expect(one.stderr).toMatch(/holds rows in .*users/);
      expect(await count("users")).toBe(1);
      expect(await count("approvals")).toBe(0);
    });

    it("refuses a snapshot with one changed byte, wherever it is", async () => {
      const bytes = readFileSync(snapshot);
      const header = bytes.indexOf(0x0a);
      /** The file with the byte at `at` (a digit or a letter) changed to another of its kind: still valid JSON. */
      const changedAt = (at: number) => {
        let i = at;
        while (!/[0-9a-z]/.test(String.fromCharCode(bytes[i]!))) i++;
        const copy = Buffer.from(bytes);
        const c = String.fromCharCode(copy[i]!);
        copy[i] = (/[0-9]/.test(c) ? (c === "1" ? "2" : "1") : c === "a" ? "b" : "a").charCodeAt(0);
        const file = join(dir, `changed-${at}.jsonl`);
        writeFileSync(file, copy);
        return file;
      };
      await switchDatabase(await freshUrl());
      const cases = [
        { file: changedAt(header + Math.floor((bytes.length - header) / 2)), message: "changed after it was signed" },
        { file: changedAt(bytes.length - 40), message: "changed after it was signed" },
        // In the manifest itself: a row count.
        { file: changedAt(bytes.indexOf('"rows":', 0) + 7), message: "signature does not verify" },
      ];
      // Rows changed and the manifest's hash made to match them: only the signature can tell.
      const forged = readFileSync(cases[0]!.file, "utf8");
      const nl = forged.indexOf("\n");
      const { createHash } = await import("node:crypto");
      const head = JSON.parse(forged.slice(0, nl)) as { manifest: { body_sha256: string } };
      head.manifest.body_sha256 = createHash("sha256")
        .update(forged.slice(nl + 1))
        .digest("hex");
      const forgedFile = join(dir, "forged.jsonl");
      writeFileSync(forgedFile, JSON.stringify(head) + forged.slice(nl));
      cases.push({ file: forgedFile, message: "signature does not verify" });

      for (const c of cases) {
        const r = await adminInProcess(["restore", "--in", c.file]);
        expect({ code: r.code, refused: r.stderr.includes(c.message) }, r.stderr).toEqual({ code: 1, refused: true });
      }
      const notBackup = join(dir, "not-a-backup.jsonl");
      writeFileSync(notBackup, "hello\n");
      const bad = await adminInProcess(["restore", "--in", notBackup]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("not a Countersign backup");
      const missing = await adminInProcess(["restore", "--in", join(dir, "nowhere.jsonl")]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain("no such file");
      // Nothing was written by any of them.
      expect(await count("approvals")).toBe(0);
      expect(await count("users")).toBe(0);
      expect((await adminInProcess(["audit", "verify"])).code).toBe(0);
    });

    it("refuses a signed snapshot whose audit chain does not verify", async () => {
      // A database whose chain someone edited: its backup is signed, but the chain inside gives it away.
      await switchDatabase(await freshUrl());
      expect((await adminInProcess(["restore", "--in", snapshot])).code).toBe(0);
      const { direct } = await import("@/lib/db/sql");
      await direct().run("UPDATE audit_events SET actor = 'cli' WHERE seq = 5");
      const edited = join(dir, "edited-chain.jsonl");
      expect((await adminInProcess(["backup", "--out", edited])).code).toBe(0);
      await switchDatabase(await freshUrl());
      const r = await adminInProcess(["restore", "--in", edited]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("audit chain does not verify: event 5: hash-mismatch");
      expect(await count("approvals")).toBe(0);
    });

    it("never overwrites a file with a backup", async () => {
      const before = readFileSync(snapshot);
      const r = await adminInProcess(["backup", "--out", snapshot]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("exists already");
      expect(readFileSync(snapshot).equals(before)).toBe(true);
    });

    // From PostgreSQL to SQLite and back: one format for both.
    it.runIf(provider === "postgresql" && PG_TEST_URL)("goes from one kind of database to the other and back with every row the same", async () => {
      const other: Provider = provider === "postgresql" ? "sqlite" : "postgresql";
      await switchDatabase(await freshUrl(other));
      const there = await adminInProcess(["restore", "--in", snapshot]);
      expect(there.stderr).toBe("");
      expect(there.code).toBe(0);
      expect(await refusalOf(consume(service.id, service.slug, consumed.id, consumed.binding))).toBe("already-consumed");
      const fromOther = join(dir, `from-${other}.jsonl`);
      expect((await adminInProcess(["backup", "--out", fromOther])).code).toBe(0);

      await switchDatabase(await freshUrl(provider));
      const back = await adminInProcess(["restore", "--in", fromOther]);
      expect(back.code).toBe(0);
      expect(JSON.parse((await adminInProcess(["audit", "verify"])).stdout)).toMatchObject({ ok: true, head: manifestOf(snapshot).audit_head.hash });
      const roundTrip = join(dir, "round-trip.jsonl");
      expect((await adminInProcess(["backup", "--out", roundTrip])).code).toBe(0);
      expect(rowsOf(roundTrip)).toEqual(rowsOf(snapshot));
      expect(await refusalOf(consume(service.id, service.slug, consumed.id, consumed.binding))).toBe("already-consumed");
    });
  });
}
