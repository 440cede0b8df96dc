// Run review on a real database (docs/revisions.md): a run's requests as a
// reviewer may see them, and "Approve all" / "Deny all" as one vote per
// request through the one vote function, all or none, also against a
// concurrent deny.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";

type Service = Awaited<ReturnType<typeof import("../helpers/fixtures").makeService>>;

export function runReviewSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`run review (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let ingest: typeof import("@/lib/approvals/ingest-approval").ingestApproval;
    let schema: typeof import("@/lib/approvals/schemas").approvalRequestedSchema;
    let runs: typeof import("@/lib/runs/run-review");
    let recordReview: typeof import("@/lib/reviews/record-review").recordReview;
    let verifyChain: typeof import("@/lib/audit/verify-chain").verifyChain;

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      ({ ingestApproval: ingest } = await import("@/lib/approvals/ingest-approval"));
      ({ approvalRequestedSchema: schema } = await import("@/lib/approvals/schemas"));
      runs = await import("@/lib/runs/run-review");
      ({ recordReview } = await import("@/lib/reviews/record-review"));
      ({ verifyChain } = await import("@/lib/audit/verify-chain"));
    });
    afterAll(async () => ctx?.close());

    const send = async (service: Service, data: { run_id: string; call_id: string; tool: string; requested_by?: string }) =>
      (await ingest(service.auth, `msg_${randomUUID()}`, schema.parse({ type: "approval.requested", data: { arguments: { n: 1 }, ...data } }))).body
        .approval_id;

    async function setUp(quorum = 1, calls = 3) {
      const service = await f.makeService();
      const role = `runs-${f.uid()}`;
      const prefix = `rr.${f.uid()}`;
      await f.makePolicy({ tool: `${prefix}.*`, roles: [role], quorum });
      const alice = await f.makeUser([role]);
      const bob = await f.makeUser([role]);
      const runId = `run_${f.uid()}`;
      const ids: string[] = [];
      for (let i = 0; i < calls; i++) ids.push(await send(service, { run_id: runId, call_id: `c${i}`, tool: `${prefix}.t${i}` }));
      return { service, role, prefix, alice, bob, runId, ids };
    }

    it("lists the run's requests pending first, says which the reviewer may decide and why not, and approves all in one go", async () => {
      const { service, prefix, alice, bob, runId, ids } = await setUp(1, 3);
      const own = await send(service, { run_id: runId, call_id: "own", tool: `${prefix}.own`, requested_by: alice.email });
      await f.makePolicy({ tool: `${prefix}x.*`, roles: ["elsewhere"], quorum: 1 });
      // A request of another role: Alice does not see it at all.
      await send(service, { run_id: runId, call_id: "other-role", tool: `${prefix}x.secret` });
      const decided = await send(service, { run_id: runId, call_id: "decided", tool: `${prefix}.done` });
      await recordReview(bob.id, { approvalId: decided, decision: "approve" });

      const view = (await runs.findRunReview(alice.id, service.slug, runId))!;
      expect(view.requests.map((r) => r.id)).toEqual([...ids, own, decided]);
      expect(view.requests.map((r) => [r.status, r.canDecide])).toEqual([
        ["pending", true],
        ["pending", true],
        ["pending", true],
        ["pending", false],
        ["approved", false],
      ]);
      expect(view.requests[3]!.whyNot).toMatch(/you requested this call/);

      const result = await runs.reviewRun(alice.id, { service: service.slug, runId, decision: "approve", approvalIds: ids });
      expect(result.outcomes.map((o) => o.status)).toEqual(["approved", "approved", "approved"]);
      const rows = await ctx.db.approval.findMany({ where: { id: { in: ids } } });
      for (const r of rows) expect(r).toMatchObject({ status: "approved", decidedBy: JSON.stringify([alice.email]) });
      const events = await ctx.db.auditEvent.findMany({ where: { type: { in: ["review.recorded", "run.reviewed"] } }, orderBy: { seq: "asc" } });
      const batch = events.filter((e) => JSON.parse(e.data).batch === result.batchId);
      expect(batch.map((e) => e.type)).toEqual(["review.recorded", "review.recorded", "review.recorded", "run.reviewed"]);
      expect(JSON.parse(batch[3]!.data)).toMatchObject({ service: service.slug, run_id: runId, decision: "approve", count: 3 });
      expect(JSON.parse(batch[0]!.data)).toMatchObject({ via: "batch" });
      expect(await verifyChain()).toMatchObject({ ok: true });

      // Someone who may see none of it learns nothing, not even that the run exists.
      const stranger = await f.makeUser(["nobody"]);
      expect(await runs.findRunReview(stranger.id, service.slug, runId)).toBeNull();
      expect(await runs.findRunReview(alice.id, service.slug, "run_unknown")).toBeNull();
    });

    it("records all or none: one request the reviewer may not decide refuses the whole batch", async () => {
      const { service, prefix, alice, runId, ids } = await setUp(1, 3);
      const own = await send(service, { run_id: runId, call_id: "own", tool: `${prefix}.own`, requested_by: alice.email });
      await expect(runs.reviewRun(alice.id, { service: service.slug, runId, decision: "approve", approvalIds: [...ids, own] })).rejects.toMatchObject(
        {
          code: "self-review",
          message: expect.stringContaining(own),
        },
      );
      const other = await setUp(1, 1);
      await expect(
        runs.reviewRun(alice.id, { service: service.slug, runId, decision: "approve", approvalIds: [...ids, other.ids[0]!] }),
      ).rejects.toMatchObject({ code: "not-found" });
      await expect(runs.reviewRun(alice.id, { service: service.slug, runId, decision: "deny", approvalIds: ids })).rejects.toMatchObject({
        code: "reason-required",
      });
      expect(await ctx.db.review.count({ where: { approvalId: { in: ids } } })).toBe(0);
      expect((await ctx.db.approval.findMany({ where: { id: { in: ids } } })).every((a) => a.status === "pending")).toBe(true);

      const denied = await runs.reviewRun(alice.id, { service: service.slug, runId, decision: "deny", reason: "wrong run", approvalIds: ids });
      expect(denied.outcomes.every((o) => o.status === "denied")).toBe(true);
    });

    it("refuses the whole batch when one request expired or the reviewer was disabled or lost the role", async () => {
      const { disableUser } = await import("@/lib/users/disable-user");
      const { revokeRole } = await import("@/lib/users/roles");
      const { service, role, alice, bob, runId, ids } = await setUp(1, 3);
      await ctx.db.approval.update({ where: { id: ids[1]! }, data: { expiresAt: new Date(Date.now() - 1000) } });
      await expect(runs.reviewRun(alice.id, { service: service.slug, runId, decision: "approve", approvalIds: ids })).rejects.toMatchObject({
        code: "expired",
      });
      const live = [ids[0]!, ids[2]!];
      await revokeRole({ email: alice.email, role }, "cli");
      await expect(runs.reviewRun(alice.id, { service: service.slug, runId, decision: "approve", approvalIds: live })).rejects.toMatchObject({
        code: "not-found",
      });
      await disableUser(bob.email, "cli");
      await expect(runs.reviewRun(bob.id, { service: service.slug, runId, decision: "approve", approvalIds: live })).rejects.toMatchObject({
        code: "forbidden",
      });
      expect(await ctx.db.review.count({ where: { approvalId: { in: ids } } })).toBe(0);
    });

    it("is all or none under a concurrent deny, every time", async () => {
      for (let round = 0; round < 8; round++) {
        const { service, alice, bob, runId, ids } = await setUp(1, 4);
        const target = ids[round % ids.length]!;
        const [batch, deny] = await Promise.allSettled([
          runs.reviewRun(alice.id, { service: service.slug, runId, decision: "approve", approvalIds: ids }),
          recordReview(bob.id, { approvalId: target, decision: "deny", reason: "no" }),
        ]);
        const rows = await ctx.db.approval.findMany({ where: { id: { in: ids } }, include: { reviews: true } });
        if (batch.status === "fulfilled") {
          expect(deny.status, `round ${round}`).toBe("rejected");
          for (const r of rows) expect(r).toMatchObject({ status: "approved", decidedBy: JSON.stringify([alice.email]) });
        } else {
          expect(deny.status, `round ${round}`).toBe("fulfilled");
          for (const r of rows) {
            expect(
              r.reviews.some((v) => v.reviewerId === alice.id),
              `round ${round}`,
            ).toBe(false);
            expect(r.status).toBe(r.id === target ? "denied" : "pending");
          }
        }
      }
    });

    it("with four-eyes, a batch is one vote per request, and a second reviewer's batch decides them", async () => {
      const { service, alice, bob, runId, ids } = await setUp(2, 2);
      const first = await runs.reviewRun(alice.id, { service: service.slug, runId, decision: "approve", approvalIds: ids });
      expect(first.outcomes.map((o) => [o.status, o.approvals])).toEqual([
        ["pending", 1],
        ["pending", 1],
      ]);
      // Alice counts once: her second batch is refused whole.
      await expect(runs.reviewRun(alice.id, { service: service.slug, runId, decision: "approve", approvalIds: ids })).rejects.toMatchObject({
        code: "already-reviewed",
      });
      const second = await runs.reviewRun(bob.id, { service: service.slug, runId, decision: "approve", approvalIds: ids });
      expect(second.outcomes.map((o) => o.decidedBy)).toEqual([
        [alice.email, bob.email],
        [alice.email, bob.email],
      ]);
    });
  });
}
