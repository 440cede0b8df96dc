// Standing approvals on a real database (docs/standing-approvals.md):
// proposed from a request with pins, approved by the policy's quorum under
// the review rules, applied at ingest to matching requests only (every pin
// operator, hidden values by keyed digest), never past expiry, revocation or
// max_uses (exactly, under 32 concurrent ingests), never to a request whose
// requester approved it.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";

type Service = Awaited<ReturnType<typeof import("../helpers/fixtures").makeService>>;

export function standingSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`standing approvals (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let ingest: typeof import("@/lib/approvals/ingest-approval").ingestApproval;
    let schema: typeof import("@/lib/approvals/schemas").approvalRequestedSchema;
    let standing: typeof import("@/lib/standing/standing-approvals");
    let consume: typeof import("@/lib/approvals/consume-approval").consumeApproval;
    let verifyChain: typeof import("@/lib/audit/verify-chain").verifyChain;
    let decodeReceiptUnverified: typeof import("@countersign/client").decodeReceiptUnverified;
    let proposeRevision: typeof import("@/lib/revisions/propose-revision").proposeRevision;

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      ({ ingestApproval: ingest } = await import("@/lib/approvals/ingest-approval"));
      ({ approvalRequestedSchema: schema } = await import("@/lib/approvals/schemas"));
      standing = await import("@/lib/standing/standing-approvals");
      ({ consumeApproval: consume } = await import("@/lib/approvals/consume-approval"));
      ({ verifyChain } = await import("@/lib/audit/verify-chain"));
      ({ decodeReceiptUnverified } = await import("@countersign/client"));
      ({ proposeRevision } = await import("@/lib/revisions/propose-revision"));
    });
    afterAll(async () => ctx?.close());

    type Call = { tool: string; arguments: Record<string, unknown>; requested_by?: string; run_id?: string; call_id?: string; revises?: string };
    const send = async (service: Service, call: Call) =>
      (
        await ingest(
          service.auth,
          `msg_${randomUUID()}`,
          schema.parse({ type: "approval.requested", data: { run_id: `run_${randomUUID()}`, call_id: "c1", ...call } }),
        )
      ).body;
    const secret = () => `sk_live_${f.uid()}${f.uid()}${f.uid()}`;

    /** A service, a policy allowing standing approvals for an hour, reviewers, and a first request to propose from. */
    async function setUp(quorum: number, standingMaxTtl = 3600) {
      const service = await f.makeService();
      const role = `st-${f.uid()}`;
      const tool = `st.pay.${f.uid()}`;
      const policy = await f.makePolicy({ tool, roles: [role], quorum });
      await ctx.db.policy.update({ where: { id: policy.id }, data: { standingMaxTtlSeconds: standingMaxTtl } });
      const [ana, bo, cy] = [await f.makeUser([role]), await f.makeUser([role]), await f.makeUser([role])];
      const key = secret();
      const args = { account: "AC-1", amount: 40, currency: "EUR", api_key: key };
      const first = await send(service, { tool, arguments: args });
      return { service, role, tool, ana, bo, cy, key, args, first };
    }

    const PINS = [
      { path: "/account", op: "eq" as const },
      { path: "/amount", op: "lte" as const, value: 100 },
      { path: "/currency", op: "in" as const, values: ["EUR", "USD"] },
      { path: "/api_key", op: "eq" as const },
    ];

    it("proposed, approved by the quorum, then decides matching requests as they arrive; the receipt names it", async () => {
      const { service, tool, ana, bo, args, first, key } = await setUp(2);
      const proposed = await standing.proposeStanding(ana.id, {
        approvalId: first.approval_id,
        pins: PINS,
        expiresInSeconds: 1800,
        maxUses: null,
        reason: "small EUR payments to AC-1",
      });
      expect(proposed.status).toBe("proposed");
      // Not active yet: a matching request waits for people.
      expect((await send(service, { tool, arguments: args })).status).toBe("pending");
      await expect(standing.approveStanding(ana.id, proposed.id)).rejects.toMatchObject({ code: "already-reviewed" });
      expect(await standing.approveStanding(bo.id, proposed.id)).toMatchObject({ status: "active", approvals: 2 });

      const matched = await send(service, { tool, arguments: { ...args, amount: 99, currency: "USD" } });
      expect(matched.status).toBe("approved");
      const row = await ctx.db.approval.findUniqueOrThrow({ where: { id: matched.approval_id } });
      expect(row).toMatchObject({ status: "approved", standingApprovalId: proposed.id, decidedBy: JSON.stringify([ana.email, bo.email]) });
      // Its three events, appended together at the end of the ingest's transaction: consecutive, in order.
      const trail = await ctx.db.auditEvent.findMany({ where: { approvalId: matched.approval_id }, orderBy: { seq: "asc" } });
      expect(trail.map((e) => e.type)).toEqual(["approval.requested", "standing.applied", "approval.decided"]);
      expect(trail.map((e) => Number(e.seq) - Number(trail[0]!.seq))).toEqual([0, 1, 2]);
      expect(JSON.parse(trail[2]!.data)).toMatchObject({ decision: "approved", decided_by: [ana.email, bo.email] });
      const taken = await consume(service.auth, matched.approval_id, {
        run_id: row.runId,
        call_id: row.callId,
        tool,
        args_digest: matched.args_digest,
      });
      expect(taken).toMatchObject({ decision: "approved", decided_by: [ana.email, bo.email] });
      expect(decodeReceiptUnverified(taken.receipt).payload).toMatchObject({ standing_approval: proposed.id, decision: "approved" });

      // Each pin holds alone: a failing one leaves the request to people.
      const misses = [
        { ...args, amount: 101 },
        { ...args, account: "AC-2" },
        { ...args, currency: "GBP" },
        { ...args, api_key: secret() },
        { ...args, amount: "40" },
        { account: "AC-1", amount: 40, currency: "EUR" },
      ];
      for (const m of misses) expect((await send(service, { tool, arguments: m })).status).toBe("pending");
      // Another tool or service is never covered.
      const other = await f.makeService();
      expect((await send(other, { tool, arguments: args })).status).toBe("pending");

      const list = await standing.listStanding("cli");
      const mine = list.find((s) => s.id === proposed.id)!;
      expect(mine).toMatchObject({ status: "active", uses: 1, approvedBy: [ana.email, bo.email] });
      expect(mine.pins).toEqual([
        `/account = "AC-1"`,
        "0 ≤ /amount ≤ 100",
        `/currency is one of "EUR", "USD"`,
        "/api_key is the same redacted value",
        "Everything else must be exactly as in the request it came from: the same keys, the same types, lists of the same length. Nothing else is free.",
      ]);
      expect(mine.lastUsedAt).not.toBeNull();
      const stored = await ctx.db.standingApproval.findUniqueOrThrow({ where: { id: proposed.id } });
      expect(stored.pins).not.toContain(key);
      const types = (await ctx.db.auditEvent.findMany({ where: { type: { startsWith: "standing." } }, orderBy: { seq: "asc" } })).map((e) => e.type);
      expect(types).toEqual(expect.arrayContaining(["standing.proposed", "standing.approved", "standing.applied"]));
      for (const e of await ctx.db.auditEvent.findMany({ where: { type: { startsWith: "standing." } } })) expect(e.data).not.toContain(key);
      expect(await verifyChain()).toMatchObject({ ok: true });
    });

    it("closed pins: the four open-pin samples are left to people, the source's own arguments are approved", async () => {
      const { service, tool, ana, args } = await setUp(1);
      const source = { ...args, lines: [{ sku: "A-1", qty: 2 }], target: { env: "staging" } };
      const from = await send(service, { tool, arguments: source });
      const s = await standing.proposeStanding(ana.id, {
        approvalId: from.approval_id,
        pins: [
          { path: "/account", op: "eq" },
          { path: "/amount", op: "lte", value: 100 },
        ],
        expiresInSeconds: 600,
        reason: "small payments to AC-1",
      });
      expect(s.status).toBe("active");
      // Pinned only /account and /amount, yet each of these differs from the source where no pin looks.
      const samples = [
        { ...source, amount: -1e300 },
        { ...source, amount_cents: 4000 },
        { ...source, lines: [...source.lines, { sku: "B-2", qty: 1 }] },
        { ...source, target: ["production"] },
      ];
      for (const sample of samples) expect((await send(service, { tool, arguments: sample })).status).toBe("pending");
      expect((await send(service, { tool, arguments: source })).status).toBe("approved");
      // Free values may change within their type.
      const free = { ...source, amount: 0, currency: "USD", lines: [{ sku: "C-3", qty: 9 }], target: { env: "prod" } };
      expect((await send(service, { tool, arguments: free })).status).toBe("approved");
      expect((await ctx.db.standingApproval.findUniqueOrThrow({ where: { id: s.id } })).uses).toBe(2);
      const mine = (await standing.listStanding("cli")).find((x) => x.id === s.id)!;
      expect(mine.pins).toEqual([
        `/account = "AC-1"`,
        "0 ≤ /amount ≤ 100",
        "Everything else must be exactly as in the request it came from: the same keys, the same types, lists of the same length. " +
          "Free: /currency (any text), /api_key (any text), /lines/0/sku (any text), /lines/0/qty (any number), /target/env (any text).",
      ]);
    });

    it("a standing approval stored before closed pins (no shape) no longer applies, and says so", async () => {
      const { service, tool, ana, args, first } = await setUp(1);
      const s = await standing.proposeStanding(ana.id, {
        approvalId: first.approval_id,
        pins: [{ path: "/account", op: "eq" }],
        expiresInSeconds: 600,
        reason: "x",
      });
      expect((await send(service, { tool, arguments: args })).status).toBe("approved");
      // As rows were written before: a list of pins alone.
      await ctx.db.standingApproval.update({ where: { id: s.id }, data: { pins: JSON.stringify([{ path: "/account", op: "eq", value: "AC-1" }]) } });
      expect((await send(service, { tool, arguments: args })).status).toBe("pending");
      const mine = (await standing.listStanding("cli")).find((x) => x.id === s.id)!;
      expect(mine.pins).toEqual([`/account = "AC-1"`, "made before pins were closed (it keeps no shape of its request): it no longer applies"]);
    });

    it("gte, expiry and revocation: the next request after either is left to people", async () => {
      const { service, tool, ana, args, first } = await setUp(1);
      const s = await standing.proposeStanding(ana.id, {
        approvalId: first.approval_id,
        pins: [{ path: "/amount", op: "gte", value: 10 }],
        expiresInSeconds: 600,
        reason: "at least ten",
      });
      expect(s.status).toBe("active");
      expect((await send(service, { tool, arguments: { ...args, amount: 10 } })).status).toBe("approved");
      expect((await send(service, { tool, arguments: { ...args, amount: 9 } })).status).toBe("pending");
      await ctx.db.standingApproval.update({ where: { id: s.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      expect((await send(service, { tool, arguments: args })).status).toBe("pending");

      const again = await setUp(1);
      const r = await standing.proposeStanding(again.ana.id, {
        approvalId: again.first.approval_id,
        pins: [{ path: "/account", op: "eq" }],
        expiresInSeconds: 600,
        reason: "x",
      });
      expect((await send(again.service, { tool: again.tool, arguments: again.args })).status).toBe("approved");
      expect(await standing.revokeStanding("cli", r.id)).toMatchObject({ status: "revoked" });
      expect((await send(again.service, { tool: again.tool, arguments: again.args })).status).toBe("pending");
      await expect(standing.revokeStanding("cli", r.id)).rejects.toMatchObject({ code: "already-decided" });
    });

    it("decides a revision after its proposer's carried vote, while ordinary ingests use the same standing approval at once", async () => {
      const { service, tool, ana, bo, cy, args, first } = await setUp(2);
      const s = await standing.proposeStanding(ana.id, {
        approvalId: first.approval_id,
        pins: PINS,
        expiresInSeconds: 600,
        reason: "small EUR to AC-1",
      });
      await standing.approveStanding(bo.id, s.id);
      // Too large for the pins: left to people; a reviewer proposes the smaller amount instead.
      const call = { tool, arguments: { ...args, amount: 500 }, run_id: `run_${randomUUID()}`, call_id: "c1" };
      const original = await send(service, call);
      expect(original.status).toBe("pending");
      await proposeRevision(cy.id, {
        approvalId: original.approval_id,
        patch: [{ op: "replace", path: "/amount", value: 50 }],
        reason: "fifty at most",
      });

      // The executor resubmits the edited call while other calls the standing approval covers arrive.
      const [revision, ...others] = await Promise.all([
        send(service, { ...call, call_id: "c1.r1", arguments: { ...args, amount: 50 }, revises: original.approval_id }),
        ...Array.from({ length: 8 }, () => send(service, { tool, arguments: args })),
      ]);
      expect(others.map((o) => o.status)).toEqual(Array(8).fill("approved"));
      // Cy's carried vote is one of two; the standing approval decides the rest.
      expect(revision.status).toBe("approved");
      const row = await ctx.db.approval.findUniqueOrThrow({ where: { id: revision.approval_id } });
      expect(row).toMatchObject({
        revisesId: original.approval_id,
        revisionMatch: true,
        standingApprovalId: s.id,
        decidedBy: JSON.stringify([ana.email, bo.email]),
      });
      const trail = await ctx.db.auditEvent.findMany({ where: { approvalId: revision.approval_id }, orderBy: { seq: "asc" } });
      expect(trail.map((e) => e.type)).toEqual(["approval.requested", "review.recorded", "standing.applied", "approval.decided"]);
      expect((await ctx.db.standingApproval.findUniqueOrThrow({ where: { id: s.id } })).uses).toBe(9);
      expect(await verifyChain()).toMatchObject({ ok: true });
    });

    it("max_uses holds exactly under 32 concurrent ingests", async () => {
      const { service, tool, ana, args, first } = await setUp(1);
      const s = await standing.proposeStanding(ana.id, {
        approvalId: first.approval_id,
        pins: [{ path: "/account", op: "eq" }],
        expiresInSeconds: 600,
        maxUses: 5,
        reason: "five",
      });
      const answers = await Promise.all(Array.from({ length: 32 }, () => send(service, { tool, arguments: args })));
      expect(answers.filter((a) => a.status === "approved")).toHaveLength(5);
      expect(await ctx.db.standingApproval.findUniqueOrThrow({ where: { id: s.id } })).toMatchObject({ uses: 5 });
      expect(await ctx.db.approval.count({ where: { standingApprovalId: s.id } })).toBe(5);
    });

    it("never applies to a request whose requester approved it", async () => {
      const { service, tool, ana, bo, args, first } = await setUp(2);
      const s = await standing.proposeStanding(ana.id, {
        approvalId: first.approval_id,
        pins: [{ path: "/account", op: "eq" }],
        expiresInSeconds: 600,
        reason: "x",
      });
      await standing.approveStanding(bo.id, s.id);
      expect((await send(service, { tool, arguments: args, requested_by: bo.email })).status).toBe("pending");
      expect((await send(service, { tool, arguments: args, requested_by: `Bo <${bo.email.toUpperCase()}>` })).status).toBe("pending");
      expect((await send(service, { tool, arguments: args, requested_by: "someone-else@example.com" })).status).toBe("approved");
    });

    it("asks every approver again at each use: an approver disabled or the quorum raised stops it applying, and standing.skipped says why", async () => {
      const { service, tool, ana, bo, args, first } = await setUp(2);
      const s = await standing.proposeStanding(ana.id, { approvalId: first.approval_id, pins: PINS, expiresInSeconds: 1800, reason: "x" });
      await standing.approveStanding(bo.id, s.id);
      expect((await send(service, { tool, arguments: args })).status).toBe("approved");

      const { disableUser, enableUser } = await import("@/lib/users/disable-user");
      await disableUser(bo.email, "cli");
      const waiting = await send(service, { tool, arguments: args });
      expect(waiting.status).toBe("pending");
      const skipped = await ctx.db.auditEvent.findFirstOrThrow({ where: { approvalId: waiting.approval_id, type: "standing.skipped" } });
      expect(JSON.parse(skipped.data)).toEqual({ standing: s.id, why: "approvers", counted: 1, quorum: 2, not_counted: [`${bo.email}: forbidden`] });
      // The receipt of a decision never names a disabled approver: nothing was decided by the standing approval.
      expect(await ctx.db.approval.findUniqueOrThrow({ where: { id: waiting.approval_id } })).toMatchObject({
        standingApprovalId: null,
        decidedBy: "[]",
      });

      // Enabled again, they count again: the check is of now, not a flag on the standing approval.
      await enableUser(bo.email, "cli");
      const again = await send(service, { tool, arguments: args });
      expect(again.status).toBe("approved");
      expect((await ctx.db.approval.findUniqueOrThrow({ where: { id: again.approval_id } })).decidedBy).toBe(JSON.stringify([ana.email, bo.email]));

      // The policy now asks for three approvals: two are not enough.
      const policy = await ctx.db.policy.findFirstOrThrow({ where: { toolPattern: tool } });
      await ctx.db.policy.update({ where: { id: policy.id }, data: { quorum: 3 } });
      const raised = await send(service, { tool, arguments: args });
      expect(raised.status).toBe("pending");
      const why = await ctx.db.auditEvent.findFirstOrThrow({ where: { approvalId: raised.approval_id, type: "standing.skipped" } });
      expect(JSON.parse(why.data)).toMatchObject({ standing: s.id, why: "approvers", counted: 2, quorum: 3 });
      expect((await ctx.db.standingApproval.findUniqueOrThrow({ where: { id: s.id } })).uses).toBe(2);
    });

    it("binds proposing and approving to the policy's pace rules, measured on the source request's page", async () => {
      const { tool, ana, bo, first } = await setUp(2);
      const policy = await ctx.db.policy.findFirstOrThrow({ where: { toolPattern: tool } });
      await ctx.db.policy.update({ where: { id: policy.id }, data: { minReviewSeconds: 600 } });
      const { recordPageServed } = await import("@/lib/reviews/review-views");
      const propose = () => standing.proposeStanding(ana.id, { approvalId: first.approval_id, pins: PINS, expiresInSeconds: 1800, reason: "x" });
      // Never on the page, then on it a moment ago: too early both times, and nothing is created.
      await expect(propose()).rejects.toMatchObject({ code: "review-too-early" });
      await recordPageServed({ approvalId: first.approval_id, userId: ana.id, truncated: false });
      await expect(propose()).rejects.toMatchObject({ code: "review-too-early", message: expect.stringMatching(/you can vote in \d+ s/) });
      expect(await ctx.db.standingApproval.count({ where: { sourceApprovalId: first.approval_id } })).toBe(0);
      const tenMinutesAgo = new Date(Date.now() - 601_000);
      await ctx.db.reviewView.updateMany({ where: { approvalId: first.approval_id, userId: ana.id }, data: { firstServedAt: tenMinutesAgo } });
      const s = await propose();
      expect(s.status).toBe("proposed");

      await recordPageServed({ approvalId: first.approval_id, userId: bo.id, truncated: false });
      await expect(standing.approveStanding(bo.id, s.id)).rejects.toMatchObject({ code: "review-too-early" });
      await ctx.db.reviewView.updateMany({ where: { approvalId: first.approval_id, userId: bo.id }, data: { firstServedAt: tenMinutesAgo } });
      expect(await standing.approveStanding(bo.id, s.id)).toMatchObject({ status: "active" });
    });

    it("holds the review rules on proposing and approving, and the policy's limits", async () => {
      const { service, role, tool, ana, bo, cy, args } = await setUp(2);
      const own = await send(service, { tool, arguments: args, requested_by: cy.email });
      // The source request's requester can neither propose nor approve.
      await expect(
        standing.proposeStanding(cy.id, { approvalId: own.approval_id, pins: PINS, expiresInSeconds: 600, reason: "x" }),
      ).rejects.toMatchObject({
        code: "self-review",
      });
      const s = await standing.proposeStanding(ana.id, { approvalId: own.approval_id, pins: PINS, expiresInSeconds: 600, reason: "x" });
      await expect(standing.approveStanding(cy.id, s.id)).rejects.toMatchObject({ code: "self-review" });
      const outsider = await f.makeUser(["elsewhere"]);
      await expect(standing.approveStanding(outsider.id, s.id)).rejects.toMatchObject({ code: "not-found" });
      const { disableUser } = await import("@/lib/users/disable-user");
      const dee = await f.makeUser([role]);
      await disableUser(dee.email, "cli");
      await expect(standing.approveStanding(dee.id, s.id)).rejects.toMatchObject({ code: "not-found" });
      const { revokeRole } = await import("@/lib/users/roles");
      await revokeRole({ email: bo.email, role }, "cli");
      await expect(standing.approveStanding(bo.id, s.id)).rejects.toMatchObject({ code: "not-found" });
      await ctx.db.standingApproval.update({ where: { id: s.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      const eve = await f.makeUser([role]);
      await expect(standing.approveStanding(eve.id, s.id)).rejects.toMatchObject({ code: "expired" });

      // Longer than the policy allows, a policy that allows none, a pin on something that is not there or not a value.
      const first = await send(service, { tool, arguments: args });
      await expect(
        standing.proposeStanding(ana.id, { approvalId: first.approval_id, pins: PINS, expiresInSeconds: 7200, reason: "x" }),
      ).rejects.toMatchObject({
        code: "invalid-request",
      });
      for (const pins of [
        [{ path: "/missing", op: "eq" as const }],
        [{ path: "/amount", op: "lte" as const, value: 10 }],
        [{ path: "/api_key", op: "in" as const, values: ["x"] }],
        [],
      ]) {
        await expect(
          standing.proposeStanding(ana.id, { approvalId: first.approval_id, pins, expiresInSeconds: 600, reason: "x" }),
        ).rejects.toMatchObject({
          code: "invalid-request",
        });
      }
      const closed = await setUp(1, 0);
      await expect(
        standing.proposeStanding(closed.ana.id, { approvalId: closed.first.approval_id, pins: PINS, expiresInSeconds: 600, reason: "x" }),
      ).rejects.toMatchObject({ code: "forbidden" });
      expect(await ctx.db.standingApproval.count({ where: { sourceApprovalId: closed.first.approval_id } })).toBe(0);
    });
  });
}
