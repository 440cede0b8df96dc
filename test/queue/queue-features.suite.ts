// The queue's ways to move fast, on a real database: the "expiring soonest"
// order, recent decisions by decision time, search (a literal, case-insensitive
// substring), the run filter, the "My requests" and "Decided by me" views
// (visibility still applies), the rows' key argument values, and the URL
// parameters that carry them (lib/queue/).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";

export function queueFeaturesSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`queue features (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let q: typeof import("@/lib/queue/find-queue");
    let params: typeof import("@/lib/queue/query-params");
    let recordReview: typeof import("@/lib/reviews/record-review").recordReview;
    let cancelApproval: typeof import("@/lib/approvals/cancel-approval").cancelApproval;

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      q = await import("@/lib/queue/find-queue");
      params = await import("@/lib/queue/query-params");
      ({ recordReview } = await import("@/lib/reviews/record-review"));
      ({ cancelApproval } = await import("@/lib/approvals/cancel-approval"));
    });
    afterAll(async () => ctx?.close());

    type Query = import("@/lib/queue/query-params").QueueQuery;
    type SectionName = "canAct" | "waiting" | "decided";
    const ids = (s: { rows: Array<{ id: string }> } | null) => (s ? s.rows.map((r) => r.id) : null);
    const sorted = (xs: string[] | null) => [...(xs ?? [])].sort();

    /** Every page of one section, following its cursors. */
    async function allPages(viewerId: string, query: Query, section: SectionName, pageSize: number) {
      const param = { canAct: "act", waiting: "wait", decided: "done" } as const;
      const pages: string[][] = [];
      let cursor: string | null = null;
      do {
        const page = await q.findQueue(
          viewerId,
          { ...query, ...(cursor ? { [param[section]]: params.cursorSchema.parse(cursor) } : {}) },
          { pageSize },
        );
        pages.push(ids(page[section])!);
        cursor = page[section]!.next;
      } while (cursor && pages.length < 100);
      return pages;
    }

    it("orders pending requests by expiry, soonest first, and pages through ties", async () => {
      const service = await f.makeService();
      const viewer = await f.makeUser(["reviewer"]);
      const made: string[] = [];
      for (const ttl of [3600, 600, 7200, 900, 1800, 1800, 1800, 300])
        made.push((await f.makeApproval(service, { tool: "mail.send", expires_in: ttl })).approval_id);
      // Three share one expiry: only the id orders them.
      const tie = new Date(Date.now() + 1800_000);
      await ctx.db.approval.updateMany({ where: { id: { in: made.slice(4, 7) } }, data: { expiresAt: tie } });
      const expected = (
        await ctx.db.approval.findMany({ where: { id: { in: made } }, orderBy: [{ expiresAt: "asc" }, { id: "asc" }], select: { id: true } })
      ).map((r) => r.id);
      expect(expected[0]).toBe(made[7]);

      const query: Query = { service: service.slug, order: "expiring" };
      const pages = await allPages(viewer.id, query, "canAct", 3);
      expect(pages.map((p) => p.length)).toEqual([3, 3, 2]);
      expect(pages.flat()).toEqual(expected);
      expect((await q.findQueue(viewer.id, query)).canAct!.count).toBe(8);
      // The same order in "waiting on others" (an auditor acts on none).
      const auditor = await f.makeUser(["auditor"]);
      expect((await allPages(auditor.id, query, "waiting", 5)).flat()).toEqual(expected);
    });

    it("lists recent decisions by decision time, not creation time", async () => {
      const service = await f.makeService();
      const viewer = await f.makeUser(["reviewer"]);
      const decider = await f.makeUser(["reviewer"]);
      const [first, second, third, overdue] = [
        await f.makeApproval(service, { tool: "mail.send" }),
        await f.makeApproval(service, { tool: "mail.send" }),
        await f.makeApproval(service, { tool: "mail.send" }),
        await f.makeApproval(service, { tool: "mail.send" }),
      ].map((a) => a.approval_id) as [string, string, string, string];
      // Decided in the order third, first, second; `overdue` expired (not yet swept) between first and second.
      await recordReview(decider.id, { approvalId: third, decision: "approve" });
      await ctx.db.approval.update({ where: { id: third }, data: { decidedAt: new Date(Date.now() - 40_000) } });
      await recordReview(decider.id, { approvalId: first, decision: "deny", reason: "no" });
      await ctx.db.approval.update({ where: { id: first }, data: { decidedAt: new Date(Date.now() - 30_000) } });
      await ctx.db.approval.update({ where: { id: overdue }, data: { expiresAt: new Date(Date.now() - 20_000) } });
      await cancelApproval(service.auth, second);

      const expected = [second, overdue, first, third];
      expect(ids((await q.findQueue(viewer.id, { service: service.slug })).decided)).toEqual(expected);
      const pages = await allPages(viewer.id, { service: service.slug }, "decided", 1);
      expect(pages.flat()).toEqual(expected);
      expect(ids((await q.findQueue(viewer.id, { service: service.slug, status: "expired" })).decided)).toEqual([overdue]);
    });

    it("searches tool, requester, run id and request id as a literal, case-insensitive substring", async () => {
      const service = await f.makeService();
      const viewer = await f.makeUser(["reviewer"]);
      const mk = async (tool: string, run: string, requested_by = "someone@example.com") => {
        const a = await f.makeApproval(service, { tool, requested_by });
        await ctx.db.approval.update({ where: { id: a.approval_id }, data: { runId: run } });
        return a.approval_id;
      };
      const pct = await mk("files.list", "run%1");
      const under = await mk("files.list", "run_1");
      const plain = await mk("files.list", "runX1");
      const slash = await mk("files.list", "run\\1");
      const bang = await mk("files.list", "run!1");
      const upperTool = await mk("Mail.SendBig", "r-1");
      const requester = await mk("files.list", "r-2", "Ana.Search@Example.com");
      const search = async (text: string) => sorted(ids((await q.findQueue(viewer.id, { service: service.slug, q: text })).canAct));

      expect(await search("run%1")).toEqual([pct]);
      expect(await search("n_1")).toEqual([under]);
      expect(await search("n\\1")).toEqual([slash]);
      expect(await search("n!1")).toEqual([bang]);
      expect(await search("%")).toEqual([pct]);
      // Every request id has a "_" ("apr_…"): a literal "_" matches them all, a wildcard one would too; "n_" tells.
      expect((await search("_")).length).toBe(7);
      expect(await search("un_")).toEqual([under]);
      expect(await search("RUNX")).toEqual([plain]);
      expect(await search("mail.sendbig")).toEqual([upperTool]);
      expect(await search("ana.search@example")).toEqual([requester]);
      expect(await search(pct.slice(4).toUpperCase())).toEqual([pct]);
      expect(await search("no such thing")).toEqual([]);
      // Decisions are searched too.
      await cancelApproval(service.auth, upperTool);
      const after = await q.findQueue(viewer.id, { service: service.slug, q: "SENDBIG" });
      expect([ids(after.canAct), ids(after.decided)]).toEqual([[], [upperTool]]);
    });

    it("filters by run, and each row links its run and shows key argument values from the redacted arguments", async () => {
      const s1 = await f.makeService();
      const s2 = await f.makeService();
      const viewer = await f.makeUser(["reviewer"]);
      const a = await f.makeApproval(s1, { tool: "mail.send", arguments: { to: "dana@example.com", subject: "Hi", body: { long: "x" } } });
      const b = await f.makeApproval(s1, { tool: "mail.send" });
      const c = await f.makeApproval(s2, { tool: "mail.send" });
      for (const [i, x] of [a, b, c].entries())
        await ctx.db.approval.update({ where: { id: x.approval_id }, data: { runId: "run-shared", callId: `c${i}` } });
      await f.makeApproval(s1, { tool: "mail.send" });

      expect(sorted(ids((await q.findQueue(viewer.id, { run: "run-shared" })).canAct))).toEqual(
        sorted([a.approval_id, b.approval_id, c.approval_id]),
      );
      const inS1 = await q.findQueue(viewer.id, { run: "run-shared", service: s1.slug });
      expect(sorted(ids(inS1.canAct))).toEqual(sorted([a.approval_id, b.approval_id]));
      const row = inS1.canAct!.rows.find((r) => r.id === a.approval_id)!;
      expect(row.runId).toBe("run-shared");
      // Never the raw value: the email is redacted before storage.
      expect(row.keyArgs).toEqual([
        { key: "to", value: "[redacted:email]" },
        { key: "subject", value: "Hi" },
      ]);
    });

    it("shows 'My requests' and 'Decided by me', each only within what the viewer may see", async () => {
      const service = await f.makeService();
      await f.makePolicy({ service: service.slug, tool: "two.*", roles: ["reviewer"], quorum: 2 });
      const viewer = await f.makeUser(["reviewer"]);
      const other = await f.makeUser(["reviewer"]);
      const myPending = await f.makeApproval(service, { tool: "mail.send", requested_by: `  ${viewer.email.toUpperCase()} ` });
      const myDecided = await f.makeApproval(service, { tool: "mail.send", requested_by: viewer.email });
      await recordReview(other.id, { approvalId: myDecided.approval_id, decision: "approve" });
      const notMine = await f.makeApproval(service, { tool: "mail.send", requested_by: other.email });
      const votedPending = await f.makeApproval(service, { tool: "two.transfer" });
      const votedDecided = await f.makeApproval(service, { tool: "mail.send" });
      await recordReview(viewer.id, { approvalId: votedPending.approval_id, decision: "approve" });
      await recordReview(viewer.id, { approvalId: votedDecided.approval_id, decision: "deny", reason: "no" });
      const all = await q.findQueue(viewer.id, { service: service.slug });
      expect(ids(all.canAct)).toContain(notMine.approval_id);

      const mine = await q.findQueue(viewer.id, { service: service.slug, view: "mine" });
      expect([ids(mine.canAct), ids(mine.waiting), ids(mine.decided)]).toEqual([[], [myPending.approval_id], [myDecided.approval_id]]);
      expect(mine.waiting!.count).toBe(1);
      const voted = await q.findQueue(viewer.id, { service: service.slug, view: "voted" });
      expect([ids(voted.canAct), ids(voted.waiting), ids(voted.decided)]).toEqual([[], [votedPending.approval_id], [votedDecided.approval_id]]);
      // Views combine with the other filters.
      expect(ids((await q.findQueue(viewer.id, { service: service.slug, view: "voted", status: "denied" })).decided)).toEqual([
        votedDecided.approval_id,
      ]);
      expect(ids((await q.findQueue(viewer.id, { service: service.slug, view: "voted", order: "expiring" })).waiting)).toEqual([
        votedPending.approval_id,
      ]);

      // Without a reviewing role the viewer no longer sees what they voted on, but still sees their own requests.
      await ctx.db.userRole.deleteMany({ where: { userId: viewer.id } });
      const votedNow = await q.findQueue(viewer.id, { service: service.slug, view: "voted" });
      expect([ids(votedNow.waiting), ids(votedNow.decided)]).toEqual([[], []]);
      const mineNow = await q.findQueue(viewer.id, { service: service.slug, view: "mine" });
      expect([ids(mineNow.waiting), ids(mineNow.decided)]).toEqual([[myPending.approval_id], [myDecided.approval_id]]);
    });

    it("validates the new URL parameters and keeps the valid ones", () => {
      const parse = (p: Record<string, string | string[]>) => params.parseQueueQuery(p);
      expect(parse({ q: "  Refund ", view: "voted", order: "expiring", run: "run 1" })).toEqual({
        query: { q: "Refund", view: "voted", order: "expiring", run: "run 1" },
        raw: { q: "  Refund ", view: "voted", order: "expiring", run: "run 1" },
        invalid: [],
      });
      expect(parse({ q: "x".repeat(params.SEARCH_MAX_LENGTH + 1), view: "everyone", order: "random", run: "a\u0000b" }).invalid.sort()).toEqual([
        "order",
        "q",
        "run",
        "view",
      ]);
      expect(parse({ q: "a\u202eb" }).invalid).toEqual(["q"]);
      expect(parse({ q: "   " }).invalid).toEqual(["q"]);
      expect(parse({ q: "x".repeat(params.SEARCH_MAX_LENGTH) }).invalid).toEqual([]);
    });
  });
}
