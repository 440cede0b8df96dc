// The unit of work around every transaction (lib/db/unit-of-work.ts), on a
// real database: the audit events a transaction records are appended, in the
// order recorded, as its last statements; a transaction that fails records
// nothing and runs no after-commit work; an event appended at once comes
// after the ones recorded before it; on PostgreSQL the chain's head is not
// taken until the commit (another appender is not held up by a transaction
// that is still working), unless the transaction holds it on purpose.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";

export function unitOfWorkSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`unit of work (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let audit: typeof import("@/lib/audit/append-event");
    let verifyChain: typeof import("@/lib/audit/verify-chain").verifyChain;
    let inTransaction: typeof import("@/lib/db/transaction").inTransaction;
    let sqlModule: typeof import("@/lib/db/sql");
    let work: typeof import("@/lib/db/unit-of-work");

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      audit = await import("@/lib/audit/append-event");
      ({ verifyChain } = await import("@/lib/audit/verify-chain"));
      ({ inTransaction } = await import("@/lib/db/transaction"));
      sqlModule = await import("@/lib/db/sql");
      work = await import("@/lib/db/unit-of-work");
    });
    afterAll(async () => ctx?.close());
    beforeEach(async () => {
      await ctx.db.auditEvent.deleteMany();
      await ctx.db.auditHead.update({ where: { id: 1 }, data: { seq: 0, hash: "0".repeat(64) } });
    });

    const chain = async () => (await ctx.db.auditEvent.findMany({ orderBy: { seq: "asc" } })).map((e) => [e.seq, JSON.parse(e.data).n]);
    const event = (n: number) => ({ type: "policy.changed" as const, actor: "cli" as const, data: { n } });

    it("appends what each kind of transaction recorded, in order, after its work, and runs after-commit work once", async () => {
      const committed: string[] = [];
      // Prisma's transaction.
      await inTransaction(async (tx) => {
        audit.recordAudit(event(1));
        work.afterCommit(() => committed.push("prisma"));
        // Nothing is appended while the work runs.
        expect(await tx.auditEvent.count()).toBe(0);
        audit.recordAudit(event(2));
      });
      // The driver's transaction.
      await sqlModule.directTransaction(async (sql) => {
        audit.recordAudit(event(3));
        work.afterCommit(() => committed.push("driver"));
        expect(Number((await sql.all<{ n: unknown }>("SELECT COUNT(*) AS n FROM audit_events"))[0]!.n)).toBe(2);
        audit.recordAudit(event(4));
      });
      expect(await chain()).toEqual([
        [1, 1],
        [2, 2],
        [3, 3],
        [4, 4],
      ]);
      expect(committed).toEqual(["prisma", "driver"]);
      expect(await verifyChain()).toMatchObject({ ok: true, events: 4 });
    });

    it("a transaction that fails appends nothing it recorded and runs no after-commit work", async () => {
      const committed: string[] = [];
      await expect(
        inTransaction(async () => {
          audit.recordAudit(event(1));
          work.afterCommit(() => committed.push("no"));
          throw new Error("the work failed");
        }),
      ).rejects.toThrow("the work failed");
      await expect(
        sqlModule.directTransaction(async () => {
          audit.recordAudit(event(2));
          throw new Error("the driver's work failed");
        }),
      ).rejects.toThrow("the driver's work failed");
      expect(await chain()).toEqual([]);
      expect(committed).toEqual([]);
      // A failing event fails where it is recorded, naming nothing of the data.
      await expect(
        inTransaction(async () => audit.recordAudit({ type: "policy.changed", actor: "cli", data: { n: { deep: [1] } } as never })),
      ).rejects.toThrow();
      expect(await chain()).toEqual([]);
    });

    it("an event appended at once comes after those recorded before it, and gets its place in the chain", async () => {
      const appended = await inTransaction(async (tx) => {
        audit.recordAudit(event(1));
        const now = await audit.appendAuditEvent(tx, event(2));
        audit.recordAudit(event(3));
        return now;
      });
      expect(appended.seq).toBe(2);
      expect(await chain()).toEqual([
        [1, 1],
        [2, 2],
        [3, 3],
      ]);
      expect(await verifyChain()).toMatchObject({ ok: true, events: 3 });
    });

    it("refuses to record an event, or queue last work, outside a transaction", async () => {
      expect(() => audit.recordAudit(event(1))).toThrow("recordAudit outside a transaction");
      expect(() => work.beforeCommit(async () => undefined)).toThrow("beforeCommit outside a transaction");
      // After-commit work outside a transaction runs at once.
      let ran = false;
      work.afterCommit(() => (ran = true));
      expect(ran).toBe(true);
      // A timer started inside a transaction that fires after it ended has no
      // transaction to join. It waits for the end itself: a fixed 50 ms once
      // fired while a loaded PostgreSQL run was still committing.
      let late!: Promise<unknown>;
      let endTransaction!: () => void;
      const transactionEnded = new Promise<void>((resolve) => (endTransaction = resolve));
      await inTransaction(async () => {
        late = new Promise((resolve) =>
          setTimeout(() => {
            void transactionEnded.then(() => {
              try {
                audit.recordAudit(event(9));
                resolve("recorded");
              } catch (e) {
                resolve(e);
              }
            });
          }, 0),
        );
      });
      endTransaction();
      expect(String(await late)).toContain("recordAudit outside a transaction");
      expect(await chain()).toEqual([]);
    });

    it.runIf(provider === "postgresql")("does not hold the chain's head while the work runs, unless asked to (PostgreSQL)", async () => {
      // A transaction that recorded an event and is still working.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const slow = sqlModule.directTransaction(async () => {
        audit.recordAudit(event(1));
        await held;
      });
      await new Promise((r) => setTimeout(r, 100));
      // Another appender commits meanwhile: the slow one took no lock on the head.
      await sqlModule.directTransaction(async () => audit.recordAudit(event(2)));
      release();
      await slow;
      expect(await chain()).toEqual([
        [1, 2],
        [2, 1],
      ]);

      // holdAuditHead: the other appender waits for the holder's commit.
      let releaseHolder!: () => void;
      const holding = new Promise<void>((r) => (releaseHolder = r));
      let holderHasHead!: () => void;
      const hasHead = new Promise<void>((r) => (holderHasHead = r));
      const holder = inTransaction(async (tx) => {
        await audit.holdAuditHead(tx);
        holderHasHead();
        audit.recordAudit(event(3));
        await holding;
      });
      await hasHead;
      let otherDone = false;
      const other = sqlModule.directTransaction(async () => audit.recordAudit(event(4))).then(() => (otherDone = true));
      await new Promise((r) => setTimeout(r, 200));
      expect(otherDone).toBe(false);
      releaseHolder();
      await Promise.all([holder, other]);
      expect((await chain()).slice(2)).toEqual([
        [3, 3],
        [4, 4],
      ]);
      expect(await verifyChain()).toMatchObject({ ok: true, events: 4 });
    });
  });
}
