// docs/operations.md, Retention, over a seeded year of history with explicit
// clocks (only Date is faked; timers run): the background job's purge takes
// the arguments of requests decided more than RETENTION_DAYS ago, in
// batches with one audit event each, and no table holds any of their
// values afterwards (every text column of every table is scanned), while
// newer and undecided requests keep theirs. `audit archive` writes the
// oldest events to signed files and prunes them; `audit verify` still
// passes, `audit verify --archive` verifies the whole history from the
// archives and the database, and names an archive that is missing or edited.
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { adminInProcess } from "../helpers/admin-cli";
import { freshDatabaseUrl, type Provider } from "../helpers/databases";
import { switchDatabase } from "../helpers/switch-database";

const DAY = 86_400_000;
const NOW = new Date("2026-12-01T12:00:00.000Z");
const RETENTION_DAYS = 90;

type Seeded = { id: string; marker: string; decidedAt: Date | null };

/**
 * A marker's unique part in letters only: a run of digits (a hex id can be
 * "710761570a") may read as a phone or card number, which redaction hides
 * before anything is stored, and the scan would then miss a value it seeded.
 */
const letters = () => [...randomBytes(8)].map((b) => String.fromCharCode(103 + (b % 20))).join("");

export function retentionSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`retention (${provider})`, () => {
    const dir = mkdtempSync(join(tmpdir(), "cs-retention-test-"));
    let drop: () => Promise<void> = async () => undefined;
    const seeded: Seeded[] = [];

    beforeAll(async () => {
      const fresh = await freshDatabaseUrl(provider);
      drop = fresh.drop;
      process.env.RETENTION_DAYS = String(RETENTION_DAYS);
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(new Date(NOW.getTime() - 400 * DAY));
      await switchDatabase(fresh.url);
      const f = await import("../helpers/fixtures");
      const { recordReview } = await import("@/lib/reviews/record-review");
      const { consumeApproval } = await import("@/lib/approvals/consume-approval");
      const { db } = await import("@/lib/db/client");
      const svc = await f.makeService();
      const reviewer = await f.makeUser(["reviewer"]);
      // Twelve months of requests, three a fortnight: approved and consumed, approved, denied.
      for (let day = 365; day >= 0; day -= 14) {
        for (let i = 0; i < 3; i++) {
          const at = NOW.getTime() - day * DAY + i * 60_000;
          vi.setSystemTime(at);
          const marker = `SEEDVAL-${day}-${i}-${letters()}`;
          const a = await f.makeApproval(svc, {
            tool: "retention.pay",
            summary: `Pay ${marker}`,
            arguments: { note: marker, account: `acct-${marker}`, nested: { memo: [marker] } },
          });
          vi.setSystemTime(at + 10 * 60_000);
          await recordReview(reviewer.id, { approvalId: a.approval_id, decision: i === 2 ? "deny" : "approve", reason: "ok" });
          if (i === 0) {
            const row = await db().approval.findUniqueOrThrow({ where: { id: a.approval_id } });
            await consumeApproval(svc.auth, a.approval_id, { run_id: row.runId, call_id: row.callId, tool: row.tool, args_digest: row.argsDigest });
          }
          seeded.push({ id: a.approval_id, marker, decidedAt: new Date(at + 10 * 60_000) });
        }
      }
      // An old request nobody decided (and no sweeper marked expired): not decided, so not purged.
      vi.setSystemTime(NOW.getTime() - 200 * DAY);
      const marker = `SEEDVAL-pending-${letters()}`;
      const pending = await f.makeApproval(svc, { tool: "retention.pay", arguments: { note: marker } });
      seeded.push({ id: pending.approval_id, marker, decidedAt: null });
      vi.setSystemTime(NOW);
    }, 300_000);
    afterAll(async () => {
      vi.useRealTimers();
      delete process.env.RETENTION_DAYS;
      const { db } = await import("@/lib/db/client");
      await db().$disconnect();
      await drop();
    });

    /** Every text value of every table, as one list (the scan for argument values). */
    const everyText = async (): Promise<string[]> => {
      const { direct } = await import("@/lib/db/sql");
      const sql = direct();
      const tables =
        sql.dialect === "postgresql"
          ? await sql.all<{ t: string; c: string }>(
              "SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = current_schema() AND data_type = 'text'",
            )
          : await sql.all<{ t: string; c: string }>(
              "SELECT m.name AS t, c.name AS c FROM sqlite_master m JOIN pragma_table_info(m.name) c WHERE m.type = 'table' AND c.type = 'TEXT'",
            );
      expect(tables.length).toBeGreaterThan(50);
      const texts: string[] = [];
      for (const { t, c } of tables) {
        for (const row of await sql.all<{ v: string | null }>(`SELECT "${c}" AS v FROM "${t}"`)) if (row.v) texts.push(row.v);
      }
      return texts;
    };
    const holding = (texts: string[], marker: string) => texts.some((t) => t.includes(marker));

    it("purges the arguments of requests decided before RETENTION_DAYS, a batch per audit event, and no table keeps a value", async () => {
      const cutoff = NOW.getTime() - RETENTION_DAYS * DAY;
      const due = seeded.filter((s) => s.decidedAt && s.decidedAt.getTime() < cutoff);
      const kept = seeded.filter((s) => !due.includes(s));
      expect(due.length).toBeGreaterThan(50); // more than one batch
      expect(kept.length).toBeGreaterThan(5);

      const { retentionState } = await import("@/lib/retention/retention-state");
      expect(await retentionState(NOW)).toMatchObject({ days: RETENTION_DAYS, purged: 0, due: due.length, lastPurgeAt: null, archives: [] });
      const before = await everyText();
      for (const s of seeded) expect(holding(before, s.marker), s.marker).toBe(true); // the scan sees every value before

      // The background job's step, on the explicit clock, with RETENTION_DAYS from the configuration.
      const { purgeExpiredArguments, PURGE_BATCH } = await import("@/lib/retention/purge-arguments");
      const result = await purgeExpiredArguments({ now: NOW });
      expect(result).toEqual({ purged: due.length, batches: Math.ceil(due.length / PURGE_BATCH) });

      const after = await everyText();
      for (const s of due) expect(holding(after, s.marker), `${s.marker} is still stored`).toBe(false);
      for (const s of kept) expect(holding(after, s.marker), `${s.marker} was purged`).toBe(true);

      const { db } = await import("@/lib/db/client");
      const events = await db().auditEvent.findMany({ where: { type: "retention.purged" }, orderBy: { seq: "asc" } });
      expect(events).toHaveLength(result.batches);
      const named = events.flatMap((e) => (JSON.parse(e.data) as { approvals: string[] }).approvals);
      expect(named.sort()).toEqual(due.map((s) => s.id).sort());
      const purgedRows = await db().approval.findMany({
        where: { argsPurgedAt: { not: null } },
        select: { id: true, argsDigest: true, status: true },
      });
      expect(purgedRows).toHaveLength(due.length);
      // What stays: the digest and the decision.
      expect(purgedRows.every((r) => r.argsDigest.startsWith("sha256:") && r.status !== "pending")).toBe(true);

      // What the audit page shows: the setting, the purged, none due.
      expect(await retentionState(NOW)).toMatchObject({ days: RETENTION_DAYS, purged: due.length, due: 0, lastPurgeAt: NOW });

      // Run again: nothing left to purge, no new event.
      expect(await purgeExpiredArguments({ now: NOW })).toEqual({ purged: 0, batches: 0 });
      expect(await db().auditEvent.count({ where: { type: "retention.purged" } })).toBe(result.batches);
      expect(JSON.parse((await adminInProcess(["audit", "verify"])).stdout)).toMatchObject({ ok: true });
    });

    it("archives the chain up to a signed checkpoint and prunes it; the archives and the database verify the whole history", async () => {
      const { db } = await import("@/lib/db/client");
      const total = (await db().auditHead.findUniqueOrThrow({ where: { id: 1 } })).seq;
      const first = join(dir, "audit-1.jsonl");
      const second = join(dir, "audit-2.jsonl");
      const iso = (daysAgo: number) => new Date(NOW.getTime() - daysAgo * DAY).toISOString();
      const a1 = await adminInProcess(["audit", "archive", "--before", iso(240), "--out", first]);
      expect(a1.stderr).toBe("");
      const r1 = JSON.parse(a1.stdout) as { first_seq: number; last_seq: number; events: number };
      expect(r1).toMatchObject({ first_seq: 1, events: r1.last_seq });
      const a2 = await adminInProcess(["audit", "archive", "--before", iso(120), "--out", second]);
      const r2 = JSON.parse(a2.stdout) as { first_seq: number; last_seq: number };
      expect(r2.first_seq).toBe(r1.last_seq + 1);
      // Pruned: the database holds only what came after.
      expect(await db().auditEvent.count({ where: { seq: { lte: r2.last_seq } } })).toBe(0);
      expect(await db().auditEvent.count()).toBeGreaterThan(0);
      // No argument value went into an archive either.
      for (const file of [first, second]) for (const s of seeded) expect(readFileSync(file, "utf8")).not.toContain(s.marker);

      const { retentionState } = await import("@/lib/retention/retention-state");
      expect((await retentionState(NOW)).archives).toMatchObject([
        { fileName: "audit-1.jsonl", firstSeq: 1, lastSeq: r1.last_seq },
        { fileName: "audit-2.jsonl", firstSeq: r1.last_seq + 1, lastSeq: r2.last_seq },
      ]);
      const plain = await adminInProcess(["audit", "verify"]);
      expect(plain.code).toBe(0);
      expect(JSON.parse(plain.stdout)).toMatchObject({ ok: true, archived_through: r2.last_seq });

      const whole = await adminInProcess(["audit", "verify", "--archive", first, second]);
      expect(whole.code).toBe(0);
      // Two more events since `total`: one audit.archived per archive.
      expect(JSON.parse(whole.stdout)).toMatchObject({ ok: true, events: total + 2, archived: r2.last_seq });
      // The same with --archive repeated, in any order.
      expect((await adminInProcess(["audit", "verify", "--archive", second, "--archive", first])).code).toBe(0);
    });

    it("names a missing or an edited archive", async () => {
      const first = join(dir, "audit-1.jsonl");
      const second = join(dir, "audit-2.jsonl");
      const missing = await adminInProcess(["audit", "verify", "--archive", second]);
      expect(missing.code).toBe(1);
      expect(JSON.parse(missing.stdout)).toMatchObject({ ok: false, reason: "archive-missing", archive: basename(first), first_seq: 1 });

      // One event's actor changed in a copy of the first archive.
      const edited = join(dir, "audit-1-edited.jsonl");
      writeFileSync(edited, readFileSync(first, "utf8").replace('"actor":"cli"', '"actor":"clj"'));
      const bad = await adminInProcess(["audit", "verify", "--archive", edited, second]);
      expect(bad.code).toBe(1);
      expect(JSON.parse(bad.stdout)).toMatchObject({ ok: false, reason: "archive-edited", archive: edited });
    });

    it("backs up and restores a pruned chain: the restored database verifies from its last archive, and with the archives", async () => {
      const snapshot = join(dir, "pruned.jsonl");
      expect((await adminInProcess(["backup", "--out", snapshot])).code).toBe(0);
      const fresh = await freshDatabaseUrl(provider);
      const dropFirst = drop;
      drop = async () => {
        await dropFirst();
        await fresh.drop();
      };
      await switchDatabase(fresh.url);
      const restored = await adminInProcess(["restore", "--in", snapshot]);
      expect(restored.stderr).toBe("");
      expect(JSON.parse(restored.stdout)).toMatchObject({ ok: true, audit: { ok: true, archived_through: expect.any(Number) } });
      const whole = await adminInProcess(["audit", "verify", "--archive", join(dir, "audit-1.jsonl"), join(dir, "audit-2.jsonl")]);
      expect(JSON.parse(whole.stdout)).toMatchObject({ ok: true });
    });
  });
}
