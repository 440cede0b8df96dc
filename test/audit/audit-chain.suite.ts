// docs/architecture.md on a real database: tampering of every kind is detected by
// verifyChain (the function behind `audit verify`), concurrent appends form
// one chain, and a failed append undoes the change it was recording.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";

export function auditSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`audit chain (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let audit: typeof import("@/lib/audit/verify-chain");
    let appendAuditEvent: typeof import("@/lib/audit/append-event").appendAuditEvent;
    let appendAuditEvents: typeof import("@/lib/audit/append-event").appendAuditEvents;
    let inTransaction: typeof import("@/lib/db/transaction").inTransaction;
    let f: typeof import("../helpers/fixtures");

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      audit = await import("@/lib/audit/verify-chain");
      ({ appendAuditEvent, appendAuditEvents } = await import("@/lib/audit/append-event"));
      ({ inTransaction } = await import("@/lib/db/transaction"));
      f = await import("../helpers/fixtures");
    });
    afterAll(async () => ctx?.close());

    // Each test starts from a fresh, valid chain of 10 events.
    beforeEach(async () => {
      await ctx.db.auditEvent.deleteMany();
      await ctx.db.auditHead.update({ where: { id: 1 }, data: { seq: 0, hash: "0".repeat(64) } });
      for (let i = 0; i < 10; i++) {
        await inTransaction((tx) => appendAuditEvent(tx, { type: "policy.changed", actor: "cli", data: { n: i } }));
      }
      expect(await audit.verifyChain()).toMatchObject({ ok: true, events: 10 });
    });

    const sql = (text: string) => ctx.db.$executeRawUnsafe(text);

    it("detects an edited event, naming its sequence number", async () => {
      await sql(`UPDATE audit_events SET actor = 'someone-else' WHERE seq = 4`);
      expect(await audit.verifyChain()).toMatchObject({ ok: false, seq: 4, reason: "hash-mismatch" });
    });

    it("detects an edited hash (the next event no longer links to it)", async () => {
      await sql(`UPDATE audit_events SET hash = '${"a".repeat(64)}' WHERE seq = 6`);
      expect(await audit.verifyChain()).toMatchObject({ ok: false, seq: 6 });
    });

    it("detects an inserted event", async () => {
      // Make room after seq 5 and insert a forged event there.
      await sql(`UPDATE audit_events SET seq = seq + 100 WHERE seq > 5`);
      await sql(`UPDATE audit_events SET seq = seq - 99 WHERE seq > 100`);
      const five = await ctx.db.auditEvent.findUniqueOrThrow({ where: { seq: 5 } });
      await ctx.db.auditEvent.create({
        data: { seq: 6, id: "evt_forged", at: new Date(), type: "role.granted", actor: "cli", data: "{}", prevHash: five.hash, hash: "f".repeat(64) },
      });
      expect(await audit.verifyChain()).toMatchObject({ ok: false, seq: 6 });
    });

    it("detects two swapped events", async () => {
      await sql(`UPDATE audit_events SET seq = 100 WHERE seq = 3`);
      await sql(`UPDATE audit_events SET seq = 3 WHERE seq = 4`);
      await sql(`UPDATE audit_events SET seq = 4 WHERE seq = 100`);
      expect(await audit.verifyChain()).toMatchObject({ ok: false, seq: 3 });
    });

    it("detects a deleted middle event", async () => {
      await sql(`DELETE FROM audit_events WHERE seq = 7`);
      expect(await audit.verifyChain()).toMatchObject({ ok: false, seq: 7, reason: "missing-event" });
    });

    it("detects a truncated tail against a saved checkpoint, even with the head row rewritten", async () => {
      const checkpoint = await audit.createCheckpoint();
      expect(await audit.verifyChain({ checkpoint })).toMatchObject({ ok: true, events: 10 });
      await sql(`DELETE FROM audit_events WHERE seq > 8`);
      expect(await audit.verifyChain()).toMatchObject({ ok: false, reason: "truncated-below-head" });
      // A careful attacker also rewinds the head row: only the checkpoint catches it.
      const eight = await ctx.db.auditEvent.findUniqueOrThrow({ where: { seq: 8 } });
      await ctx.db.auditHead.update({ where: { id: 1 }, data: { seq: 8, hash: eight.hash } });
      expect(await audit.verifyChain()).toMatchObject({ ok: true, events: 8 });
      expect(await audit.verifyChain({ checkpoint })).toMatchObject({ ok: false, reason: "truncated-after-checkpoint" });
      expect(await audit.verifyChain({ checkpoint: { ...checkpoint, head: "b".repeat(64) } })).toMatchObject({
        ok: false,
        reason: "checkpoint-signature-invalid",
      });
    });

    it("keeps one unbroken chain under 200 concurrent appends", async () => {
      // 200 appends, 20 in flight at any moment: more transactions racing for
      // the chain's head than the pool has connections, so every append waits
      // on the head's lock. Not all 200 at once: their queue for a connection
      // would make this a throughput test (the last one waits for 190 others
      // within the transaction's 10 s maxWait), which a loaded machine fails
      // though the chain is sound. Settled, not Promise.all: should one append
      // fail, the others still finish here instead of running into the next test.
      const append = (i: number) => inTransaction((tx) => appendAuditEvent(tx, { type: "review.recorded", actor: "system", data: { i } }));
      const appends: PromiseSettledResult<unknown>[] = [];
      let next = 0;
      const lane = async () => {
        while (next < 200) {
          const i = next++;
          appends[i] = (await Promise.allSettled([append(i)]))[0]!;
        }
      };
      await Promise.all(Array.from({ length: 20 }, lane));
      expect(appends.filter((a) => a.status === "rejected").map((a) => String((a as PromiseRejectedResult).reason))).toEqual([]);
      expect(await audit.verifyChain()).toMatchObject({ ok: true, events: 210 });
      const seqs = (await ctx.db.auditEvent.findMany({ select: { seq: true }, orderBy: { seq: "asc" } })).map((e) => e.seq);
      expect(seqs).toEqual(Array.from({ length: 210 }, (_, i) => i + 1));
    });

    it("chains a batch appended at once like single appends, between and alongside them", async () => {
      const batch = (from: number) =>
        inTransaction((tx) =>
          appendAuditEvents(
            tx,
            Array.from({ length: 5 }, (_, i) => ({ type: "notification.sent" as const, actor: "system" as const, data: { n: from + i } })),
          ),
        );
      const single = (i: number) => inTransaction((tx) => appendAuditEvent(tx, { type: "review.recorded", actor: "system", data: { i } }));
      await Promise.all([batch(0), single(1), batch(10), single(2), batch(20)]);
      expect(await audit.verifyChain()).toMatchObject({ ok: true, events: 27 });
      const events = await ctx.db.auditEvent.findMany({ where: { type: "notification.sent" }, orderBy: { seq: "asc" } });
      expect(events.map((e) => JSON.parse(e.data).n).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 20, 21, 22, 23, 24]);
      // A batch's events are consecutive and in the order given.
      const firstBatch = events.filter((e) => JSON.parse(e.data).n < 5).map((e) => e.seq);
      expect(firstBatch).toEqual(Array.from({ length: 5 }, (_, i) => firstBatch[0]! + i));
      // Editing one event of a batch is caught like any other.
      await sql(`UPDATE audit_events SET actor = 'cli' WHERE seq = ${firstBatch[2]}`);
      expect(await audit.verifyChain()).toMatchObject({ ok: false, seq: firstBatch[2], reason: "hash-mismatch" });
    });

    it("undoes the change when its audit append fails (audit before effect)", async () => {
      const user = await f.makeUser(["reviewer"]);
      const { grantRole } = await import("@/lib/users/roles");
      const head = await ctx.db.auditHead.findUniqueOrThrow({ where: { id: 1 } });
      await ctx.db.auditHead.delete({ where: { id: 1 } });
      try {
        await expect(grantRole({ email: user.email, role: "payments", anyway: true }, "cli")).rejects.toThrow(/audit chain head/);
      } finally {
        await ctx.db.auditHead.create({ data: head });
      }
      expect(await ctx.db.userRole.count({ where: { userId: user.id, role: "payments" } })).toBe(0);
      expect(await audit.verifyChain()).toMatchObject({ ok: true });
    });
  });
}
