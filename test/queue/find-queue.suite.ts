// The review queue on a real database: which section a request lands in for
// a viewer (the "can act on" rules of docs/architecture.md, checked in SQL and
// cross-checked against eligibility()), the filters, keyset paging in both
// orders and across decided statuses, capped counts, and change tracking
// (lib/queue/). The newer ways through the queue are in queue-features.suite.ts,
// 100,000 requests in queue-scale.suite.ts.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";

export function queueSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`findQueue (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let q: typeof import("@/lib/queue/find-queue");
    let params: typeof import("@/lib/queue/query-params");
    let feed: typeof import("@/lib/queue/live-feed");
    let recordReview: typeof import("@/lib/reviews/record-review").recordReview;
    let cancelApproval: typeof import("@/lib/approvals/cancel-approval").cancelApproval;
    let newId: typeof import("@/lib/ids").newId;

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      q = await import("@/lib/queue/find-queue");
      params = await import("@/lib/queue/query-params");
      feed = await import("@/lib/queue/live-feed");
      ({ recordReview } = await import("@/lib/reviews/record-review"));
      ({ cancelApproval } = await import("@/lib/approvals/cancel-approval"));
      ({ newId } = await import("@/lib/ids"));
    });
    afterAll(async () => ctx?.close());

    type Service = Awaited<ReturnType<typeof f.makeService>>;
    const ids = (s: { rows: Array<{ id: string }> } | null) => (s ? s.rows.map((r) => r.id) : null);
    /** Every page of one section, following its cursors. */
    async function allPages(
      viewerId: string,
      query: import("@/lib/queue/query-params").QueueQuery,
      section: "canAct" | "waiting" | "decided",
      pageSize: number,
    ) {
      const param = { canAct: "act", waiting: "wait", decided: "done" } as const;
      const pages: string[][] = [];
      let cursor: string | null = null;
      do {
        const page = await q.findQueue(
          viewerId,
          { ...query, ...(cursor ? { [param[section]]: params.cursorSchema.parse(cursor) } : {}) },
          { pageSize },
        );
        const s = page[section]!;
        pages.push(s.rows.map((r) => r.id));
        cursor = s.next;
      } while (cursor && pages.length < 100);
      return pages;
    }
    /** (created_at, id) order of the given requests, straight from the table. */
    async function dbOrder(approvalIds: string[], dir: "asc" | "desc") {
      const rows = await ctx.db.approval.findMany({
        where: { id: { in: approvalIds } },
        orderBy: [{ createdAt: dir }, { id: dir }],
        select: { id: true },
      });
      return rows.map((r) => r.id);
    }

    it("puts each pending request in the right section, agreeing with eligibility(), and shows only what the viewer may see", async () => {
      const service = await f.makeService();
      const slug = service.slug;
      await f.makePolicy({ service: slug, tool: "two.*", roles: ["reviewer"], quorum: 2 });
      await f.makePolicy({ service: slug, tool: "pay.*", roles: ["payments"], quorum: 1 });
      await f.makePolicy({ service: slug, tool: "multi.*", roles: ["ops", "reviewer"], quorum: 1 });
      // Near misses of "reviewer": a longer name, and one whose JSON text contains "reviewer" in quotes.
      await f.makePolicy({ service: slug, tool: "near.plural", roles: ["reviewers"], quorum: 1 });
      await f.makePolicy({ service: slug, tool: "near.quoted", roles: ['x"reviewer'], quorum: 1 });

      const viewer = await f.makeUser(["reviewer"]);
      const other = await f.makeUser(["reviewer"]);
      // requested_by must be an email address (docs/security.md): a subject that is one still matches.
      await ctx.db.identity.create({
        data: { id: newId("idn"), userId: viewer.id, issuer: "https://idp.example.com", subject: "Viewer-Sub-1@idp.example.com", email: null },
      });

      const mk = (tool: string, requested_by?: string) => f.makeApproval(service, { tool, ...(requested_by ? { requested_by } : {}) });
      const can = {
        plain: await mk("mail.send"),
        otherRequester: await mk("mail.send", "someone.else@example.com"),
        multiRole: await mk("multi.deploy"),
        otherVoted: await mk("two.transfer"),
      };
      await recordReview(other.id, { approvalId: can.otherVoted.approval_id, decision: "approve" });
      const wait = {
        ownEmail: await mk("mail.send", `  ${viewer.email.toUpperCase()} `),
        ownIdentity: await mk("mail.send", "viewer-sub-1@idp.example.com"),
        ownOtherRole: await mk("pay.send", viewer.email),
        voted: await mk("two.transfer"),
      };
      // Requests the viewer holds no role of and did not ask for: not shown to them at all (docs/security.md).
      const hidden = {
        wrongRole: await mk("pay.send"),
        plural: await mk("near.plural"),
        quoted: await mk("near.quoted"),
      };
      await recordReview(viewer.id, { approvalId: wait.voted.approval_id, decision: "approve" });

      const queue = await q.findQueue(viewer.id, { service: slug });
      const canIds = new Set(ids(queue.canAct));
      const waitIds = new Set(ids(queue.waiting));
      for (const [name, a] of Object.entries(can)) expect(canIds.has(a.approval_id), `${name} can act`).toBe(true);
      for (const [name, a] of Object.entries(wait)) expect(waitIds.has(a.approval_id), `${name} waiting`).toBe(true);
      for (const [name, a] of Object.entries(hidden)) expect(canIds.has(a.approval_id) || waitIds.has(a.approval_id), `${name} hidden`).toBe(false);
      expect(queue.canAct!.count).toBe(Object.keys(can).length);
      expect(queue.waiting!.count).toBe(Object.keys(wait).length);

      // The SQL and the one rule function agree on every row.
      for (const row of queue.canAct!.rows) expect(row.whyNot, row.tool).toBeNull();
      for (const row of queue.waiting!.rows) expect(row.whyNot, row.tool).not.toBeNull();
      const voted = queue.waiting!.rows.find((r) => r.id === wait.voted.approval_id)!;
      expect(voted).toMatchObject({ myDecision: "approve", approvals: 1, quorum: 2, status: "pending" });
      expect(queue.waiting!.rows.find((r) => r.id === wait.ownEmail.approval_id)!.whyNot).toMatch(/you requested this call/);
      expect(queue.waiting!.rows.find((r) => r.id === wait.ownOtherRole.approval_id)!.whyNot).toMatch(/you requested this call/);

      // The other reviewer: can act on the viewer's own request; has voted on otherVoted.
      const theirs = await q.findQueue(other.id, { service: slug });
      expect(ids(theirs.canAct)).toContain(wait.ownEmail.approval_id);
      expect(ids(theirs.waiting)).toContain(can.otherVoted.approval_id);

      // No role: sees nothing (docs/security.md).
      const nobody = await f.makeUser([]);
      const none = await q.findQueue(nobody.id, { service: slug });
      expect(none.canAct).toMatchObject({ rows: [], count: 0, next: null });
      expect(none.waiting).toMatchObject({ rows: [], count: 0, next: null });
      // An auditor sees every request, acts on none, and is told why.
      const auditor = await f.makeUser(["auditor"]);
      const audited = await q.findQueue(auditor.id, { service: slug });
      expect(audited.canAct!.count).toBe(0);
      expect(audited.waiting!.count).toBe(Object.keys(can).length + Object.keys(wait).length + Object.keys(hidden).length);
      expect(audited.waiting!.rows.find((r) => r.id === hidden.wrongRole.approval_id)!.whyNot).toMatch(/payments/);

      // A disabled account can act on nothing.
      await ctx.db.user.update({ where: { id: viewer.id }, data: { disabledAt: new Date() } });
      expect((await q.findQueue(viewer.id, { service: slug })).canAct!.count).toBe(0);
    });

    it("moves requests to recent decisions when decided, cancelled or expired", async () => {
      const service = await f.makeService();
      const viewer = await f.makeUser(["reviewer"]);
      const decider = await f.makeUser(["reviewer"]);
      const approved = await f.makeApproval(service, { tool: "mail.send" });
      const denied = await f.makeApproval(service, { tool: "mail.send" });
      const cancelled = await f.makeApproval(service, { tool: "mail.send" });
      const overdue = await f.makeApproval(service, { tool: "mail.send" });
      const open = await f.makeApproval(service, { tool: "mail.send" });
      await recordReview(decider.id, { approvalId: approved.approval_id, decision: "approve" });
      await recordReview(decider.id, { approvalId: denied.approval_id, decision: "deny", reason: "no" });
      await cancelApproval(service.auth, cancelled.approval_id);
      // Past its expiry but not yet swept: already shown as expired.
      await ctx.db.approval.update({ where: { id: overdue.approval_id }, data: { expiresAt: new Date(Date.now() - 1000) } });

      const queue = await q.findQueue(viewer.id, { service: service.slug });
      expect(ids(queue.canAct)).toEqual([open.approval_id]);
      expect(ids(queue.waiting)).toEqual([]);
      const decided = new Map(queue.decided!.rows.map((r) => [r.id, r]));
      expect(queue.decided!.count).toBe(4);
      expect(decided.get(approved.approval_id)).toMatchObject({ status: "approved", decidedBy: [decider.email] });
      expect(decided.get(denied.approval_id)).toMatchObject({ status: "denied", decidedBy: [decider.email] });
      expect(decided.get(cancelled.approval_id)).toMatchObject({ status: "cancelled", decidedBy: [] });
      expect(decided.get(overdue.approval_id)).toMatchObject({ status: "expired", decidedBy: [] });
      expect(decided.get(overdue.approval_id)!.decidedAt).not.toBeNull();
      // Most recently decided first (an unswept expiry counts as decided at its expiry).
      const byDecision = await ctx.db.approval.findMany({
        where: { id: { in: [...decided.keys()] } },
        select: { id: true, decidedAt: true, expiresAt: true },
      });
      const decisionOrder = byDecision
        .map((r) => ({ id: r.id, at: (r.decidedAt ?? r.expiresAt).getTime() }))
        .sort((x, y) => y.at - x.at || (x.id < y.id ? 1 : -1))
        .map((r) => r.id);
      expect(ids(queue.decided)).toEqual(decisionOrder);

      // The status filter picks sections: pending hides decisions, a decision hides pending.
      const pendingOnly = await q.findQueue(viewer.id, { service: service.slug, status: "pending" });
      expect(pendingOnly.decided).toBeNull();
      expect(ids(pendingOnly.canAct)).toEqual([open.approval_id]);
      const expiredOnly = await q.findQueue(viewer.id, { service: service.slug, status: "expired" });
      expect(expiredOnly.canAct).toBeNull();
      expect(expiredOnly.waiting).toBeNull();
      expect(ids(expiredOnly.decided)).toEqual([overdue.approval_id]);
      expect(ids((await q.findQueue(viewer.id, { service: service.slug, status: "denied" })).decided)).toEqual([denied.approval_id]);
    });

    it("filters by service, tool and effects", async () => {
      const s1: Service = await f.makeService();
      const s2: Service = await f.makeService();
      const viewer = await f.makeUser(["reviewer"]);
      const tool = `filter.${randomUUID().slice(0, 8)}`;
      const a = await f.makeApproval(s1, { tool, effects: "destructive" });
      const b = await f.makeApproval(s1, { tool, effects: "read" });
      const c = await f.makeApproval(s2, { tool, effects: "destructive" });
      await f.makeApproval(s1, { tool: "mail.other" });

      const byTool = await q.findQueue(viewer.id, { tool });
      expect(new Set(ids(byTool.canAct))).toEqual(new Set([a.approval_id, b.approval_id, c.approval_id]));
      expect(ids((await q.findQueue(viewer.id, { tool, service: s1.slug })).canAct)).toEqual(await dbOrder([a.approval_id, b.approval_id], "asc"));
      expect(new Set(ids((await q.findQueue(viewer.id, { tool, effects: "destructive" })).canAct))).toEqual(new Set([a.approval_id, c.approval_id]));
      expect(ids((await q.findQueue(viewer.id, { tool, effects: "destructive", service: s2.slug })).canAct)).toEqual([c.approval_id]);
      // An unknown service matches nothing (rather than being ignored).
      const unknown = await q.findQueue(viewer.id, { service: "no-such-service" });
      expect([unknown.canAct!.count, unknown.waiting!.count, unknown.decided!.count]).toEqual([0, 0, 0]);
    });

    it("pages by keyset in both orders, with ties on created_at, without gaps or repeats", async () => {
      const service = await f.makeService();
      const viewer = await f.makeUser(["reviewer"]);
      const made: string[] = [];
      for (let i = 0; i < 11; i++) made.push((await f.makeApproval(service, { tool: "mail.send" })).approval_id);
      // Five requests share one created_at: only the id orders them.
      const tie = new Date(Date.now() - 60_000);
      await ctx.db.approval.updateMany({ where: { id: { in: made.slice(3, 8) } }, data: { createdAt: tie } });

      const query = { service: service.slug };
      const oldest = await allPages(viewer.id, query, "canAct", 3);
      expect(oldest.map((p) => p.length)).toEqual([3, 3, 3, 2]);
      expect(oldest.flat()).toEqual(await dbOrder(made, "asc"));

      const newest = await allPages(viewer.id, { ...query, order: "newest" }, "canAct", 4);
      expect(newest.map((p) => p.length)).toEqual([4, 4, 3]);
      expect(newest.flat()).toEqual(await dbOrder(made, "desc"));

      // The same for a viewer who sees them all as waiting (an auditor: no reviewing role).
      const auditor = await f.makeUser(["auditor"]);
      expect((await allPages(auditor.id, query, "waiting", 5)).flat()).toEqual(await dbOrder(made, "asc"));
      // Someone with no role sees none of them (docs/security.md).
      const roleless = await f.makeUser([]);
      expect((await allPages(roleless.id, query, "waiting", 5)).flat()).toEqual([]);

      // Counts cover every page and stop at the cap.
      const first = await q.findQueue(viewer.id, query, { pageSize: 3 });
      expect(first.canAct).toMatchObject({ count: 11, countCapped: false });
      expect((await q.findQueue(viewer.id, query, { pageSize: 3, countCap: 5 })).canAct).toMatchObject({ count: 5, countCapped: true });

      // A cursor is "<ms>.<id>" and survives the URL; junk is refused.
      expect(first.canAct!.next).toMatch(/^\d+\.apr_[a-z2-7]+$/);
      expect(params.parseQueueQuery({ act: first.canAct!.next!, tool: "bad tool!", effects: ["read", "write"], status: "" })).toEqual({
        query: { act: params.cursorSchema.parse(first.canAct!.next!), effects: "read" },
        raw: { act: first.canAct!.next!, effects: "read" },
        invalid: ["tool"],
      });
      expect(params.cursorSchema.safeParse("1.x; DROP TABLE approvals").success).toBe(false);
    });

    it("pages recent decisions newest first across statuses", async () => {
      const service = await f.makeService();
      const viewer = await f.makeUser(["reviewer"]);
      const decider = await f.makeUser(["reviewer"]);
      const made: string[] = [];
      for (let i = 0; i < 9; i++) {
        const a = await f.makeApproval(service, { tool: "mail.send" });
        made.push(a.approval_id);
        if (i % 3 === 0) await recordReview(decider.id, { approvalId: a.approval_id, decision: "approve" });
        else if (i % 3 === 1) await recordReview(decider.id, { approvalId: a.approval_id, decision: "deny", reason: "no" });
        else await cancelApproval(service.auth, a.approval_id);
      }
      const pages = await allPages(viewer.id, { service: service.slug }, "decided", 2);
      expect(pages.map((p) => p.length)).toEqual([2, 2, 2, 2, 1]);
      expect(pages.flat()).toEqual(await dbOrder(made, "desc"));
    });

    it("tracks changes: a new request and a review move the version and name the request", async () => {
      const service = await f.makeService();
      const reviewer = await f.makeUser(["reviewer"]);
      const before = await feed.getQueueVersion();
      const a = await f.makeApproval(service, { tool: "mail.send" });
      const afterIngest = await feed.getQueueVersion();
      expect(afterIngest).toBeGreaterThan(before);
      expect(await feed.findQueueChanges(before, afterIngest)).toEqual({ ids: [a.approval_id], more: false, rolesChanged: false });
      await recordReview(reviewer.id, { approvalId: a.approval_id, decision: "approve" });
      const afterReview = await feed.getQueueVersion();
      expect((await feed.findQueueChanges(afterIngest, afterReview))?.ids).toEqual([a.approval_id]);
      expect(await feed.findQueueChanges(afterReview, afterReview)).toBeNull();
    });
  });
}
