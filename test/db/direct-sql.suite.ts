// The driver path of ingest and consume (lib/db/sql.ts) on a real database:
// what it writes, Prisma reads back unchanged and the other way round
// (timestamps, booleans, integers); its transactions commit whole or not at
// all; a unique violation is recognised; and on SQLite it shares Prisma's
// connection lock, so a write made while a direct transaction is open is
// neither swallowed by its rollback nor run inside it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function directSqlSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`statements on the driver (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let sql: typeof import("@/lib/db/sql");
    let inTransaction: typeof import("@/lib/db/transaction").inTransaction;

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      sql = await import("@/lib/db/sql");
      ({ inTransaction } = await import("@/lib/db/transaction"));
    });
    afterAll(async () => ctx?.close());

    const insertUser = (s: import("@/lib/db/sql").Sql, id: string, at: Date, notify: boolean) =>
      s.run("INSERT INTO users (id, email, created_at, notify_email, notify_push, notify_slack) VALUES (?, ?, ?, ?, ?, ?)", [
        id,
        `${id}@example.com`,
        at,
        notify,
        !notify,
        true,
      ]);

    it("writes timestamps and booleans the way Prisma reads them, and reads Prisma's", async () => {
      const at = new Date("2026-12-01T10:11:12.345Z");
      await sql.directTransaction((s) => insertUser(s, "usr_direct1", at, false));
      const back = await ctx.db.user.findUniqueOrThrow({ where: { id: "usr_direct1" } });
      expect(back.createdAt.toISOString()).toBe(at.toISOString());
      expect([back.notifyEmail, back.notifyPush, back.disabledAt]).toEqual([false, true, null]);

      const prismaAt = new Date("2026-12-01T09:00:00.001Z");
      await ctx.db.user.create({ data: { id: "usr_prisma1", email: "p1@example.com", createdAt: prismaAt, notifyEmail: true } });
      const [row] = await sql
        .direct()
        .all<{ created_at: unknown; notify_email: unknown }>("SELECT created_at, notify_email FROM users WHERE id = ?", ["usr_prisma1"]);
      expect(sql.asDate(row!.created_at).toISOString()).toBe(prismaAt.toISOString());
      expect(sql.asBool(row!.notify_email)).toBe(true);
      // Both writers' timestamps compare and sort as times.
      const ordered = await sql
        .direct()
        .all<{ id: string }>("SELECT id FROM users WHERE id IN (?, ?) AND created_at > ? ORDER BY created_at", [
          "usr_direct1",
          "usr_prisma1",
          new Date("2026-12-01T08:00:00Z"),
        ]);
      expect(ordered.map((r) => r.id)).toEqual(["usr_prisma1", "usr_direct1"]);
    });

    it("a transaction that throws stores nothing; one that returns stores everything", async () => {
      const at = new Date();
      await expect(
        sql.directTransaction(async (s) => {
          await insertUser(s, "usr_rolled1", at, true);
          await insertUser(s, "usr_rolled2", at, true);
          throw new Error("on purpose");
        }),
      ).rejects.toThrow("on purpose");
      expect(await ctx.db.user.count({ where: { id: { in: ["usr_rolled1", "usr_rolled2"] } } })).toBe(0);

      const n = await sql.directTransaction(async (s) => (await insertUser(s, "usr_kept1", at, true)) + (await insertUser(s, "usr_kept2", at, true)));
      expect(n).toBe(2);
      expect(await ctx.db.user.count({ where: { id: { in: ["usr_kept1", "usr_kept2"] } } })).toBe(2);
    });

    it("recognises a unique violation from the driver", async () => {
      const e = await sql.directTransaction((s) => insertUser(s, "usr_kept1", new Date(), true)).catch((err: unknown) => err);
      expect(sql.isUniqueViolation(e)).toBe(true);
      expect(sql.isUniqueViolation(new Error("something else"))).toBe(false);
      // The same statement through Prisma's raw query (a revision's transaction).
      const raw = await sql
        .prismaStatements(ctx.db)
        .run("INSERT INTO users (id, email, created_at) VALUES (?, ?, ?)", ["usr_kept1", "other@example.com", new Date()])
        .catch((err: unknown) => err);
      expect(sql.isUniqueViolation(raw)).toBe(true);
    });

    it("inTransaction's handle is its Sql too: the same statements run in the Prisma transaction and roll back with it", async () => {
      await expect(
        inTransaction(async (tx) => {
          expect(tx.dialect).toBe(provider);
          await insertUser(tx, "usr_intx", new Date(), true);
          expect(await tx.user.count({ where: { id: "usr_intx" } })).toBe(1);
          const [row] = await tx.all<{ email: string }>("SELECT email FROM users WHERE id = ?", ["usr_intx"]);
          expect(row?.email).toBeTruthy();
          throw new Error("roll back");
        }),
      ).rejects.toThrow("roll back");
      expect(await ctx.db.user.count({ where: { id: "usr_intx" } })).toBe(0);
    });

    it("runLast: its statement commits with the transaction, values exactly as given; one that fails rolls back all of it", async () => {
      // Literals the PostgreSQL path writes itself (it inlines them with the COMMIT): quotes, backslashes, newlines, non-ASCII.
      const email = `o'brien\\x\n"q" é 🙂 $1 ? @example.com`;
      const at = new Date("2026-12-02T01:02:03.456Z");
      await sql.directTransaction(async (s) => {
        await s.runLast("INSERT INTO users (id, email, created_at, notify_email, notify_push, name) VALUES (?, ?, ?, ?, ?, ?)", [
          "usr_last1",
          email,
          at,
          false,
          true,
          null,
        ]);
      });
      const back = await ctx.db.user.findUniqueOrThrow({ where: { id: "usr_last1" } });
      expect([back.email, back.createdAt.toISOString(), back.notifyEmail, back.notifyPush, back.name]).toEqual([
        email,
        at.toISOString(),
        false,
        true,
        null,
      ]);

      // A statement after it sees it: it ran first.
      const seen = await sql.directTransaction(async (s) => {
        await s.runLast("INSERT INTO users (id, email, created_at) VALUES (?, ?, ?)", ["usr_last2", "last2@example.com", new Date()]);
        return (await s.all<{ n: number | bigint }>("SELECT COUNT(*) AS n FROM users WHERE id = ?", ["usr_last2"]))[0]!.n;
      });
      expect(Number(seen)).toBe(1);

      // A failing last statement (a duplicate email) fails the commit: the insert before it is gone too.
      const e = await sql
        .directTransaction(async (s) => {
          await insertUser(s, "usr_last3", new Date(), true);
          await s.runLast("INSERT INTO users (id, email, created_at) VALUES (?, ?, ?)", ["usr_last4", email, new Date()]);
        })
        .catch((err: unknown) => err);
      expect(sql.isUniqueViolation(e)).toBe(true);
      expect(await ctx.db.user.count({ where: { id: { in: ["usr_last3", "usr_last4"] } } })).toBe(0);
      // The connection went back to the pool usable.
      await sql.directTransaction((s) => insertUser(s, "usr_last5", new Date(), true));
      expect(await ctx.db.user.count({ where: { id: "usr_last5" } })).toBe(1);
    });

    it("refuses a direct statement from inside a Prisma transaction (SQLite: its own lock; PostgreSQL: a second pooled connection)", async () => {
      await expect(inTransaction(() => sql.direct().all("SELECT 1 AS one"))).rejects.toThrow(/outside the open transaction/);
      await expect(inTransaction(() => sql.directTransaction(async () => 1))).rejects.toThrow(/outside the open transaction/);
    });

    if (provider === "postgresql") {
      it("runLast waits for the commit on PostgreSQL: the head of the audit chain is held one round trip less", async () => {
        // A sequence moves outside transactions, so another connection sees when the statement ran.
        await ctx.db.$executeRawUnsafe("CREATE SEQUENCE IF NOT EXISTS run_last_probe");
        const probe = async () => Number((await sql.direct().all<{ v: unknown }>("SELECT last_value AS v FROM run_last_probe"))[0]!.v);
        const before = await probe();
        let during = -1;
        await sql.directTransaction(async (s) => {
          await s.runLast("SELECT setval('run_last_probe', ?)", [before + 41]);
          // Still unsent: read on another pooled connection, as the transaction is open.
          during = await new Promise<number>((resolve, reject) => setImmediate(() => probe().then(resolve, reject)));
        });
        expect(during).toBe(before);
        expect(await probe()).toBe(before + 41);
      });
    }

    // SQLite only: one connection per process, shared with Prisma under one lock.
    if (provider !== "sqlite") return;

    it("shares Prisma's connection lock: a write during a direct transaction is not lost with its rollback", async () => {
      const tx = sql
        .directTransaction(async (s) => {
          await insertUser(s, "usr_doomed", new Date(), true);
          await sleep(150);
          throw new Error("roll back on purpose");
        })
        .catch((e: Error) => e.message);
      await sleep(20); // the direct transaction is open now
      let sawUncommitted = false;
      const writes = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          if ((await ctx.db.user.count({ where: { id: "usr_doomed" } })) > 0) sawUncommitted = true;
          await ctx.db.user.create({ data: { id: `usr_plain${i}`, email: `plain${i}@example.com` } });
          return `usr_plain${i}`;
        }),
      );
      expect(await tx).toBe("roll back on purpose");
      expect(sawUncommitted).toBe(false);
      expect(await ctx.db.user.count({ where: { id: { in: writes } } })).toBe(10);
      expect(await ctx.db.user.count({ where: { id: "usr_doomed" } })).toBe(0);
    });
  });
}
