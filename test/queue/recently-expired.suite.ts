// Requests that expired in the last hour while the viewer could have decided
// them (lib/queue/recently-expired.ts), on a real database: the queue's own
// "can act" rule and filters, swept or not yet swept, and nothing older,
// decided, the viewer's own, voted on, or of another role.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";

export function recentlyExpiredSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`recently expired requests (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let countRecentlyExpired: typeof import("@/lib/queue/recently-expired").countRecentlyExpired;
    let recordReview: typeof import("@/lib/reviews/record-review").recordReview;

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      ({ countRecentlyExpired } = await import("@/lib/queue/recently-expired"));
      ({ recordReview } = await import("@/lib/reviews/record-review"));
    });
    afterAll(async () => ctx?.close());

    it("counts what the viewer could have decided, expired in the last hour, with the queue's filters", async () => {
      const service = await f.makeService();
      const role = `rx-${f.uid()}`;
      await f.makePolicy({ tool: "rx.*", roles: [role], quorum: 2 });
      await f.makePolicy({ tool: "rxo.*", roles: [`other-${f.uid()}`], quorum: 1 });
      const viewer = await f.makeUser([role]);
      const colleague = await f.makeUser([role]);
      const make = async (tool: string, extra: { requested_by?: string; effects?: string } = {}) =>
        (await f.makeApproval(service, { tool: `${tool}.${f.uid()}`, ...extra })).approval_id;
      const ids = {
        swept: await make("rx.a", { effects: "destructive" }),
        unswept: await make("rx.b"),
        old: await make("rx.c"),
        live: await make("rx.d"),
        own: await make("rx.e", { requested_by: viewer.email }),
        voted: await make("rx.f"),
        denied: await make("rx.g"),
        otherRole: await make("rxo.h"),
      };
      await recordReview(viewer.id, { approvalId: ids.voted, decision: "approve" });
      await recordReview(colleague.id, { approvalId: ids.denied, decision: "deny", reason: "no" });
      const now = new Date();
      const ago = (min: number) => new Date(now.getTime() - min * 60_000);
      const expire = (ids: string[], at: Date) => ctx.db.approval.updateMany({ where: { id: { in: ids } }, data: { expiresAt: at } });
      await expire([ids.swept, ids.unswept, ids.own, ids.voted, ids.denied, ids.otherRole], ago(10));
      await expire([ids.old], ago(90));
      await expire([ids.live], ago(-120));
      await ctx.db.approval.updateMany({ where: { id: { in: [ids.swept, ids.old] } }, data: { status: "expired" } });

      expect(await countRecentlyExpired(viewer.id, {}, now)).toEqual({ count: 2, capped: false });
      expect(await countRecentlyExpired(viewer.id, { effects: "destructive" }, now)).toEqual({ count: 1, capped: false });
      expect(await countRecentlyExpired(viewer.id, { service: service.slug }, now)).toEqual({ count: 2, capped: false });
      expect(await countRecentlyExpired(viewer.id, { service: "no-such-service" }, now)).toEqual({ count: 0, capped: false });
      // The colleague did not vote on the one the viewer approved: it counts for them (the denied one was decided).
      expect(await countRecentlyExpired(colleague.id, {}, now)).toEqual({ count: 4, capped: false });
      // An hour and more later, nothing is recent.
      expect(await countRecentlyExpired(viewer.id, {}, new Date(now.getTime() + 61 * 60_000))).toEqual({ count: 0, capped: false });
      expect(await countRecentlyExpired("usr_nobody", {}, now)).toEqual({ count: 0, capped: false });
    });
  });
}
