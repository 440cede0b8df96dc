// Revisions on a real database (docs/revisions.md): a reviewer answers with
// changes, the request ends "revised", the executor applies the patch to its
// own arguments and asks again; the revision is compared with the proposal
// by shown values and by keyed digests of the hidden ones, and the
// proposer's approval counts only when they match and only under every
// review rule. Raw argument values are never stored.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyJsonPatch, type JsonPatch } from "@countersign/client";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";

type Service = Awaited<ReturnType<typeof import("../helpers/fixtures").makeService>>;

export function revisionsSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`revisions (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let ingest: typeof import("@/lib/approvals/ingest-approval").ingestApproval;
    let schema: typeof import("@/lib/approvals/schemas").approvalRequestedSchema;
    let propose: typeof import("@/lib/revisions/propose-revision").proposeRevision;
    let recordReview: typeof import("@/lib/reviews/record-review").recordReview;
    let consume: typeof import("@/lib/approvals/consume-approval").consumeApproval;
    let verifyChain: typeof import("@/lib/audit/verify-chain").verifyChain;
    let revokeRole: typeof import("@/lib/users/roles").revokeRole;

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      ({ ingestApproval: ingest } = await import("@/lib/approvals/ingest-approval"));
      ({ approvalRequestedSchema: schema } = await import("@/lib/approvals/schemas"));
      ({ proposeRevision: propose } = await import("@/lib/revisions/propose-revision"));
      ({ recordReview } = await import("@/lib/reviews/record-review"));
      ({ consumeApproval: consume } = await import("@/lib/approvals/consume-approval"));
      ({ verifyChain } = await import("@/lib/audit/verify-chain"));
      ({ revokeRole } = await import("@/lib/users/roles"));
    });
    afterAll(async () => ctx?.close());

    type Call = {
      run_id: string;
      call_id: string;
      tool: string;
      arguments: Record<string, unknown>;
      revises?: string;
      requested_by?: string;
      environment?: string;
      effects?: string;
    };
    const send = async (service: Service, call: Call, webhookId = `msg_${randomUUID()}`) =>
      (await ingest(service.auth, webhookId, schema.parse({ type: "approval.requested", data: call }))).body;
    const bindingOf = (call: Call, digest: string) => ({ run_id: call.run_id, call_id: call.call_id, tool: call.tool, args_digest: digest });
    const row = (id: string) => ctx.db.approval.findUniqueOrThrow({ where: { id } });

    /** A service, a policy on a fresh tool with this quorum, two reviewers and a call with a secret and an email in it. */
    async function setUp(quorum: number) {
      const service = await f.makeService();
      const tool = `rv.pay.${f.uid()}`;
      await f.makePolicy({ tool, roles: ["payments"], quorum });
      const ana = await f.makeUser(["payments"]);
      const bo = await f.makeUser(["payments"]);
      const secret = `sk_live_${f.uid()}${f.uid()}${f.uid()}`;
      const email = `carol-${f.uid()}@example.com`;
      const call: Call = {
        run_id: `run_${f.uid()}`,
        call_id: "c1",
        tool,
        arguments: { account: "AC-1", amount: 500, note: `tell ${email}`, api_key: secret, items: [{ sku: "A", qty: 1 }, "x"] },
      };
      const first = await send(service, call);
      return { service, tool, ana, bo, secret, email, call, first };
    }

    it("edit → revised → the executor resubmits → the proposer counts → a second reviewer approves → consume returns the edited call", async () => {
      const { service, ana, bo, call, first, secret, email } = await setUp(2);
      const patch: JsonPatch = [
        { op: "replace", path: "/amount", value: 50 },
        { op: "replace", path: "/account", value: "AC-2" },
        { op: "add", path: "/items/0/gift", value: true },
        { op: "remove", path: "/items/1" },
      ];
      expect(await propose(ana.id, { approvalId: first.approval_id, patch, reason: "smaller, and to the other account" })).toEqual({
        approvalId: first.approval_id,
        status: "revised",
      });
      expect((await row(first.approval_id)).status).toBe("revised");

      const taken = await consume(service.auth, first.approval_id, bindingOf(call, first.args_digest));
      expect(taken.decision).toBe("revised");
      expect(taken.decided_by).toEqual([ana.email]);
      expect(taken.patch).toEqual(patch);
      expect(taken.proposal).toMatchObject({ by: ana.email, reason: "smaller, and to the other account" });

      // The executor applies the patch to its own (raw) arguments.
      const edited = applyJsonPatch(call.arguments, taken.patch!) as Record<string, unknown>;
      expect(edited).toEqual({ account: "AC-2", amount: 50, note: `tell ${email}`, api_key: secret, items: [{ sku: "A", qty: 1, gift: true }] });
      const revisionCall: Call = { ...call, call_id: "c1.r1", arguments: edited, revises: first.approval_id };
      const revision = await send(service, revisionCall);
      expect(revision.status).toBe("pending");
      expect(revision.warnings).toBeUndefined();
      const r = await row(revision.approval_id);
      expect(r).toMatchObject({ revisesId: first.approval_id, revisionMatch: true, approveCount: 1, status: "pending" });
      const votes = await ctx.db.review.findMany({ where: { approvalId: revision.approval_id } });
      expect(votes.map((v) => [v.reviewerEmail, v.decision])).toEqual([[ana.email, "approve"]]);

      // Ana counted once: she cannot approve the revision again.
      await expect(recordReview(ana.id, { approvalId: revision.approval_id, decision: "approve" })).rejects.toMatchObject({
        code: "already-reviewed",
      });
      expect(await recordReview(bo.id, { approvalId: revision.approval_id, decision: "approve" })).toMatchObject({
        status: "approved",
        decidedBy: [ana.email, bo.email],
      });
      const done = await consume(service.auth, revision.approval_id, bindingOf(revisionCall, revision.args_digest));
      expect(done).toMatchObject({ decision: "approved", decided_by: [ana.email, bo.email] });
      expect(done.patch).toBeUndefined();
      // The consume is bound to the edited arguments' digest: the original call cannot ride on it.
      await expect(consume(service.auth, revision.approval_id, bindingOf(revisionCall, first.args_digest))).rejects.toMatchObject({
        code: "binding-mismatch",
      });

      const events = await ctx.db.auditEvent.findMany({
        where: { approvalId: { in: [first.approval_id, revision.approval_id] } },
        orderBy: { seq: "asc" },
      });
      const types = events.map((e) => e.type);
      expect(types).toContain("revision.proposed");
      const requested = events.find((e) => e.type === "approval.requested" && e.approvalId === revision.approval_id)!;
      expect(JSON.parse(requested.data)).toMatchObject({ revises: first.approval_id, revision: "matches" });
      const carried = events.find((e) => e.type === "review.recorded" && e.approvalId === revision.approval_id)!;
      expect(JSON.parse(carried.data)).toMatchObject({ via: "revision", carried_from: first.approval_id, reviewer: ana.email });
      for (const e of events) expect(e.data).not.toContain("AC-2");
      expect(await verifyChain()).toMatchObject({ ok: true });
    });

    it("a quorum of one is met by the proposer: the revision is approved as it arrives, and a repeat delivery gets the same answer", async () => {
      const { service, ana, call, first } = await setUp(1);
      await propose(ana.id, { approvalId: first.approval_id, patch: [{ op: "replace", path: "/amount", value: 5 }], reason: "smaller" });
      const revisionCall: Call = { ...call, call_id: "c1.r1", arguments: { ...call.arguments, amount: 5 }, revises: first.approval_id };
      const webhookId = `msg_${randomUUID()}`;
      const revision = await send(service, revisionCall, webhookId);
      expect(revision.status).toBe("approved");
      expect(await send(service, revisionCall, webhookId)).toEqual(revision);
      expect(await send(service, revisionCall)).toEqual(revision);
      const done = await consume(service.auth, revision.approval_id, bindingOf(revisionCall, revision.args_digest));
      expect(done).toMatchObject({ decision: "approved", decided_by: [ana.email] });
    });

    it("a resubmission that changes a hidden value, or anything the patch did not, is shown with a warning and credits nobody", async () => {
      const { service, ana, call, first, tool } = await setUp(1);
      await propose(ana.id, { approvalId: first.approval_id, patch: [{ op: "replace", path: "/amount", value: 5 }], reason: "smaller" });
      const changedSecret: Call = {
        ...call,
        call_id: "c1.r1",
        arguments: { ...call.arguments, amount: 5, api_key: `sk_live_${f.uid()}${f.uid()}${f.uid()}` },
        revises: first.approval_id,
      };
      const revision = await send(service, changedSecret);
      expect(revision).toMatchObject({ status: "pending", warnings: ["revision-differs"] });
      const r = await row(revision.approval_id);
      expect(r).toMatchObject({ revisionMatch: false, approveCount: 0 });
      expect(JSON.parse(r.revisionDiffers!)).toEqual({ paths: ["/api_key"] });
      expect(await ctx.db.review.count({ where: { approvalId: revision.approval_id } })).toBe(0);

      // One revision per proposal: another call cannot try again on the same one.
      const again: Call = { ...call, call_id: "c1.r2", arguments: { ...call.arguments, amount: 5 }, revises: first.approval_id };
      await expect(send(service, again)).rejects.toMatchObject({ code: "already-revised" });

      // A changed email inside a partly redacted string and an unproposed shown change are caught too; so is another tool.
      const second = await setUp(1);
      await propose(second.ana.id, {
        approvalId: second.first.approval_id,
        patch: [{ op: "replace", path: "/amount", value: 5 }],
        reason: "smaller",
      });
      const sneaky: Call = {
        ...second.call,
        call_id: "c1.r1",
        arguments: { ...second.call.arguments, amount: 5, account: "AC-9", note: "tell mallory@example.com" },
        revises: second.first.approval_id,
      };
      const bad = await send(second.service, sneaky);
      expect(bad.warnings).toEqual(["revision-differs"]);
      expect(JSON.parse((await row(bad.approval_id)).revisionDiffers!).paths.sort()).toEqual(["/account", "/note"]);
      void tool;

      const third = await setUp(1);
      await propose(third.ana.id, { approvalId: third.first.approval_id, patch: [{ op: "replace", path: "/amount", value: 5 }], reason: "smaller" });
      await f.makePolicy({ tool: "rv.other.*", roles: ["payments"], quorum: 1 });
      const otherTool = await send(third.service, {
        ...third.call,
        tool: `rv.other.${f.uid()}`,
        call_id: "c1.r1",
        arguments: { ...third.call.arguments, amount: 5 },
        revises: third.first.approval_id,
      });
      expect(otherTool).toMatchObject({ status: "pending", warnings: ["revision-differs"] });
      expect(JSON.parse((await row(otherTool.approval_id)).revisionDiffers!)).toEqual({ tool: true, paths: [] });
    });

    it("refuses a revision of another service's request, of an unknown id, and of a request that was not revised, storing nothing", async () => {
      const { ana, call, first } = await setUp(1);
      await propose(ana.id, { approvalId: first.approval_id, patch: [{ op: "replace", path: "/amount", value: 5 }], reason: "smaller" });
      const other = await f.makeService();
      const before = await ctx.db.approval.count();
      for (const revises of [first.approval_id, "apr_unknown"]) {
        await expect(send(other, { ...call, arguments: { ...call.arguments, amount: 5 }, revises })).rejects.toMatchObject({
          code: "invalid-request",
          details: { issues: [{ path: "data.revises" }] },
        });
      }
      const pending = await setUp(1);
      await expect(send(pending.service, { ...pending.call, call_id: "c2", revises: pending.first.approval_id })).rejects.toMatchObject({
        code: "invalid-request",
      });
      expect(await ctx.db.approval.count()).toBe(before + 1);
    });

    it("refuses changes to redacted values, changes that carry a secret, and proposals without a reason, recording nothing", async () => {
      const { ana, first } = await setUp(1);
      const refused = async (patch: JsonPatch, code = "invalid-request", reason = "because") =>
        expect(propose(ana.id, { approvalId: first.approval_id, patch, reason })).rejects.toMatchObject({ code });
      await refused([{ op: "replace", path: "/api_key", value: "other" }]);
      await refused([{ op: "remove", path: "/api_key" }]);
      await refused([{ op: "replace", path: "/note", value: "tell nobody" }]);
      await refused([{ op: "replace", path: "", value: {} }]);
      await refused([{ op: "replace", path: "/missing", value: 1 }]);
      await refused([{ op: "add", path: "/password", value: "hunter2-long" }]);
      await refused([{ op: "replace", path: "/account", value: "mail dave@example.com" }]);
      await refused([{ op: "remove", path: "/items/5" }]);
      await refused([], "invalid-request");
      await refused([{ op: "replace", path: "/amount", value: 1 }], "reason-required", "  ");
      expect((await row(first.approval_id)).status).toBe("pending");
      expect(await ctx.db.auditEvent.count({ where: { approvalId: first.approval_id, type: "revision.proposed" } })).toBe(0);
    });

    it("holds every review rule for proposals and for the carried approval", async () => {
      const { service, ana, bo, call, first } = await setUp(2);
      const patch: JsonPatch = [{ op: "replace", path: "/amount", value: 5 }];
      // The requester cannot propose; someone without the role cannot; a stranger cannot even see it.
      const requester = await f.makeUser(["payments"]);
      const own = await send(service, { ...call, call_id: "own", requested_by: requester.email });
      await expect(propose(requester.id, { approvalId: own.approval_id, patch, reason: "x" })).rejects.toMatchObject({ code: "self-review" });
      const outsider = await f.makeUser(["ops"]);
      await expect(propose(outsider.id, { approvalId: first.approval_id, patch, reason: "x" })).rejects.toMatchObject({ code: "not-found" });
      // Once a request is decided, no proposal.
      await recordReview(bo.id, { approvalId: first.approval_id, decision: "deny", reason: "no" });
      await expect(propose(ana.id, { approvalId: first.approval_id, patch, reason: "x" })).rejects.toMatchObject({ code: "already-decided" });

      // The proposer loses the role before the revision arrives: nothing is carried.
      const next = await send(service, { ...call, call_id: "c3" });
      await propose(ana.id, { approvalId: next.approval_id, patch, reason: "smaller" });
      await revokeRole({ email: ana.email, role: "payments" }, "cli");
      const revision = await send(service, { ...call, call_id: "c3.r1", arguments: { ...call.arguments, amount: 5 }, revises: next.approval_id });
      expect(revision.status).toBe("pending");
      expect(await row(revision.approval_id)).toMatchObject({ revisionMatch: true, approveCount: 0 });

      // A revision for another requester (here the proposer) is another call: it differs, and credits nobody.
      const carol = await f.makeUser(["payments"]);
      const third = await send(service, { ...call, call_id: "c4" });
      await propose(carol.id, { approvalId: third.approval_id, patch, reason: "smaller" });
      const selfish = await send(service, {
        ...call,
        call_id: "c4.r1",
        arguments: { ...call.arguments, amount: 5 },
        revises: third.approval_id,
        requested_by: carol.email,
      });
      expect(await row(selfish.approval_id)).toMatchObject({ revisionMatch: false, approveCount: 0 });
      expect(JSON.parse((await row(selfish.approval_id)).revisionDiffers!)).toEqual({ call: ["requested_by"], paths: [] });
    });

    it("carries the proposer's approval only until the original's expiry", async () => {
      const { service, ana, call, first } = await setUp(1);
      const patch: JsonPatch = [{ op: "replace", path: "/amount", value: 5 }];
      await propose(ana.id, { approvalId: first.approval_id, patch, reason: "smaller" });
      // The proposal was given for the original's lifetime; the executor comes back after it.
      await ctx.db.approval.update({ where: { id: first.approval_id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      const late = await send(service, { ...call, call_id: "c1.r1", arguments: { ...call.arguments, amount: 5 }, revises: first.approval_id });
      expect(late.status).toBe("pending");
      expect(await row(late.approval_id)).toMatchObject({ revisionMatch: true, approveCount: 0 });
      expect(await ctx.db.review.count({ where: { approvalId: late.approval_id } })).toBe(0);
    });

    it("treats a revision with another environment, effects or requester as another call: it differs and credits nobody", async () => {
      const { service, ana, call } = await setUp(1);
      const patch: JsonPatch = [{ op: "replace", path: "/amount", value: 5 }];
      const base = { ...call, environment: "staging", effects: "write", requested_by: "dana@example.com" };
      const changes = [
        [{ environment: "production" }, ["environment"]],
        [{ environment: undefined }, ["environment"]],
        [{ effects: "read" }, ["effects"]],
        [{ requested_by: "eve@example.com" }, ["requested_by"]],
        [{ effects: "destructive", requested_by: undefined }, ["effects", "requested_by"]],
      ] as const;
      for (const [i, [change, fields]] of changes.entries()) {
        const original = await send(service, { ...base, call_id: `o${i}` });
        await propose(ana.id, { approvalId: original.approval_id, patch, reason: "smaller" });
        const revision = await send(service, {
          ...base,
          ...change,
          call_id: `o${i}.r1`,
          arguments: { ...call.arguments, amount: 5 },
          revises: original.approval_id,
        });
        expect(revision.status, JSON.stringify(change)).toBe("pending");
        expect(revision.warnings).toContain("revision-differs");
        const stored = await row(revision.approval_id);
        expect(stored).toMatchObject({ revisionMatch: false, approveCount: 0 });
        expect(JSON.parse(stored.revisionDiffers!)).toEqual({ call: fields, paths: [] });
      }
      // The same call, kept whole, still carries the approval.
      const original = await send(service, { ...base, call_id: "kept" });
      await propose(ana.id, { approvalId: original.approval_id, patch, reason: "smaller" });
      const kept = await send(service, { ...base, call_id: "kept.r1", arguments: { ...call.arguments, amount: 5 }, revises: original.approval_id });
      expect(kept.status).toBe("approved");
    });

    it("refuses proposals on an expired request and from a disabled reviewer, and carries no approval of a disabled proposer", async () => {
      const { disableUser } = await import("@/lib/users/disable-user");
      const { service, ana, bo, call, first } = await setUp(1);
      const patch: JsonPatch = [{ op: "replace", path: "/amount", value: 5 }];
      await ctx.db.approval.update({ where: { id: first.approval_id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      await expect(propose(ana.id, { approvalId: first.approval_id, patch, reason: "x" })).rejects.toMatchObject({ code: "expired" });

      const next = await send(service, { ...call, call_id: "c2" });
      await disableUser(bo.email, "cli");
      await expect(propose(bo.id, { approvalId: next.approval_id, patch, reason: "x" })).rejects.toMatchObject({ code: "forbidden" });
      await propose(ana.id, { approvalId: next.approval_id, patch, reason: "smaller" });
      await disableUser(ana.email, "cli");
      const revision = await send(service, { ...call, call_id: "c2.r1", arguments: { ...call.arguments, amount: 5 }, revises: next.approval_id });
      expect(revision.status).toBe("pending");
      expect(await row(revision.approval_id)).toMatchObject({ revisionMatch: true, approveCount: 0 });
    });

    it("chains: a revision can itself be revised, and each link is checked against its own proposal", async () => {
      const { service, ana, bo, call, first } = await setUp(2);
      await propose(ana.id, { approvalId: first.approval_id, patch: [{ op: "replace", path: "/amount", value: 50 }], reason: "less" });
      const r1Call: Call = { ...call, call_id: "c1.r1", arguments: { ...call.arguments, amount: 50 }, revises: first.approval_id };
      const r1 = await send(service, r1Call);
      await propose(bo.id, { approvalId: r1.approval_id, patch: [{ op: "replace", path: "/account", value: "AC-3" }], reason: "other account" });
      const r2Call: Call = { ...call, call_id: "c1.r2", arguments: { ...call.arguments, amount: 50, account: "AC-3" }, revises: r1.approval_id };
      const r2 = await send(service, r2Call);
      expect(await row(r2.approval_id)).toMatchObject({ revisesId: r1.approval_id, revisionMatch: true, approveCount: 1 });
      // Bo proposed the second change; Ana may approve the final version.
      expect(await recordReview(ana.id, { approvalId: r2.approval_id, decision: "approve" })).toMatchObject({ status: "approved" });
    });

    it("stores no raw argument value anywhere: every table is scanned after a run with known secrets", async () => {
      const { service, ana, bo, call, first, secret, email } = await setUp(2);
      await propose(ana.id, { approvalId: first.approval_id, patch: [{ op: "replace", path: "/amount", value: 77 }], reason: "less" });
      await consume(service.auth, first.approval_id, bindingOf(call, first.args_digest));
      const revisionCall: Call = { ...call, call_id: "c1.r1", arguments: { ...call.arguments, amount: 77 }, revises: first.approval_id };
      const revision = await send(service, revisionCall);
      await recordReview(bo.id, { approvalId: revision.approval_id, decision: "approve" });
      await consume(service.auth, revision.approval_id, bindingOf(revisionCall, revision.args_digest));

      const tables: Array<{ name: string }> =
        provider === "sqlite"
          ? await ctx.db.$queryRawUnsafe(`SELECT name FROM sqlite_master WHERE type = 'table'`)
          : await ctx.db.$queryRawUnsafe(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`);
      expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(["approvals", "audit_events", "reviews"]));
      const needles = [secret, secret.slice(8), email, Buffer.from(secret).toString("base64"), Buffer.from(secret).toString("hex")];
      let rows = 0;
      for (const { name } of tables) {
        const all: unknown[] = await ctx.db.$queryRawUnsafe(`SELECT * FROM "${name}"`);
        rows += all.length;
        const text = JSON.stringify(all, (_k, v) => (typeof v === "bigint" ? String(v) : v));
        for (const needle of needles) expect(text.includes(needle), `${needle.slice(0, 6)}… in ${name}`).toBe(false);
      }
      expect(rows).toBeGreaterThan(10);
    });
  });
}
