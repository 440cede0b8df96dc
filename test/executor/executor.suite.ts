// docs/api.md over real HTTP against the running app. Decisions are
// made through the one review function (lib/reviews) on the same database.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { direct } from "@/lib/db/sql";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";

export function executorSuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`executor API (${provider})`, () => {
    const base = app?.baseUrl ?? "";
    let f: typeof import("../helpers/fixtures");
    let recordReview: typeof import("@/lib/reviews/record-review").recordReview;
    let client: typeof import("@countersign/client");
    let db: import("@/lib/db/client").Db;
    let svc: Awaited<ReturnType<typeof f.makeService>>;
    let other: Awaited<ReturnType<typeof f.makeService>>;
    let reviewer: { id: string; email: string };

    beforeAll(async () => {
      f = await import("../helpers/fixtures");
      ({ recordReview } = await import("@/lib/reviews/record-review"));
      client = await import("@countersign/client");
      db = (await import("@/lib/db/client")).db();
      svc = await f.makeService();
      other = await f.makeService();
      reviewer = await f.makeUser(["reviewer"]);
    });
    afterAll(async () => db.$disconnect());

    const api = (path: string, token: string, init: RequestInit = {}) =>
      fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers } });
    const bodyOf = async (r: Response) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> });
    const approve = (id: string) => recordReview(reviewer.id, { approvalId: id, decision: "approve" });
    const bindingOf = async (id: string) => {
      const a = await db.approval.findUniqueOrThrow({ where: { id } });
      return { run_id: a.runId, call_id: a.callId, tool: a.tool, args_digest: a.argsDigest };
    };
    const consume = (id: string, binding: object, token = svc.api_token) =>
      api(`/api/v1/approvals/${id}/consume`, token, { method: "POST", body: JSON.stringify(binding) }).then(bodyOf);

    it("refuses a missing or wrong token with 401 unauthorized", async () => {
      const a = await f.makeApproval(svc, { tool: "mail.send" });
      expect(await bodyOf(await fetch(`${base}/api/v1/approvals/${a.approval_id}`))).toEqual({ status: 401, body: { error: "unauthorized" } });
      expect(await bodyOf(await api(`/api/v1/approvals/${a.approval_id}`, "cs_tok_wrongwrongwrongwrongwrong"))).toEqual({
        status: 401,
        body: { error: "unauthorized" },
      });
    });

    it("answers another service's request exactly like an unknown id: 404", async () => {
      const a = await f.makeApproval(svc, { tool: "mail.send" });
      const foreign = await bodyOf(await api(`/api/v1/approvals/${a.approval_id}`, other.api_token));
      const unknown = await bodyOf(await api(`/api/v1/approvals/apr_doesnotexist`, other.api_token));
      expect(foreign).toEqual({ status: 404, body: { error: "not-found" } });
      expect(unknown).toEqual(foreign);
      expect(await consume(a.approval_id, await bindingOf(a.approval_id), other.api_token)).toEqual(foreign);
      expect(await bodyOf(await api(`/api/v1/approvals/${a.approval_id}/cancel`, other.api_token, { method: "POST" }))).toEqual(foreign);
    });

    it("shows the request's state with the contract's fields", async () => {
      const a = await f.makeApproval(svc, { tool: "mail.send" });
      const r = await bodyOf(await api(`/api/v1/approvals/${a.approval_id}`, svc.api_token));
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        approval_id: a.approval_id,
        status: "pending",
        run_id: expect.any(String),
        call_id: "c1",
        tool: "mail.send",
        args_digest: a.args_digest,
        expires_at: a.expires_at,
        decided_at: null,
        decided_by: [],
        reviews: [],
        consumed: false,
        execution: null,
        // Who may still decide it (test/reviews/waiting-on.suite.ts checks the counts).
        waiting_on: [{ role: expect.any(String), needed: 1, eligible: expect.any(Number) }],
      });
    });

    // Woken by the decision, long before its 10 s wait runs out; how fast is printed, not held to a bound a loaded machine can miss.
    it("long-poll returns on a decision, not at the end of its wait", async () => {
      const a = await f.makeApproval(svc, { tool: "mail.send" });
      const started = Date.now();
      const polled = api(`/api/v1/approvals/${a.approval_id}?wait=10`, svc.api_token).then(bodyOf);
      await new Promise((r) => setTimeout(r, 1500));
      const decidedAt = Date.now();
      await approve(a.approval_id);
      const r = await polled;
      expect(r.body).toMatchObject({ status: "approved", decided_by: [reviewer.email] });
      const woke = Date.now() - decidedAt;
      console.log(`long-poll answered ${woke} ms after the decision began`);
      expect(woke).toBeLessThan(5000);
      expect(decidedAt - started).toBeGreaterThanOrEqual(1400);
    });

    it("refuses wait outside 0..30", async () => {
      const a = await f.makeApproval(svc, { tool: "mail.send" });
      expect((await api(`/api/v1/approvals/${a.approval_id}?wait=31`, svc.api_token)).status).toBe(422);
    });

    it("consume: not-decided while pending, then binding checks, then exactly once with a verifiable receipt", async () => {
      const a = await f.makeApproval(svc, { tool: "mail.send" });
      const binding = await bindingOf(a.approval_id);
      expect(await consume(a.approval_id, binding)).toEqual({ status: 409, body: { error: "not-decided" } });
      await approve(a.approval_id);
      const offByOne = (v: string) => v.slice(0, -1) + (v.endsWith("a") ? "b" : "a");
      for (const field of ["run_id", "call_id", "tool", "args_digest"] as const) {
        const r = await consume(a.approval_id, { ...binding, [field]: offByOne(binding[field]) });
        expect(r).toEqual({ status: 409, body: { error: "binding-mismatch" } });
      }
      expect(await db.auditEvent.count({ where: { approvalId: a.approval_id, type: "consume.refused" } })).toBe(4);
      const ok = await consume(a.approval_id, binding);
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ approval_id: a.approval_id, decision: "approved", decided_by: [reviewer.email] });
      const payload = await client.verifyReceipt(String(ok.body.receipt), `${base}/.well-known/jwks.json`);
      expect(payload).toMatchObject({
        ...binding,
        approval_id: a.approval_id,
        service: svc.slug,
        decision: "approved",
        decided_by: [reviewer.email],
      });
      expect(await consume(a.approval_id, binding)).toEqual({ status: 409, body: { error: "already-consumed" } });
      const state = await bodyOf(await api(`/api/v1/approvals/${a.approval_id}`, svc.api_token));
      expect(state.body.consumed).toBe(true);

      // A flipped byte in the receipt fails verification.
      const jws = String(ok.body.receipt);
      const flipped = jws.slice(0, 40) + (jws[40] === "A" ? "B" : "A") + jws.slice(41);
      await expect(client.verifyReceipt(flipped, `${base}/.well-known/jwks.json`)).rejects.toThrow();
    });

    it("denied and expired requests consume as such", async () => {
      const d = await f.makeApproval(svc, { tool: "mail.send" });
      await recordReview(reviewer.id, { approvalId: d.approval_id, decision: "deny", reason: "no" });
      expect((await consume(d.approval_id, await bindingOf(d.approval_id))).body).toMatchObject({ decision: "denied", decided_by: [reviewer.email] });
      const e = await f.makeApproval(svc, { tool: "mail.send", expires_in: 1 });
      await new Promise((r) => setTimeout(r, 1100));
      const state = await bodyOf(await api(`/api/v1/approvals/${e.approval_id}`, svc.api_token));
      expect(state.body.status).toBe("expired");
      const r = await consume(e.approval_id, await bindingOf(e.approval_id));
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ decision: "expired", decided_by: [], decided_at: e.expires_at });
    });

    it("receipts carry iat, exp, the policy's name and version at arrival, and the consume event's place in the audit chain", async () => {
      const { setPolicy } = await import("@/lib/policies/set-policy");
      const tool = `anchor.${f.uid()}`;
      const policy = { name: `anchor-${f.uid()}`, tool, service: svc.slug, roles: ["reviewer"], quorum: 1, ttl: 600 };
      const first = await setPolicy(policy, "cli", { anyway: true });
      const changed = await db.auditEvent.findFirstOrThrow({ where: { type: "policy.changed" }, orderBy: { seq: "desc" } });
      // The version is the sequence number of the event that recorded the change.
      expect(first.policy.version).toBe(changed.seq);
      const a = await f.makeApproval(svc, { tool });
      await approve(a.approval_id);
      // A later change of the policy does not change what governed this request.
      const second = await setPolicy({ ...policy, quorum: 2 }, "cli", { anyway: true });
      expect(second.policy.version).toBeGreaterThan(first.policy.version);

      const before = Math.floor(Date.now() / 1000);
      const ok = await consume(a.approval_id, await bindingOf(a.approval_id));
      const after = Math.floor(Date.now() / 1000);
      expect(ok.status).toBe(200);
      const payload = await client.verifyReceipt(String(ok.body.receipt), `${base}/.well-known/jwks.json`);
      const consumed = await db.auditEvent.findFirstOrThrow({ where: { approvalId: a.approval_id, type: "approval.consumed" } });
      expect(payload).toMatchObject({
        policy: { name: policy.name, version: first.policy.version },
        audit_seq: consumed.seq,
        audit_head: consumed.hash,
      });
      expect(payload.iat).toBeGreaterThanOrEqual(before);
      expect(payload.iat).toBeLessThanOrEqual(after);
      expect(payload.exp - payload.iat).toBe(600);
      expect(Math.floor(Date.parse(payload.consumed_at) / 1000)).toBe(payload.iat);

      // The slow path (a request whose expiry nobody has marked yet) anchors its receipt too.
      const e = await f.makeApproval(svc, { tool, expires_in: 1 });
      await new Promise((r) => setTimeout(r, 1100));
      const late = await consume(e.approval_id, await bindingOf(e.approval_id));
      expect(late.body).toMatchObject({ decision: "expired" });
      const expiredPayload = await client.verifyReceipt(String(late.body.receipt), `${base}/.well-known/jwks.json`);
      const lateEvent = await db.auditEvent.findFirstOrThrow({ where: { approvalId: e.approval_id, type: "approval.consumed" } });
      expect(expiredPayload).toMatchObject({
        policy: { name: policy.name, version: second.policy.version },
        audit_seq: lateEvent.seq,
        audit_head: lateEvent.hash,
      });
    });

    it("cancel withdraws a pending request once", async () => {
      const a = await f.makeApproval(svc, { tool: "mail.send" });
      const r = await bodyOf(await api(`/api/v1/approvals/${a.approval_id}/cancel`, svc.api_token, { method: "POST" }));
      expect(r).toMatchObject({ status: 200, body: { status: "cancelled" } });
      expect(await bodyOf(await api(`/api/v1/approvals/${a.approval_id}/cancel`, svc.api_token, { method: "POST" }))).toEqual({
        status: 409,
        body: { error: "already-decided" },
      });
      expect(await db.auditEvent.count({ where: { approvalId: a.approval_id, type: "approval.cancelled" } })).toBe(1);
    });

    it("exactly once: 32 concurrent consumes of one approved request, 100 times", async () => {
      let doubles = 0;
      for (let trial = 0; trial < 100; trial++) {
        const a = await f.makeApproval(svc, { tool: "mail.send" });
        await approve(a.approval_id);
        const binding = await bindingOf(a.approval_id);
        const results = await Promise.all(Array.from({ length: 32 }, () => consume(a.approval_id, binding)));
        const wins = results.filter((r) => r.status === 200).length;
        if (wins !== 1) doubles++;
        expect(results.filter((r) => r.status === 409 && r.body.error === "already-consumed")).toHaveLength(31);
      }
      expect(doubles).toBe(0);
    }, 300_000);

    it("after a receipt key rotation old receipts verify and new ones carry the new kid", async () => {
      const { rotateReceiptKey } = await import("@/lib/receipts/signing-keys");
      const jwksUrl = `${base}/.well-known/jwks.json`;
      const before = await f.makeApproval(svc, { tool: "mail.send" });
      await approve(before.approval_id);
      const old = await consume(before.approval_id, await bindingOf(before.approval_id));
      const { kid } = await rotateReceiptKey("cli");
      const after = await f.makeApproval(svc, { tool: "mail.send" });
      await approve(after.approval_id);
      const fresh = await consume(after.approval_id, await bindingOf(after.approval_id));
      const header = (jws: string) => JSON.parse(Buffer.from(jws.split(".")[0]!, "base64url").toString()) as { kid: string };
      expect(header(String(fresh.body.receipt)).kid).toBe(kid);
      expect(header(String(old.body.receipt)).kid).not.toBe(kid);
      const jwks = (await (await fetch(jwksUrl)).json()) as { keys: Array<{ kid: string }> };
      expect(jwks.keys.map((k) => k.kid)).toEqual(expect.arrayContaining([kid, header(String(old.body.receipt)).kid]));
      const verifyWith = { keys: jwks.keys } as unknown as Parameters<typeof client.verifyReceipt>[1];
      await expect(client.verifyReceipt(String(old.body.receipt), verifyWith)).resolves.toMatchObject({ approval_id: before.approval_id });
      await expect(client.verifyReceipt(String(fresh.body.receipt), verifyWith)).resolves.toMatchObject({ approval_id: after.approval_id });
    });

    describe("callbacks", () => {
      let receiver: Server;
      let port = 0;
      const received: Array<{ headers: IncomingMessage["headers"]; body: string; answered: number }> = [];
      let failuresLeft = 0;

      beforeAll(async () => {
        receiver = createServer((req, res) => {
          let body = "";
          req.on("data", (c: Buffer) => (body += c.toString()));
          req.on("end", () => {
            const answered = failuresLeft-- > 0 ? 503 : 204;
            received.push({ headers: req.headers, body, answered });
            res.statusCode = answered;
            res.end();
          });
        });
        await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
        port = (receiver.address() as { port: number }).port;
      });
      afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

      it("retries a failing receiver and delivers exactly once, signed", async () => {
        const { createService } = await import("@/lib/services/manage-services");
        const { findServiceForWebhook } = await import("@/lib/services/service-secrets");
        const created = await createService({ slug: `cb-${randomUUID().slice(0, 8)}`, callbackUrl: `http://127.0.0.1:${port}/hook` }, "cli");
        const withCallback = { ...created, auth: (await findServiceForWebhook(direct(), created.slug))! };
        failuresLeft = 2;
        received.length = 0;
        const a = await f.makeApproval(withCallback, { tool: "mail.send" });
        await approve(a.approval_id);
        const deadline = Date.now() + 20_000;
        while (!received.some((r) => r.answered === 204) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
        await new Promise((r) => setTimeout(r, 1500)); // nothing more may arrive
        expect(received.map((r) => r.answered)).toEqual([503, 503, 204]);
        const ok = received[2]!;
        const event = client.verifyCallback({
          secret: created.callback_secret,
          headers: {
            id: String(ok.headers["webhook-id"]),
            timestamp: String(ok.headers["webhook-timestamp"]),
            signature: String(ok.headers["webhook-signature"]),
          },
          rawBody: Buffer.from(ok.body),
        });
        expect(event.data).toMatchObject({ approval_id: a.approval_id, decision: "approved", decided_by: [reviewer.email] });
        expect(new Set(received.map((r) => r.headers["webhook-id"])).size).toBe(1);
        const delivery = await db.callbackDelivery.findUniqueOrThrow({
          where: { approvalId_type: { approvalId: a.approval_id, type: "approval.decided" } },
          include: { attemptsLog: true },
        });
        expect(delivery.status).toBe("delivered");
        expect(delivery.attemptsLog.map((x) => x.statusCode).sort()).toEqual([204, 503, 503]);
      });
    });
  });
}
