// docs/security.md "Requester identity" on a real database: a requester named by
// any spelling of a reviewer's email (or of an email linked to them) can never
// review the request, through the one function that records votes
// (recordReview), and the queue's SQL agrees (never "needs your review").
// Also: requests stored before requester keys existed are keyed at start-up.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";
import { refusal } from "../helpers/refusal-code";
import { requesterVariant } from "../identity/requester-variants";

export function selfReviewSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`self-review under any spelling (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let recordReview: typeof import("@/lib/reviews/record-review").recordReview;
    let findQueue: typeof import("@/lib/queue/find-queue").findQueue;
    let newId: typeof import("@/lib/ids").newId;
    let service: Awaited<ReturnType<typeof f.makeService>>;

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      ({ recordReview } = await import("@/lib/reviews/record-review"));
      ({ findQueue } = await import("@/lib/queue/find-queue"));
      ({ newId } = await import("@/lib/ids"));
      service = await f.makeService();
      await f.makePolicy({ tool: "self.*", roles: ["reviewer"], quorum: 1 });
    });
    afterAll(async () => ctx?.close());

    /** A reviewer known by `address`: as their own email, or as the email of a linked identity. */
    async function reviewerKnownAs(address: string, via: "email" | "identity") {
      if (via === "email") return f.makeUser(["reviewer", "admin"], address);
      const user = await f.makeUser(["reviewer"]);
      await ctx.db.identity.create({
        data: { id: newId("idn"), userId: user.id, issuer: "https://idp.example.com", subject: `sub-${f.uid()}`, email: address },
      });
      return user;
    }

    // Lower-case ASCII addresses, unique per run (the confusables above cover their letters).
    const address = fc
      .tuple(fc.stringMatching(/^[a-z]{1,6}$/), fc.constantFrom("example.com", "corp.example", "payments.io"))
      .map(([local, domain]) => `${local}${f.uid().replace(/[0-9]/g, "")}@${domain}`);

    it("no spelling of a reviewer's address lets them review their own request, and the queue agrees (property)", async () => {
      await fc.assert(
        fc.asyncProperty(
          address.chain((a) => fc.tuple(fc.constant(a), requesterVariant(a), fc.constantFrom("email" as const, "identity" as const))),
          async ([addr, variant, via]) => {
            const reviewer = await reviewerKnownAs(addr, via);
            const tool = `self.${f.uid()}`;
            const a = await f.makeApproval(service, { tool, requested_by: variant });
            const where = `${JSON.stringify(variant)} for ${addr} (${via})`;

            // The queue: not actionable, shown to the requester as waiting, with the reason.
            const queue = await findQueue(reviewer.id, { tool });
            expect(
              queue.canAct!.rows.map((r) => r.id),
              where,
            ).toEqual([]);
            const row = queue.waiting!.rows.find((r) => r.id === a.approval_id);
            expect(row?.whyNot, where).toMatch(/you requested this call/);

            // The decision: refused both ways, nothing recorded.
            expect(await refusal(recordReview(reviewer.id, { approvalId: a.approval_id, decision: "approve" })), where).toBe("self-review");
            expect(await refusal(recordReview(reviewer.id, { approvalId: a.approval_id, decision: "deny", reason: "x" })), where).toBe("self-review");
            expect(await ctx.db.review.count({ where: { approvalId: a.approval_id } }), where).toBe(0);

            // Someone else with the role can act on it and decide it.
            const other = await f.makeUser(["reviewer"]);
            expect(
              (await findQueue(other.id, { tool })).canAct!.rows.map((r) => r.id),
              where,
            ).toEqual([a.approval_id]);
            expect((await recordReview(other.id, { approvalId: a.approval_id, decision: "approve" })).status, where).toBe("approved");
          },
        ),
        { numRuns: 40 },
      );
      // Forty generated spellings, each through HTTP and the queue: about 45 s in a full run on PostgreSQL.
    }, 240_000);

    it("still lets a different person review (the key is not too broad)", async () => {
      const reviewer = await f.makeUser(["reviewer"], `ana${f.uid().replace(/[0-9]/g, "")}@example.com`);
      const [local, domain] = reviewer.email.split("@") as [string, string];
      for (const other of [`${local}x@${domain}`, `${local}@${domain}.org`, `x.${local}@${domain}`]) {
        const tool = `self.${f.uid()}`;
        const a = await f.makeApproval(service, { tool, requested_by: other });
        expect(
          (await findQueue(reviewer.id, { tool })).canAct!.rows.map((r) => r.id),
          other,
        ).toEqual([a.approval_id]);
        expect((await recordReview(reviewer.id, { approvalId: a.approval_id, decision: "approve" })).status, other).toBe("approved");
      }
    });

    it("keys requests stored before requester keys existed, once, at start-up", async () => {
      const { backfillRequesterKeys } = await import("@/lib/identity/backfill-requester-keys");
      const { requesterKey } = await import("@/lib/identity/requester-key");
      const reviewer = await f.makeUser(["reviewer"], `old${f.uid().replace(/[0-9]/g, "")}@example.com`);
      const tool = `self.${f.uid()}`;
      // As an older version stored them: requested_by as sent, no key (a few batches' worth).
      const made: string[] = [];
      for (let i = 0; i < 7; i++) {
        const a = await f.makeApproval(service, {
          tool,
          requested_by: i % 2 ? `Old <${reviewer.email.toUpperCase()}>` : `mailto:${reviewer.email}.`,
        });
        made.push(a.approval_id);
      }
      await ctx.db.approval.updateMany({ where: { id: { in: made } }, data: { requesterKey: null } });
      // Even unkeyed, the decision recomputes the key from requested_by.
      expect(await refusal(recordReview(reviewer.id, { approvalId: made[0]!, decision: "approve" }))).toBe("self-review");

      expect(await backfillRequesterKeys(3)).toBeGreaterThanOrEqual(7);
      const rows = await ctx.db.approval.findMany({ where: { id: { in: made } }, select: { requesterKey: true } });
      expect(rows.map((r) => r.requesterKey)).toEqual(made.map(() => requesterKey(reviewer.email)));
      expect(await backfillRequesterKeys(3)).toBe(0);
      expect(await ctx.db.approval.count({ where: { requestedBy: { not: null }, requesterKey: null } })).toBe(0);
      // And the queue now finds them as the reviewer's own.
      const queue = await findQueue(reviewer.id, { tool });
      expect(queue.canAct!.count).toBe(0);
      expect(new Set(queue.waiting!.rows.map((r) => r.id))).toEqual(new Set(made));
    });
  });
}
