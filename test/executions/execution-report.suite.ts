// docs/executions.md over real HTTP against the running app: the executor's
// report of a run (POST /api/v1/approvals/{id}/result) is accepted once, only
// for its own request and only after a consume that answered approved; it is
// stored, audited (and the chain still verifies), shown in the state answer
// and on the request's page, and sent to the service's callback URL, signed.
// Admins, and only admins, see approved and consumed requests whose report
// did not arrive within EXECUTION_REPORT_GRACE_SECONDS.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";
import { signInWithPassword } from "../helpers/sign-in";
import { webhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

/** A value in the arguments that must never leave the request: not in answers, events or callbacks. */
const ARG_MARKER = "ARG-VALUE-never-leaves-7f3a";
const digestOf = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

export function executionReportSuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`execution report (${provider})`, () => {
    const base = app?.baseUrl ?? "";
    // On PostgreSQL a second instance shares the database: reports race across both.
    const bases = app?.secondBaseUrl ? [base, app.secondBaseUrl] : [base];
    let f: typeof import("../helpers/fixtures");
    let recordReview: typeof import("@/lib/reviews/record-review").recordReview;
    let verifyChain: typeof import("@/lib/audit/verify-chain").verifyChain;
    let db: import("@/lib/db/client").Db;
    let svc: Awaited<ReturnType<typeof f.makeService>>;
    let other: Awaited<ReturnType<typeof f.makeService>>;
    let reviewer: { id: string; email: string };
    let adminCookie = "";
    let reviewerCookie = "";
    const tool = `exec${randomBytes(3).toString("hex")}.run`;

    beforeAll(async () => {
      f = await import("../helpers/fixtures");
      ({ recordReview } = await import("@/lib/reviews/record-review"));
      ({ verifyChain } = await import("@/lib/audit/verify-chain"));
      const { addUser } = await import("@/lib/users/add-user");
      db = (await import("@/lib/db/client")).db();
      svc = await f.makeService();
      other = await f.makeService();
      const password = randomBytes(12).toString("base64url");
      reviewer = await addUser({ email: `exec-rev-${f.uid()}@example.com`, password, roles: ["reviewer"] }, "cli");
      const admin = await addUser({ email: `exec-adm-${f.uid()}@example.com`, password, roles: ["admin"] }, "cli");
      reviewerCookie = await signInWithPassword(base, reviewer.email, password);
      adminCookie = await signInWithPassword(base, admin.email, password);
    });
    afterAll(async () => db?.$disconnect());

    type Answer = { status: number; body: Record<string, unknown>; text: string };
    const api = async (path: string, token: string, init: RequestInit = {}, at = base): Promise<Answer> => {
      const r = await fetch(`${at}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
      });
      const text = await r.text();
      return { status: r.status, body: JSON.parse(text) as Record<string, unknown>, text };
    };
    const report = (id: string, body: unknown, token = svc.api_token, at = base) =>
      api(`/api/v1/approvals/${id}/result`, token, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body) }, at);
    const page = async (path: string, cookie: string) => {
      const r = await fetch(`${base}${path}`, { headers: cookie ? { cookie } : {}, redirect: "manual" });
      return { status: r.status, html: await r.text(), location: r.headers.get("location") };
    };
    const goodReport = (over: Record<string, unknown> = {}) => ({
      status: "succeeded",
      result_digest: digestOf(randomUUID()),
      finished_at: new Date().toISOString(),
      ...over,
    });

    type Service = Awaited<ReturnType<typeof f.makeService>>;
    const ask = (service: Service = svc) => f.makeApproval(service, { tool, arguments: { amount: 1, note: ARG_MARKER } });
    const consume = async (id: string, service: Service = svc) => {
      const a = await db.approval.findUniqueOrThrow({ where: { id } });
      return api(`/api/v1/approvals/${id}/consume`, service.api_token, {
        method: "POST",
        body: JSON.stringify({ run_id: a.runId, call_id: a.callId, tool: a.tool, args_digest: a.argsDigest }),
      });
    };
    /** A request of `service`, approved and consumed (the consume answered approved). */
    const consumedApproved = async (service: Service = svc) => {
      const a = await ask(service);
      await recordReview(reviewer.id, { approvalId: a.approval_id, decision: "approve" });
      const c = await consume(a.approval_id, service);
      expect(c.status).toBe(200);
      expect(c.body.decision).toBe("approved");
      return a.approval_id;
    };
    const executedEvents = (id: string) => db.auditEvent.findMany({ where: { approvalId: id, type: "approval.executed" } });
    const executionColumns = async (id: string) =>
      db.approval.findUniqueOrThrow({
        where: { id },
        select: { executionStatus: true, resultDigest: true, finishedAt: true, reportedAt: true },
      });

    it("records a report after an approved consume: 200, stored, audited, in the state answer and on the page", async () => {
      const id = await consumedApproved();

      // Approved and consumed, nothing reported yet: the state and the page say so.
      const before = await api(`/api/v1/approvals/${id}`, svc.api_token);
      expect(before.body).toMatchObject({ status: "approved", consumed: true, execution: null });
      const waiting = await page(`/approvals/${id}`, adminCookie);
      expect(waiting.status).toBe(200);
      expect(waiting.html).toContain('data-testid="execution-awaiting"');
      expect(waiting.html).toContain("No execution report has arrived");
      expect(waiting.html).not.toContain('data-testid="execution-reported"');

      const finished = new Date(Date.now() - 1500);
      // An offset other than Z is accepted; answers carry the time in UTC.
      const offsetForm = new Date(finished.getTime() + 2 * 3600_000).toISOString().replace("Z", "+02:00");
      const sent = { status: "succeeded", result_digest: digestOf("the result"), finished_at: offsetForm };
      const started = Date.now();
      const r = await report(id, sent);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        approval_id: id,
        status: "succeeded",
        result_digest: sent.result_digest,
        finished_at: finished.toISOString(),
        reported_at: expect.any(String),
      });
      const reportedAt = new Date(String(r.body.reported_at)).getTime();
      expect(reportedAt).toBeGreaterThanOrEqual(started - 1000);
      expect(reportedAt).toBeLessThanOrEqual(Date.now() + 1000);

      expect(await executionColumns(id)).toEqual({
        executionStatus: "succeeded",
        resultDigest: sent.result_digest,
        finishedAt: finished,
        reportedAt: new Date(String(r.body.reported_at)),
      });

      const events = await executedEvents(id);
      expect(events).toHaveLength(1);
      expect(events[0]!.actor).toBe(`service:${svc.slug}`);
      expect(JSON.parse(events[0]!.data)).toEqual({ status: "succeeded", result_digest: sent.result_digest, finished_at: finished.toISOString() });
      expect(events[0]!.data).not.toContain(ARG_MARKER);
      // The executed event is the chain's link after the consume's.
      const consumedEvent = await db.auditEvent.findFirstOrThrow({ where: { approvalId: id, type: "approval.consumed" } });
      expect(events[0]!.seq).toBeGreaterThan(consumedEvent.seq);
      expect(await verifyChain()).toMatchObject({ ok: true });

      const state = await api(`/api/v1/approvals/${id}`, svc.api_token);
      expect(state.body.execution).toEqual({
        status: "succeeded",
        result_digest: sent.result_digest,
        finished_at: finished.toISOString(),
        reported_at: r.body.reported_at,
      });
      expect(state.text).not.toContain(ARG_MARKER);

      // The page, for an admin and for the reviewer who approved it: executed at (UTC until the browser localizes it), outcome, digest.
      for (const cookie of [adminCookie, reviewerCookie]) {
        const shown = await page(`/approvals/${id}`, cookie);
        expect(shown.status).toBe(200);
        const utc = `${finished.toISOString().replace("T", " ").slice(0, 19)} UTC`;
        expect(shown.html).toMatch(new RegExp(`Executed at <time[^>]*>${utc}</time>`));
        expect(shown.html).toMatch(/data-testid="execution-status">succeeded</);
        expect(shown.html).toContain(`data-testid="result-digest">${sent.result_digest}<`);
        expect(shown.html).not.toContain("No execution report has arrived");
      }
    });

    it("answers a second report 409 already-reported, even an identical one, and records nothing more", async () => {
      const id = await consumedApproved();
      const first = goodReport({ status: "failed" });
      expect((await report(id, first)).status).toBe(200);
      const stored = await executionColumns(id);
      expect(await report(id, first)).toMatchObject({ status: 409, body: { error: "already-reported" } });
      expect(await report(id, goodReport())).toMatchObject({ status: 409, body: { error: "already-reported" } });
      expect((await report(id, goodReport())).body).toEqual({ error: "already-reported" });
      expect(await executionColumns(id)).toEqual(stored);
      expect(await executedEvents(id)).toHaveLength(1);
      const state = await api(`/api/v1/approvals/${id}`, svc.api_token);
      expect(state.body.execution).toMatchObject({ status: "failed", result_digest: first.result_digest });
    });

    it("answers a report before the consume 409 not-consumed: pending, and approved but not consumed", async () => {
      const pending = await ask();
      expect(await report(pending.approval_id, goodReport())).toMatchObject({ status: 409, body: { error: "not-consumed" } });
      const approved = await ask();
      await recordReview(reviewer.id, { approvalId: approved.approval_id, decision: "approve" });
      expect(await report(approved.approval_id, goodReport())).toMatchObject({ status: 409, body: { error: "not-consumed" } });
      for (const id of [pending.approval_id, approved.approval_id]) {
        expect(await executedEvents(id)).toHaveLength(0);
        expect((await executionColumns(id)).reportedAt).toBeNull();
      }
      // Consumed afterwards, the same request takes its report.
      expect((await consume(approved.approval_id)).body.decision).toBe("approved");
      expect((await report(approved.approval_id, goodReport())).status).toBe(200);
    });

    it("answers a report on a consumed denied request 409 not-consumed: nothing ran", async () => {
      const d = await ask();
      await recordReview(reviewer.id, { approvalId: d.approval_id, decision: "deny", reason: "not this one" });
      expect((await consume(d.approval_id)).body.decision).toBe("denied");
      expect(await report(d.approval_id, goodReport())).toEqual({
        status: 409,
        body: { error: "not-consumed" },
        text: '{"error":"not-consumed"}',
      });
      expect(await executedEvents(d.approval_id)).toHaveLength(0);
      // …and its page does not claim a report is missing.
      const shown = await page(`/approvals/${d.approval_id}`, adminCookie);
      expect(shown.status).toBe(200);
      expect(shown.html).not.toContain('data-testid="execution"');
    });

    it("answers another service's request exactly like an unknown id (404), and a missing token 401", async () => {
      const id = await consumedApproved();
      const foreign = await report(id, goodReport(), other.api_token);
      const unknown = await report(`apr_${randomBytes(10).toString("hex")}`, goodReport());
      expect(foreign).toEqual({ status: 404, body: { error: "not-found" }, text: '{"error":"not-found"}' });
      expect(unknown).toEqual(foreign);
      const anonymous = await fetch(`${base}/api/v1/approvals/${id}/result`, { method: "POST", body: JSON.stringify(goodReport()) });
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toEqual({ error: "unauthorized" });
      expect(await executedEvents(id)).toHaveLength(0);
      // The owner still can.
      expect((await report(id, goodReport())).status).toBe(200);
    });

    it("refuses bad bodies with 422 invalid-request, naming the field and never the value, and stores nothing", async () => {
      const id = await consumedApproved();
      const consumedAt = (await db.approval.findUniqueOrThrow({ where: { id } })).consumedAt!;
      const secretish = "sha256:SECRET-LOOKING-VALUE-0123456789";
      const cases: Array<[string, unknown, string]> = [
        ["digest in upper case", goodReport({ result_digest: `sha256:${"AB".repeat(32)}` }), "result_digest"],
        ["digest too short", goodReport({ result_digest: `sha256:${"a".repeat(63)}` }), "result_digest"],
        ["digest without its prefix", goodReport({ result_digest: "b".repeat(64) }), "result_digest"],
        ["digest of another algorithm", goodReport({ result_digest: `md5:${"c".repeat(32)}` }), "result_digest"],
        ["digest that is no digest", goodReport({ result_digest: secretish }), "result_digest"],
        ["digest missing", { status: "succeeded", finished_at: new Date().toISOString() }, "result_digest"],
        ["status not in the list", goodReport({ status: "ok" }), "status"],
        ["status in another case", goodReport({ status: "Succeeded" }), "status"],
        ["status missing", { result_digest: digestOf("x"), finished_at: new Date().toISOString() }, "status"],
        ["finished_at not a time", goodReport({ finished_at: "yesterday" }), "finished_at"],
        ["finished_at without an offset", goodReport({ finished_at: "2026-12-01T10:00:00" }), "finished_at"],
        ["finished_at a number", goodReport({ finished_at: Date.now() }), "finished_at"],
        ["finished_at 10 minutes in the future", goodReport({ finished_at: new Date(Date.now() + 10 * 60_000).toISOString() }), "finished_at"],
        [
          "finished_at 10 minutes before the consume",
          goodReport({ finished_at: new Date(consumedAt.getTime() - 10 * 60_000).toISOString() }),
          "finished_at",
        ],
        ["an unknown field", { ...goodReport(), output: ARG_MARKER }, ""],
        ["an array", [goodReport()], ""],
        ["a string", JSON.stringify("succeeded"), ""],
        ["not JSON", "{status: succeeded", ""],
      ];
      for (const [what, body, path] of cases) {
        const r = await report(id, body);
        expect(r.status, what).toBe(422);
        expect(r.body.error, what).toBe("invalid-request");
        const issues = r.body.issues as Array<{ path: string; message: string }>;
        expect(
          issues.map((i) => i.path),
          what,
        ).toContain(path);
        expect(r.text, what).not.toContain(ARG_MARKER);
        expect(r.text, what).not.toContain("SECRET-LOOKING-VALUE");
        expect(r.text, what).not.toContain("output");
      }
      expect(await executedEvents(id)).toHaveLength(0);
      expect((await executionColumns(id)).reportedAt).toBeNull();

      // Within the 5 minutes of clock difference either way it is accepted.
      const skewed = await consumedApproved();
      const skewedAt = (await db.approval.findUniqueOrThrow({ where: { id: skewed } })).consumedAt!;
      expect((await report(skewed, goodReport({ finished_at: new Date(skewedAt.getTime() - 60_000).toISOString() }))).status).toBe(200);
      expect((await report(id, goodReport({ finished_at: new Date(Date.now() + 60_000).toISOString() }))).status).toBe(200);
    });

    it("records exactly one of concurrent reports of one request (12 at once, 15 times)", async () => {
      let notOne = 0;
      for (let trial = 0; trial < 15; trial++) {
        const id = await consumedApproved();
        const results = await Promise.all(Array.from({ length: 12 }, (_, i) => report(id, goodReport(), svc.api_token, bases[i % bases.length])));
        const wins = results.filter((r) => r.status === 200);
        if (wins.length !== 1) notOne++;
        expect(results.filter((r) => r.status === 409 && r.body.error === "already-reported")).toHaveLength(results.length - wins.length);
        expect(await executedEvents(id)).toHaveLength(wins.length);
        // What is stored is what the one winner was told.
        if (wins.length === 1) expect((await executionColumns(id)).resultDigest).toBe(wins[0]!.body.result_digest);
      }
      expect(notOne).toBe(0);
      expect(await verifyChain()).toMatchObject({ ok: true });
    }, 120_000);

    describe("the approval.executed callback", () => {
      let receiver: WebhookReceiver;
      let hooked: Service;

      beforeAll(async () => {
        const { updateCallbackUrl } = await import("@/lib/services/manage-services");
        hooked = await f.makeService();
        receiver = await webhookReceiver(hooked.callback_secret);
        await updateCallbackUrl({ slug: hooked.slug, callbackUrl: receiver.url }, "cli");
      });
      afterAll(async () => receiver?.close());

      it("reaches the service's receiver once, signed with its callback secret, after the decided one", async () => {
        const id = await consumedApproved(hooked);
        const sent = goodReport({ status: "failed" });
        expect((await report(id, sent, hooked.api_token)).status).toBe(200);
        const ofThis = () => receiver.events.filter((e) => e.event.data.approval_id === id);
        await expect
          .poll(
            () =>
              ofThis()
                .map((e) => e.event.type)
                .sort(),
            { timeout: 30_000, interval: 200 },
          )
          .toEqual(["approval.decided", "approval.executed"]);
        const a = await db.approval.findUniqueOrThrow({ where: { id } });
        const executed = ofThis().find((e) => e.event.type === "approval.executed")!;
        expect(executed.event).toEqual({
          type: "approval.executed",
          timestamp: expect.any(String),
          data: {
            approval_id: id,
            run_id: a.runId,
            call_id: a.callId,
            tool,
            args_digest: a.argsDigest,
            status: "failed",
            result_digest: sent.result_digest,
            finished_at: new Date(String(sent.finished_at)).toISOString(),
          },
        });
        expect(executed.body).not.toContain(ARG_MARKER);
        expect(executed.headers["user-agent"]).toBe("Countersign-Callback/1");
        expect(receiver.refused).toBe(0);
        const decided = ofThis().find((e) => e.event.type === "approval.decided")!;
        expect(executed.id).not.toBe(decided.id);

        // One delivery per event type, both delivered (the row is marked once the
        // receiver's answer is in, a moment after the receiver saw the body); the
        // Services page lists each with its type.
        const statuses = async () =>
          (await db.callbackDelivery.findMany({ where: { approvalId: id }, orderBy: { createdAt: "asc" } })).map((d) => [d.type, d.status]);
        await expect.poll(statuses, { timeout: 30_000, interval: 200 }).toEqual([
          ["approval.decided", "delivered"],
          ["approval.executed", "delivered"],
        ]);
        const { findServiceDeliveries } = await import("@/lib/services/manage-services");
        expect((await findServiceDeliveries(hooked.slug)).map((d) => d.type).sort()).toEqual(["approval.decided", "approval.executed"]);

        // Nothing else arrives: a refused second report sends nothing.
        expect((await report(id, goodReport(), hooked.api_token)).status).toBe(409);
        await new Promise((r) => setTimeout(r, 1500));
        expect(ofThis()).toHaveLength(2);
      });
    });

    describe("approved and consumed requests without a report, for admins", () => {
      let findUnreportedExecutions: typeof import("@/lib/executions/find-unreported-executions").findUnreportedExecutions;
      const admin = { roles: ["admin"] as const };
      beforeAll(async () => {
        ({ findUnreportedExecutions } = await import("@/lib/executions/find-unreported-executions"));
      });
      const listed = async (now: Date, graceSeconds = 3600) =>
        (await findUnreportedExecutions(admin, { now, graceSeconds })).items.map((x) => x.approvalId);

      it("lists one once the grace has passed, not before, and no longer once reported", async () => {
        const id = await consumedApproved();
        const consumedAt = (await db.approval.findUniqueOrThrow({ where: { id } })).consumedAt!;
        expect(await listed(new Date(consumedAt.getTime() + 3599_000))).not.toContain(id);
        expect(await listed(new Date(consumedAt.getTime() + 3600_000))).toContain(id);
        expect(await listed(new Date(consumedAt.getTime() + 60_000), 30)).toContain(id);
        const later = new Date(consumedAt.getTime() + 2 * 3600_000 + 5 * 60_000);
        const row = (await findUnreportedExecutions(admin, { now: later })).items.find((x) => x.approvalId === id);
        expect(row).toEqual({
          approvalId: id,
          service: svc.slug,
          tool,
          runId: expect.any(String),
          callId: "c1",
          consumedAt,
          since: "2 h 5 min",
        });
        expect((await report(id, goodReport())).status).toBe(200);
        expect(await listed(later)).not.toContain(id);
      });

      it("never lists a pending, an approved but unconsumed, or a consumed denied request", async () => {
        const pending = await ask();
        const unconsumed = await ask();
        await recordReview(reviewer.id, { approvalId: unconsumed.approval_id, decision: "approve" });
        const denied = await ask();
        await recordReview(reviewer.id, { approvalId: denied.approval_id, decision: "deny", reason: "no" });
        expect((await consume(denied.approval_id)).body.decision).toBe("denied");
        const ids = await listed(new Date(Date.now() + 30 * 24 * 3600_000));
        for (const a of [pending, unconsumed, denied]) expect(ids).not.toContain(a.approval_id);
      });

      it("lists the newest consume first, bounded", async () => {
        const ids = [await consumedApproved(), await consumedApproved(), await consumedApproved()];
        // Far in the past, with distinct consume times, so nothing else in the database sorts between them.
        const t0 = Date.now() - 365 * 24 * 3600_000;
        for (const [i, id] of ids.entries()) await db.approval.update({ where: { id }, data: { consumedAt: new Date(t0 + i * 1000) } });
        const all = await findUnreportedExecutions(admin, { now: new Date(t0 + 3600_000 + 10_000) });
        expect(all.items.map((x) => x.approvalId)).toEqual([ids[2], ids[1], ids[0]]);
        expect(all.more).toBe(false);
        const two = await findUnreportedExecutions(admin, { now: new Date(t0 + 3600_000 + 10_000), limit: 2 });
        expect(two.items.map((x) => x.approvalId)).toEqual([ids[2], ids[1]]);
        expect(two.more).toBe(true);
        // Report them, so later tests on this database see a clean list.
        for (const id of ids) expect((await report(id, goodReport({ finished_at: new Date(t0 + 2000).toISOString() }))).status).toBe(200);
      });

      it("refuses the list to anyone but an admin", async () => {
        for (const roles of [[], ["reviewer"], ["auditor"]]) {
          await expect(findUnreportedExecutions({ roles }, {})).rejects.toMatchObject({ code: "forbidden" });
        }
      });

      it("shows an admin, over HTTP, a request consumed longer ago than EXECUTION_REPORT_GRACE_SECONDS (3600 here), not a fresh one; others get no page", async () => {
        const stale = await consumedApproved();
        const fresh = await consumedApproved();
        await db.approval.update({ where: { id: stale }, data: { consumedAt: new Date(Date.now() - 2 * 3600_000) } });

        const shown = await page("/admin/executions", adminCookie);
        expect(shown.status).toBe(200);
        expect(shown.html).toContain(`/approvals/${stale}`);
        expect(shown.html).not.toContain(fresh);
        expect(shown.html).toMatch(/data-testid="unreported-since">2 h( \d+ min)?<!-- --> ago/);
        expect(shown.html).toContain(`>${svc.slug}<`);
        expect(shown.html).toContain('href="/admin/executions"');

        const refused = await page("/admin/executions", reviewerCookie);
        expect(refused.status).toBe(403);
        expect(refused.html).not.toContain(stale);
        expect(refused.html).not.toContain('href="/admin/executions"');
        const anonymous = await page("/admin/executions", "");
        expect(anonymous.html).not.toContain(stale);
        expect([303, 307, 308]).toContain(anonymous.status);
        expect(anonymous.location).toMatch(/\/signin/);

        // Reported, it leaves the list.
        expect((await report(stale, goodReport({ finished_at: new Date(Date.now() - 3600_000).toISOString() }))).status).toBe(200);
        const after = (await page("/admin/executions", adminCookie)).html;
        expect(after).not.toContain(stale);
        // Nothing left: the page says what would show up here and how executors report.
        expect(after).toContain('data-testid="no-unreported"');
        expect(after).toContain("A request shows up here when an executor consumed an approval and sent no report within");
        expect(after).toContain("<code>reportExecution</code>");
      });
    });
  });
}
