// Previous / next on the decision page (lib/reviews/neighbours.ts) on a real
// database: the requests the viewer can act on, in the queue's default order
// (oldest first, then id), exactly the queue's "Needs your review" list;
// requests that are not in it (own, voted on, another role's, expired,
// decided) still have neighbours by their place in that order.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";

export function neighboursSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`previous / next request (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let findNeighbours: typeof import("@/lib/reviews/neighbours").findNeighbours;
    let findQueue: typeof import("@/lib/queue/find-queue").findQueue;
    let recordReview: typeof import("@/lib/reviews/record-review").recordReview;

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      ({ findNeighbours } = await import("@/lib/reviews/neighbours"));
      ({ findQueue } = await import("@/lib/queue/find-queue"));
      ({ recordReview } = await import("@/lib/reviews/record-review"));
    });
    afterAll(async () => ctx?.close());

    it("walks the queue's 'Needs your review' list in order, and places every other request in it", async () => {
      const service = await f.makeService();
      await f.makePolicy({ tool: "nb.pay.*", roles: ["payments"], quorum: 2 });
      await f.makePolicy({ tool: "nb.ops.*", roles: ["ops"], quorum: 1 });
      const viewer = await f.makeUser(["payments"]);
      const other = await f.makeUser(["payments"]);

      const make = async (tool: string, extra: { requested_by?: string } = {}) =>
        (await f.makeApproval(service, { tool: `nb.${tool}.${f.uid()}`, ...extra })).approval_id;
      const ids = {
        a: await make("pay"),
        own: await make("pay", { requested_by: viewer.email }),
        b: await make("pay"),
        ops: await make("ops"),
        voted: await make("pay"),
        c: await make("pay"),
        expired: await make("pay"),
        decided: await make("pay"),
        d: await make("pay"),
        e: await make("pay"),
      };
      // Ties on the creation time are ordered by id, as in the queue.
      const tie = new Date(Date.now() - 60_000);
      await ctx.db.approval.updateMany({ where: { id: { in: [ids.d, ids.e] } }, data: { createdAt: tie } });
      await ctx.db.approval.update({ where: { id: ids.expired }, data: { expiresAt: new Date(Date.now() - 1000) } });
      await recordReview(viewer.id, { approvalId: ids.voted, decision: "approve" });
      await recordReview(other.id, { approvalId: ids.decided, decision: "deny", reason: "no" });

      const list = (await findQueue(viewer.id, {}, { pageSize: 100 })).canAct!.rows.map((r) => r.id);
      expect(new Set(list)).toEqual(new Set([ids.a, ids.b, ids.c, ids.d, ids.e]));

      // Members: their neighbours in the list; "following" is the next, else the oldest other one.
      for (const [i, id] of list.entries()) {
        const prev = list[i - 1] ?? null;
        const next = list[i + 1] ?? null;
        const following = next ?? list.find((x) => x !== id) ?? null;
        expect(await findNeighbours(viewer.id, id), `member ${i}`).toEqual({ prev, next, following });
      }

      // Non-members: placed by (created_at, id) among the members.
      const all = await ctx.db.approval.findMany({ select: { id: true, createdAt: true } });
      const key = new Map(all.map((r) => [r.id, [r.createdAt.getTime(), r.id] as const]));
      const cmp = (x: string, y: string) => {
        const [kx, ky] = [key.get(x)!, key.get(y)!];
        return kx[0] - ky[0] || (kx[1] < ky[1] ? -1 : kx[1] > ky[1] ? 1 : 0);
      };
      for (const id of [ids.own, ids.ops, ids.voted, ids.expired, ids.decided]) {
        const before = list.filter((x) => cmp(x, id) < 0);
        const after = list.filter((x) => cmp(x, id) > 0);
        const prev = before[before.length - 1] ?? null;
        const next = after[0] ?? null;
        expect(await findNeighbours(viewer.id, id), id).toEqual({ prev, next, following: next ?? list[0] ?? null });
      }
    });

    it("follows the queue's filters and order: the same list as findQueue with that query", async () => {
      const service = await f.makeService();
      const other = await f.makeService();
      const role = `nbq-${f.uid()}`;
      await f.makePolicy({ tool: "nbq.*", roles: [role], quorum: 1 });
      const viewer = await f.makeUser([role]);
      const make = async (effects: "read" | "write" | "destructive", expiresIn: number, on = service) =>
        (await f.makeApproval(on, { tool: `nbq.${effects}.${f.uid()}`, effects, expires_in: expiresIn })).approval_id;
      // Created in this order; expiring in another.
      const w1 = await make("write", 3000);
      const d1 = await make("destructive", 600);
      const w2 = await make("write", 900);
      const r1 = await make("read", 1000);
      const w3 = await make("write", 2000);
      const w4 = await make("write", 1500, other);
      const slug = service.slug;

      const queries = [
        {},
        { order: "expiring" as const },
        { order: "newest" as const },
        { effects: "write" as const },
        { effects: "write" as const, order: "expiring" as const },
        { effects: "write" as const, order: "newest" as const, service: slug },
      ];
      for (const query of queries) {
        const list = (await findQueue(viewer.id, query, { pageSize: 100 })).canAct!.rows.map((r) => r.id);
        expect(list.length, JSON.stringify(query)).toBeGreaterThan(1);
        for (const [i, id] of list.entries()) {
          const prev = list[i - 1] ?? null;
          const next = list[i + 1] ?? null;
          const following = next ?? list.find((x) => x !== id) ?? null;
          expect(await findNeighbours(viewer.id, id, query), `${JSON.stringify(query)} ${i}`).toEqual({ prev, next, following });
        }
      }
      // Filtered to write, sorted by expiry: w2 (15 min), w4 (25), w3 (33), w1 (50); the destructive one is never "next".
      expect((await findQueue(viewer.id, { effects: "write", order: "expiring" }, { pageSize: 100 })).canAct!.rows.map((r) => r.id)).toEqual([
        w2,
        w4,
        w3,
        w1,
      ]);
      expect(await findNeighbours(viewer.id, w2, { effects: "write", order: "expiring" })).toEqual({ prev: null, next: w4, following: w4 });
      // A request outside the filter (the destructive one) is placed by its expiry among the filtered list.
      expect(await findNeighbours(viewer.id, d1, { effects: "write", order: "expiring" })).toEqual({ prev: null, next: w2, following: w2 });
      expect(await findNeighbours(viewer.id, r1, { effects: "write", order: "expiring" })).toEqual({ prev: w2, next: w4, following: w4 });
      // An unknown service filter: nothing to walk.
      expect(await findNeighbours(viewer.id, w1, { service: "no-such-service" })).toEqual({ prev: null, next: null, following: null });
    });

    it("has no neighbours for a viewer with nothing to act on, or an unknown request", async () => {
      const service = await f.makeService();
      await f.makePolicy({ tool: "lonely.*", roles: ["lonely"], quorum: 1 });
      const viewer = await f.makeUser(["lonely"]);
      const only = (await f.makeApproval(service, { tool: `lonely.${f.uid()}` })).approval_id;
      expect(await findNeighbours(viewer.id, only)).toEqual({ prev: null, next: null, following: null });
      expect(await findNeighbours(viewer.id, "apr_nope")).toEqual({ prev: null, next: null, following: null });
      const noRoles = await f.makeUser([]);
      expect(await findNeighbours(noRoles.id, only)).toEqual({ prev: null, next: null, following: null });
    });
  });
}
