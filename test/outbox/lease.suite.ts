// Leases on outbox rows (lib/outbox/lease.ts), on a real database: of two
// owners claiming the same rows at once each row goes to exactly one; a row
// under a running lease, or no longer pending, is not claimed; a lease that
// ran out is claimed again; a stopping instance hands back every lease its
// passes hold, the notification triggers' included.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";

export function leaseSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`outbox leases (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let lease: typeof import("@/lib/outbox/lease");
    let direct: typeof import("@/lib/db/sql").direct;

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      lease = await import("@/lib/outbox/lease");
      ({ direct } = await import("@/lib/db/sql"));
    });
    afterAll(async () => ctx?.close());

    /** `n` pending messages due now; their ids. */
    async function messages(n: number, extra: Record<string, unknown> = {}) {
      const ids = Array.from({ length: n }, () => `ntf_${randomUUID()}`);
      for (const id of ids) {
        await ctx.db.notification.create({
          data: {
            id,
            dedupeKey: id,
            channel: "email",
            kind: "needs_review",
            recipient: "r@example.com",
            subject: "s",
            body: "{}",
            nextAttemptAt: new Date(),
            ...extra,
          },
        });
      }
      return ids;
    }
    const owners = async (ids: string[]) =>
      (await ctx.db.notification.findMany({ where: { id: { in: ids } }, select: { leaseOwner: true } })).map((r) => r.leaseOwner);

    /** Each row's lease owner, in the order of `ids`. */
    const ownersInOrder = async (ids: string[]) => {
      const rows = await ctx.db.notification.findMany({ where: { id: { in: ids } }, select: { id: true, leaseOwner: true } });
      return ids.map((id) => rows.find((r) => r.id === id)?.leaseOwner);
    };

    it("gives each row to exactly one of two owners claiming at once", async () => {
      for (let round = 0; round < 5; round++) {
        const ids = await messages(8);
        const [a, b] = [lease.passOwner(), lease.passOwner()];
        const won = await Promise.all([
          lease.claim(direct(), "notifications", ids, a),
          lease.claim(direct(), "notifications", [...ids].reverse(), b),
        ]);
        expect(won[0] + won[1]).toBe(8);
        const held = await owners(ids);
        expect(held.filter((o) => o === a)).toHaveLength(won[0]);
        expect(held.filter((o) => o === b)).toHaveLength(won[1]);
      }
    });

    it("claims nothing under a running lease or no longer pending; claims a lease that ran out", async () => {
      const [running] = await messages(1, { leaseOwner: "other/1", leaseUntil: new Date(Date.now() + 60_000) });
      const [sent] = await messages(1, { status: "sent" });
      const [expired] = await messages(1, { leaseOwner: "crashed/1", leaseUntil: new Date(Date.now() - 1) });
      const owner = lease.passOwner();
      expect(await lease.claim(direct(), "notifications", [running!, sent!, expired!], owner)).toBe(1);
      expect(await owners([running!, sent!, expired!])).toEqual(expect.arrayContaining(["other/1", null, owner]));
      const claimed = await ctx.db.notification.findUniqueOrThrow({ where: { id: expired! } });
      expect(claimed.leaseUntil!.getTime()).toBeGreaterThan(Date.now() + lease.LEASE_MS - 5_000);
      expect(await lease.claim(direct(), "notifications", [], owner)).toBe(0);
    });

    it("hands back, on stopping, what every pass of this instance holds, triggers included, and nothing of another's", async () => {
      const f = await import("../helpers/fixtures");
      const { releaseNotificationLeases } = await import("@/lib/notifications/deliver-notifications");
      const mine = await messages(2);
      const theirs = await messages(1);
      await lease.claim(direct(), "notifications", mine, lease.passOwner());
      await lease.claim(direct(), "notifications", theirs, "another-instance/1");
      const approval = await f.makeApproval(await f.makeService(), { tool: `lease${f.uid()}.run` });
      const trigger = await ctx.db.notificationTrigger.create({
        data: { id: `ntr_${randomUUID()}`, approvalId: approval.approval_id, kind: "reminder", seq: 99, dueAt: new Date() },
      });
      expect(await lease.claim(direct(), "notification_triggers", [trigger.id], lease.passOwner())).toBe(1);

      await releaseNotificationLeases();
      expect(await owners(mine)).toEqual([null, null]);
      expect(await owners(theirs)).toEqual(["another-instance/1"]);
      expect((await ctx.db.notificationTrigger.findUniqueOrThrow({ where: { id: trigger.id } })).leaseOwner).toBeNull();
    });

    it("claims in one statement at most a batch of the rows due, those due first, and nothing not due or not free", async () => {
      const base = Date.now() + 3_600_000; // due later than anything the other tests made
      const at = (minutes: number) => new Date(base + minutes * 60_000);
      const [late, early, middle] = [
        await messages(1, { nextAttemptAt: at(3) }),
        await messages(1, { nextAttemptAt: at(1) }),
        await messages(1, { nextAttemptAt: at(2) }),
      ];
      const [notYet] = await messages(1, { nextAttemptAt: at(10) });
      const [leased] = await messages(1, { nextAttemptAt: at(0), leaseOwner: "other/2", leaseUntil: new Date(Date.now() + 60_000) });
      // Everything else the earlier tests left is due before `base`: out of the way first.
      await lease.claimDue(direct(), "notifications", new Date(base - 1), 10_000, "earlier/1");
      const owner = lease.passOwner();
      expect(await lease.claimDue(direct(), "notifications", at(5), 2, owner)).toBe(2);
      expect(await ownersInOrder([early![0]!, middle![0]!, late![0]!, notYet!, leased!])).toEqual([owner, owner, null, null, "other/2"]);
      const [a, b] = [lease.passOwner(), lease.passOwner()];
      const won = await Promise.all([lease.claimDue(direct(), "notifications", at(5), 5, a), lease.claimDue(direct(), "notifications", at(5), 5, b)]);
      expect(won[0] + won[1]).toBe(1);
      expect(await ownersInOrder([late![0]!])).toEqual([won[0] === 1 ? a : b]);
      expect(await lease.claimDue(direct(), "notifications", at(5), 5, lease.passOwner())).toBe(0);
    });

    it("gives up on a message only past 25 hours of failing", () => {
      const created = new Date("2026-01-01T00:00:00Z");
      expect(lease.givenUp(created, new Date("2026-01-02T00:59:59Z"))).toBe(false);
      expect(lease.givenUp(created, new Date("2026-01-02T01:00:01Z"))).toBe(true);
    });
  });
}
