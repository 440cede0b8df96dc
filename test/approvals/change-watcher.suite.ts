// The change watcher behind long-polls and the live queue
// (lib/approvals/changes.ts), in process on a real database: a change that
// was never announced to this process (made by another one: the admin command
// line, another instance, a lost NOTIFY) wakes the waiters of exactly the
// requests it names, with one small read per poll however many wait.
import { setMaxListeners } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PG_TEST_URL, useFreshDatabase, type Provider } from "../helpers/databases";

type Changes = typeof import("@/lib/approvals/changes");

export function changeWatcherSuite(provider: Provider) {
  describe.runIf(provider === "sqlite" || PG_TEST_URL)(`change watcher (${provider})`, () => {
    let database: Awaited<ReturnType<typeof useFreshDatabase>>;
    let changes: Changes;
    /** An audit event naming `approvalId`, appended the way another process would: nothing here is told. */
    let changeElsewhere: (approvalId: string) => Promise<void>;
    // SQLite polls every 0.5 s, PostgreSQL (where NOTIFY is the usual path) every 2 s.
    const withinPoll = provider === "sqlite" ? 1500 : 3500;
    // Ends the waits still open at the end (the watcher polls while any wait),
    // before the database they poll is dropped.
    const stopWaits = new AbortController();
    // One signal for the 62 waits of the test below, on purpose.
    setMaxListeners(100, stopWaits.signal);

    beforeAll(async () => {
      database = await useFreshDatabase(provider);
      changes = await import("@/lib/approvals/changes");
      const { inTransaction } = await import("@/lib/db/transaction");
      const { appendAuditEvent } = await import("@/lib/audit/append-event");
      changeElsewhere = (approvalId) =>
        inTransaction(async (tx) => {
          await appendAuditEvent(tx, { type: "approval.cancelled", actor: "cli", approvalId });
        });
    });
    afterAll(async () => {
      stopWaits.abort();
      await database?.close();
    });

    /** Starts a wait and records when (and whether) it ended. */
    function waiter(approvalId: string | null, timeoutMs = 20_000) {
      const w = { endedAt: null as number | null, done: null as unknown as Promise<void> };
      w.done = changes.waitForChange(approvalId, timeoutMs, stopWaits.signal).then(() => {
        w.endedAt = Date.now();
      });
      return w;
    }
    const until = async (cond: () => boolean, ms: number) => {
      const deadline = Date.now() + ms;
      while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return cond();
    };

    it("wakes the first waiter once when the watcher takes its place, then only on changes", async () => {
      // Whatever changed before the watcher read the head cannot be told apart: everyone re-reads once.
      const first = waiter("req-first");
      expect(await until(() => first.endedAt !== null, withinPoll)).toBe(true);
      const second = waiter("req-first", 2 * withinPoll);
      await new Promise((r) => setTimeout(r, withinPoll));
      expect(second.endedAt).toBeNull();
      await changeElsewhere("req-first");
      expect(await until(() => second.endedAt !== null, withinPoll)).toBe(true);
    });

    it("a change made elsewhere wakes the waiters of the requests it names and no others", async () => {
      const ids = Array.from({ length: 60 }, (_, i) => `req-${i}`);
      const waiters = new Map(ids.map((id) => [id, waiter(id)]));
      const any = waiter(null);
      // Two waiters on one request both wake.
      const twin = waiter("req-7");
      await new Promise((r) => setTimeout(r, 200));
      const changedAt = Date.now();
      await changeElsewhere("req-7");
      expect(await until(() => waiters.get("req-7")!.endedAt !== null && twin.endedAt !== null, withinPoll)).toBe(true);
      expect(await until(() => any.endedAt !== null, withinPoll)).toBe(true);
      expect(waiters.get("req-7")!.endedAt! - changedAt).toBeLessThan(withinPoll);
      // The rest keep waiting through more polls.
      await new Promise((r) => setTimeout(r, withinPoll));
      expect(ids.filter((id) => waiters.get(id)!.endedAt !== null)).toEqual(["req-7"]);

      // Several changes between two polls: each named request wakes.
      await changeElsewhere("req-3");
      await changeElsewhere("req-59");
      expect(await until(() => waiters.get("req-3")!.endedAt !== null && waiters.get("req-59")!.endedAt !== null, withinPoll)).toBe(true);
      expect(ids.filter((id) => waiters.get(id)!.endedAt !== null).sort()).toEqual(["req-3", "req-59", "req-7"]);

      // Announced in process: at once, without waiting for a poll or any
      // timer: the wait has ended before the event loop's next turn (a clock
      // bound here failed only when the machine was busy).
      changes.emitLocalChange("req-11");
      const first = await Promise.race([
        waiters.get("req-11")!.done.then(() => "woken"),
        new Promise<string>((r) => setImmediate(() => r("next turn"))),
      ]);
      expect(first).toBe("woken");
    });

    it("a wait ends at its own deadline when nothing changes", async () => {
      const t0 = Date.now();
      await changes.waitForChange("req-quiet", 300);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
      expect(Date.now() - t0).toBeLessThan(withinPoll);
    });
  });
}
