// docs/architecture.md on a real database: every review rule, and races repeated many
// times (concurrent calls of the one domain function that decides).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { direct } from "@/lib/db/sql";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";
import { refusal } from "../helpers/refusal-code";

export function reviewSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`recordReview (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let recordReview: typeof import("@/lib/reviews/record-review").recordReview;
    let revokeRole: typeof import("@/lib/users/roles").revokeRole;
    let service: Awaited<ReturnType<typeof f.makeService>>;

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      ({ recordReview } = await import("@/lib/reviews/record-review"));
      ({ revokeRole } = await import("@/lib/users/roles"));
      service = await f.makeService();
      await f.makePolicy({ tool: "pay.*", roles: ["payments"], quorum: 2 });
      await f.makePolicy({ tool: "mail.*", roles: ["reviewer"], quorum: 1 });
    });
    afterAll(async () => ctx?.close());

    const row = (id: string) => ctx.db.approval.findUniqueOrThrow({ where: { id } });
    const decidedEvents = (id: string) => ctx.db.auditEvent.count({ where: { approvalId: id, type: "approval.decided" } });

    it("decides with quorum 1 on the first eligible approval", async () => {
      const r = await f.makeUser(["reviewer"]);
      const a = await f.makeApproval(service, { tool: "mail.send" });
      const out = await recordReview(r.id, { approvalId: a.approval_id, decision: "approve" });
      expect(out).toMatchObject({ status: "approved", decidedBy: [r.email] });
      expect(await row(a.approval_id)).toMatchObject({ status: "approved", decidedBy: JSON.stringify([r.email]) });
      expect(await decidedEvents(a.approval_id)).toBe(1);
    });

    it("needs two distinct approvers for quorum 2, listed in order", async () => {
      const [r1, r2] = [await f.makeUser(["payments"]), await f.makeUser(["payments"])];
      const a = await f.makeApproval(service, { tool: "pay.send" });
      expect((await recordReview(r1.id, { approvalId: a.approval_id, decision: "approve" })).status).toBe("pending");
      expect(await refusal(recordReview(r1.id, { approvalId: a.approval_id, decision: "approve" }))).toBe("already-reviewed");
      expect((await row(a.approval_id)).approveCount).toBe(1);
      const out = await recordReview(r2.id, { approvalId: a.approval_id, decision: "approve", reason: "checked" });
      expect(out).toMatchObject({ status: "approved", decidedBy: [r1.email, r2.email] });
    });

    it("lets one denial win at any point, and a denial needs a reason", async () => {
      const [r1, r2] = [await f.makeUser(["payments"]), await f.makeUser(["payments"])];
      const a = await f.makeApproval(service, { tool: "pay.send" });
      await recordReview(r1.id, { approvalId: a.approval_id, decision: "approve" });
      expect(await refusal(recordReview(r2.id, { approvalId: a.approval_id, decision: "deny" }))).toBe("reason-required");
      expect(await refusal(recordReview(r2.id, { approvalId: a.approval_id, decision: "deny", reason: "   " }))).toBe("reason-required");
      const out = await recordReview(r2.id, { approvalId: a.approval_id, decision: "deny", reason: "wrong account" });
      expect(out).toMatchObject({ status: "denied", decidedBy: [r2.email] });
      const first = await f.makeApproval(service, { tool: "pay.send" });
      expect((await recordReview(r1.id, { approvalId: first.approval_id, decision: "deny", reason: "no" })).status).toBe("denied");
    });

    it("refuses the requester, matched case-insensitively, even with the role and admin", async () => {
      const requester = await f.makeUser(["payments", "admin", "reviewer"]);
      const a = await f.makeApproval(service, { tool: "pay.send", requested_by: requester.email.toUpperCase() });
      expect(await refusal(recordReview(requester.id, { approvalId: a.approval_id, decision: "approve" }))).toBe("self-review");
      expect(await refusal(recordReview(requester.id, { approvalId: a.approval_id, decision: "deny", reason: "x" }))).toBe("self-review");
      expect(await ctx.db.review.count({ where: { approvalId: a.approval_id } })).toBe(0);
    });

    it("reads roles at the moment of the decision: revoked between page load and click is refused", async () => {
      const r = await f.makeUser(["payments"]);
      const a = await f.makeApproval(service, { tool: "pay.send" });
      await revokeRole({ email: r.email, role: "payments" }, "cli");
      // Without a required role they may no longer see it either (docs/security.md): the same answer as an unknown id.
      expect(await refusal(recordReview(r.id, { approvalId: a.approval_id, decision: "approve" }))).toBe("not-found");
      const otherRole = await f.makeUser(["reviewer"]);
      expect(await refusal(recordReview(otherRole.id, { approvalId: a.approval_id, decision: "approve" }))).toBe("not-found");
      // An auditor sees it but may not decide it.
      const auditor = await f.makeUser(["auditor"]);
      expect(await refusal(recordReview(auditor.id, { approvalId: a.approval_id, decision: "approve" }))).toBe("not-eligible");
      expect(await ctx.db.review.count({ where: { approvalId: a.approval_id } })).toBe(0);
    });

    it("refuses reviews after expiry and on decided requests", async () => {
      const r = await f.makeUser(["reviewer"]);
      const expiring = await f.makeApproval(service, { tool: "mail.send", expires_in: 1 });
      await new Promise((res) => setTimeout(res, 1100));
      expect(await refusal(recordReview(r.id, { approvalId: expiring.approval_id, decision: "approve" }))).toBe("expired");
      const decided = await f.makeApproval(service, { tool: "mail.send" });
      await recordReview(r.id, { approvalId: decided.approval_id, decision: "approve" });
      const r2 = await f.makeUser(["reviewer"]);
      expect(await refusal(recordReview(r2.id, { approvalId: decided.approval_id, decision: "deny", reason: "late" }))).toBe("already-decided");
    });

    it("refuses a disabled reviewer and an unknown request", async () => {
      const r = await f.makeUser(["reviewer"]);
      await ctx.db.user.update({ where: { id: r.id }, data: { disabledAt: new Date() } });
      const a = await f.makeApproval(service, { tool: "mail.send" });
      expect(await refusal(recordReview(r.id, { approvalId: a.approval_id, decision: "approve" }))).toBe("forbidden");
      expect(await refusal(recordReview(r.id, { approvalId: "apr_nope", decision: "approve" }))).toBe("not-found");
    });

    it("sweeps expired requests: status, approval.expired event and callback row", async () => {
      const { createService } = await import("@/lib/services/manage-services");
      const { findServiceForWebhook } = await import("@/lib/services/service-secrets");
      const { sweepExpired } = await import("@/lib/approvals/expire-approval");
      const created = await createService({ slug: `sweep-${f.uid()}`, callbackUrl: "http://127.0.0.1:9/never" }, "cli");
      const withCallback = { ...created, auth: (await findServiceForWebhook(direct(), created.slug))! };
      const a = await f.makeApproval(withCallback, { tool: "mail.send", expires_in: 1 });
      const fresh = await f.makeApproval(withCallback, { tool: "mail.send" });
      await new Promise((res) => setTimeout(res, 1100));
      expect(await sweepExpired()).toBeGreaterThanOrEqual(1);
      const swept = await row(a.approval_id);
      expect(swept).toMatchObject({ status: "expired", decidedBy: "[]" });
      expect(swept.decidedAt?.toISOString()).toBe(a.expires_at);
      expect(await ctx.db.auditEvent.count({ where: { approvalId: a.approval_id, type: "approval.expired" } })).toBe(1);
      expect(await ctx.db.callbackDelivery.count({ where: { approvalId: a.approval_id } })).toBe(1);
      expect((await row(fresh.approval_id)).status).toBe("pending");
      // A second sweep (another instance) changes nothing.
      await sweepExpired();
      expect(await ctx.db.auditEvent.count({ where: { approvalId: a.approval_id, type: "approval.expired" } })).toBe(1);
    });

    const TRIALS = 50;

    it(`races: two approvers completing a quorum of 2 at once → one decision (${TRIALS} trials)`, async () => {
      const [r1, r2] = [await f.makeUser(["payments"]), await f.makeUser(["payments"])];
      for (let i = 0; i < TRIALS; i++) {
        const a = await f.makeApproval(service, { tool: "pay.send" });
        const results = await Promise.allSettled([
          recordReview(r1.id, { approvalId: a.approval_id, decision: "approve" }),
          recordReview(r2.id, { approvalId: a.approval_id, decision: "approve" }),
        ]);
        expect(results.every((x) => x.status === "fulfilled")).toBe(true);
        const final = await row(a.approval_id);
        expect(final.status).toBe("approved");
        expect(JSON.parse(final.decidedBy)).toHaveLength(2);
        expect(await decidedEvents(a.approval_id)).toBe(1);
      }
    });

    it(`races: approve and deny at once → exactly one terminal state (${TRIALS} trials)`, async () => {
      const [r1, r2] = [await f.makeUser(["reviewer"]), await f.makeUser(["reviewer"])];
      for (let i = 0; i < TRIALS; i++) {
        const a = await f.makeApproval(service, { tool: "mail.send" });
        const results = await Promise.allSettled([
          recordReview(r1.id, { approvalId: a.approval_id, decision: "approve" }),
          recordReview(r2.id, { approvalId: a.approval_id, decision: "deny", reason: "race" }),
        ]);
        const ok = results.filter((x) => x.status === "fulfilled");
        expect(ok).toHaveLength(1);
        const refused = results.find((x) => x.status === "rejected");
        expect((refused as PromiseRejectedResult).reason.code).toBe("already-decided");
        expect(["approved", "denied"]).toContain((await row(a.approval_id)).status);
        expect(await decidedEvents(a.approval_id)).toBe(1);
        expect(await ctx.db.review.count({ where: { approvalId: a.approval_id } })).toBe(1);
      }
    });

    it(`races: the same reviewer from two tabs → one review row (${TRIALS} trials)`, async () => {
      const r = await f.makeUser(["payments"]);
      for (let i = 0; i < TRIALS; i++) {
        const a = await f.makeApproval(service, { tool: "pay.send" });
        const results = await Promise.allSettled([
          recordReview(r.id, { approvalId: a.approval_id, decision: "approve" }),
          recordReview(r.id, { approvalId: a.approval_id, decision: "approve" }),
        ]);
        expect(results.filter((x) => x.status === "fulfilled")).toHaveLength(1);
        expect(await ctx.db.review.count({ where: { approvalId: a.approval_id } })).toBe(1);
        expect((await row(a.approval_id)).approveCount).toBe(1);
      }
    });
  });
}
