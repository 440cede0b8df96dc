// docs/insights.md, anti-rubber-stamp on a real database: a policy's
// min_review_seconds and require_full_view, snapshotted by each request and
// enforced by the one vote path (recordVoteInTx) for the browser, Slack, a
// run's batch and a carried revision vote. Clocks are passed in (the page's
// first view and the vote's instant), never waited for.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";
import { refusal } from "../helpers/refusal-code";

export function reviewPaceSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`min_review_seconds and require_full_view (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let rr: typeof import("@/lib/reviews/record-review");
    let views: typeof import("@/lib/reviews/review-views");
    let inTransaction: typeof import("@/lib/db/transaction").inTransaction;
    let argumentsPage: typeof import("@/lib/display/argument-pages").argumentsPage;
    let reviewRun: typeof import("@/lib/runs/run-review").reviewRun;
    let tree: typeof import("@/lib/display/bounded-tree");
    let service: Awaited<ReturnType<typeof f.makeService>>;

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      rr = await import("@/lib/reviews/record-review");
      views = await import("@/lib/reviews/review-views");
      ({ inTransaction } = await import("@/lib/db/transaction"));
      ({ argumentsPage } = await import("@/lib/display/argument-pages"));
      ({ reviewRun } = await import("@/lib/runs/run-review"));
      tree = await import("@/lib/display/bounded-tree");
      service = await f.makeService();
      const slow = await f.makePolicy({ tool: "slow.*", roles: ["reviewer"], quorum: 1 });
      await ctx.db.policy.update({ where: { id: slow.id }, data: { minReviewSeconds: 30 } });
      const full = await f.makePolicy({ tool: "full.*", roles: ["reviewer"], quorum: 1 });
      await ctx.db.policy.update({ where: { id: full.id }, data: { requireFullView: true } });
    });
    afterAll(async () => ctx?.close());

    const vote = (reviewerId: string, approvalId: string, at: Date, via: import("@/lib/reviews/record-review").ReviewChannel = "browser") =>
      inTransaction((tx) => rr.recordVoteInTx(tx, reviewerId, { approvalId, decision: "approve" }, via, { at }));
    const message = (p: Promise<unknown>) =>
      p.then(
        () => "accepted",
        (e: Error) => e.message,
      );
    /** The page's own steps: its first render, and whether it left arguments out. */
    const serve = async (approvalId: string, userId: string, now: Date) => {
      const a = await ctx.db.approval.findUniqueOrThrow({ where: { id: approvalId } });
      const truncated = tree.isTruncated(tree.firstRender(JSON.parse(a.redactedArgs)));
      return views.recordPageServed({ approvalId, userId, truncated, now });
    };

    it("snapshots both fields on each request at ingest", async () => {
      const a = await f.makeApproval(service, { tool: "slow.pay" });
      const b = await f.makeApproval(service, { tool: "full.pay" });
      const c = await f.makeApproval(service, { tool: "other.pay" });
      const row = (id: string) => ctx.db.approval.findUniqueOrThrow({ where: { id }, select: { minReviewSeconds: true, requireFullView: true } });
      expect(await row(a.approval_id)).toEqual({ minReviewSeconds: 30, requireFullView: false });
      expect(await row(b.approval_id)).toEqual({ minReviewSeconds: 0, requireFullView: true });
      expect(await row(c.approval_id)).toEqual({ minReviewSeconds: 0, requireFullView: false });
    });

    it("records the first page view once: a reload, or loads at once, keep the first instant", async () => {
      const r = await f.makeUser(["reviewer"]);
      const a = await f.makeApproval(service, { tool: "slow.pay" });
      const t0 = new Date("2026-11-01T10:00:00.000Z");
      expect(await views.recordPageServed({ approvalId: a.approval_id, userId: r.id, truncated: false, now: t0 })).toEqual({
        firstServedAt: t0,
        fullViewAt: null,
        truncated: false,
      });
      const later = new Date(t0.getTime() + 60_000);
      await Promise.all(
        Array.from({ length: 8 }, () => views.recordPageServed({ approvalId: a.approval_id, userId: r.id, truncated: true, now: later })),
      );
      const rows = await ctx.db.reviewView.findMany({ where: { approvalId: a.approval_id } });
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ userId: r.id, firstServedAt: t0, truncated: false, fullViewAt: null });
    });

    it("refuses a vote before min_review_seconds have passed since the page was served, saying how long is left, then accepts it", async () => {
      const r = await f.makeUser(["reviewer"]);
      const a = await f.makeApproval(service, { tool: "slow.pay" });
      const t0 = new Date();
      // No page served yet: nothing to count from.
      expect(await message(vote(r.id, a.approval_id, t0))).toBe("Take a closer look: open the request's page in Countersign before voting");
      await serve(a.approval_id, r.id, new Date(t0.getTime() - 10_000));
      expect(await refusal(vote(r.id, a.approval_id, t0))).toBe("review-too-early");
      expect(await message(vote(r.id, a.approval_id, t0))).toBe("Take a closer look: you can vote in 20 s");
      expect(await message(vote(r.id, a.approval_id, new Date(t0.getTime() + 19_001)))).toBe("Take a closer look: you can vote in 1 s");
      expect(await ctx.db.review.count({ where: { approvalId: a.approval_id } })).toBe(0);
      const out = await vote(r.id, a.approval_id, new Date(t0.getTime() + 20_000));
      expect(out.status).toBe("approved");
      expect(await ctx.db.review.findFirstOrThrow({ where: { approvalId: a.approval_id } })).toMatchObject({ via: "browser" });
    });

    it("refuses Slack and a run's batch on such a request, pointing to the page, whatever the time", async () => {
      const r = await f.makeUser(["reviewer"]);
      const a = await f.makeApproval(service, { tool: "slow.pay" });
      await serve(a.approval_id, r.id, new Date(Date.now() - 3_600_000));
      expect(await refusal(rr.recordReview(r.id, { approvalId: a.approval_id, decision: "approve" }, "slack"))).toBe("review-too-early");
      expect(await message(rr.recordReview(r.id, { approvalId: a.approval_id, decision: "approve" }, "slack"))).toBe(
        "this request's policy asks reviewers to look at it on its own page before voting, and a Slack button shows no page: open the request in Countersign and vote there",
      );
      const run = await ctx.db.approval.findUniqueOrThrow({ where: { id: a.approval_id }, select: { runId: true } });
      const batch = reviewRun(r.id, { service: service.slug, runId: run.runId, decision: "approve", approvalIds: [a.approval_id] });
      await expect(batch).rejects.toMatchObject({ code: "review-too-early" });
      await expect(reviewRun(r.id, { service: service.slug, runId: run.runId, decision: "approve", approvalIds: [a.approval_id] })).rejects.toThrow(
        /Approve all \/ Deny all on a run's page shows no page/,
      );
      // The full-view rule too: neither channel shows the arguments.
      const b = await f.makeApproval(service, { tool: "full.pay" });
      expect(await refusal(rr.recordReview(r.id, { approvalId: b.approval_id, decision: "approve" }, "slack"))).toBe("review-too-early");
      expect(await ctx.db.review.count({ where: { approvalId: { in: [a.approval_id, b.approval_id] } } })).toBe(0);
      // The browser still can.
      expect((await vote(r.id, a.approval_id, new Date())).status).toBe("approved");
    });

    it("records the channel on the review row: slack and batch on requests without the rules", async () => {
      const r = await f.makeUser(["reviewer"]);
      const a = await f.makeApproval(service, { tool: "other.pay" });
      await rr.recordReview(r.id, { approvalId: a.approval_id, decision: "approve" }, "slack");
      expect(await ctx.db.review.findFirstOrThrow({ where: { approvalId: a.approval_id } })).toMatchObject({ via: "slack" });
      const b = await f.makeApproval(service, { tool: "other.pay" });
      const run = await ctx.db.approval.findUniqueOrThrow({ where: { id: b.approval_id }, select: { runId: true } });
      await reviewRun(r.id, { service: service.slug, runId: run.runId, decision: "approve", approvalIds: [b.approval_id] });
      expect(await ctx.db.review.findFirstOrThrow({ where: { approvalId: b.approval_id } })).toMatchObject({ via: "batch" });
    });

    it("refuses a vote on a truncated request until the reviewer loaded the arguments in full (raw JSON), then accepts it", async () => {
      const r = await f.makeUser(["reviewer"]);
      const big = { items: Array.from({ length: 120 }, (_, i) => ({ n: i })) };
      const a = await f.makeApproval(service, { tool: "full.pay", arguments: big });
      const t0 = new Date();
      expect((await serve(a.approval_id, r.id, t0)).truncated).toBe(true);
      expect(await refusal(vote(r.id, a.approval_id, t0))).toBe("full-view-required");
      // A page of the rest is not the whole: still refused.
      await argumentsPage(r.id, a.approval_id, { path: [0], from: 50, part: "value", format: "page" }, t0);
      expect(await refusal(vote(r.id, a.approval_id, t0))).toBe("full-view-required");
      const t1 = new Date(t0.getTime() + 5_000);
      const raw = await argumentsPage(r.id, a.approval_id, { path: [], from: 0, part: "value", format: "canonical" }, t1);
      expect(raw?.kind).toBe("canonical");
      expect(await ctx.db.reviewView.findFirstOrThrow({ where: { approvalId: a.approval_id, userId: r.id } })).toMatchObject({ fullViewAt: t1 });
      expect((await vote(r.id, a.approval_id, t1)).status).toBe("approved");
    });

    it("lets a reviewer whose view was not truncated vote at once under require_full_view", async () => {
      const r = await f.makeUser(["reviewer"]);
      const a = await f.makeApproval(service, { tool: "full.pay", arguments: { amount: 5 } });
      expect((await serve(a.approval_id, r.id, new Date())).truncated).toBe(false);
      expect((await vote(r.id, a.approval_id, new Date())).status).toBe("approved");
    });

    it("counts a full view only for the reviewer who loaded it", async () => {
      const [r1, r2] = [await f.makeUser(["reviewer"]), await f.makeUser(["reviewer"])];
      const a = await f.makeApproval(service, { tool: "full.pay", arguments: { s: "x".repeat(500) } });
      await serve(a.approval_id, r1.id, new Date());
      await serve(a.approval_id, r2.id, new Date());
      await argumentsPage(r1.id, a.approval_id, { path: [], from: 0, part: "value", format: "canonical" });
      expect(await refusal(vote(r2.id, a.approval_id, new Date()))).toBe("full-view-required");
      expect((await vote(r1.id, a.approval_id, new Date())).status).toBe("approved");
    });
  });
}
