// Salted digests (docs/security.md) over real HTTP against the running app, on one
// database: a salt binds the digest and is never handed back in any answer,
// audit event, callback or receipt; the TypeScript client salts every call.
import { randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";
import { argsDigest } from "@countersign/client";
import { CountersignClient, decodeReceiptUnverified } from "@countersign/client";
import { recordReview } from "@/lib/reviews/record-review";
import { getReviewView } from "@/lib/reviews/get-review-view";
import { addUser } from "@/lib/users/add-user";
import { bodyWith, jcsDigest, salt, useWebhookService } from "./webhook-harness";

export function saltedDigestSuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`salted digests (${provider})`, () => {
    const { base, db, svc, post, stored } = useWebhookService(app, "ij", async (db, slug) => {
      // A callback URL on loopback's discard port: deliveries fail, but the payload is stored to inspect.
      await db.service.update({ where: { slug }, data: { callbackUrl: "http://127.0.0.1:9/countersign" } });
    });

    it("refuses a malformed args_salt with 422 and the field's path, without echoing it", async () => {
      const bad = [
        randomBytes(16).toString("base64"), // padded
        randomBytes(15).toString("base64url"),
        randomBytes(65).toString("base64url"),
        `${randomBytes(32).toString("base64url").slice(0, -1)}+`,
        "A".repeat(21) + "B", // 16 bytes with non-zero unused bits: not the canonical spelling
        "",
      ];
      for (const s of bad) {
        const before = await stored();
        const r = await post(bodyWith('{"a":1}', { args_salt: s }));
        expect([r.status, r.body.error], s).toEqual([422, "invalid-request"]);
        expect(r.body.issues, s).toEqual([{ path: "data.args_salt", message: expect.any(String) }]);
        if (s) expect(JSON.stringify(r.body)).not.toContain(s);
        expect(await stored()).toEqual(before);
      }
    });

    it("binds a salted digest: repeat with another salt is call-reused; consume needs the salted digest", async () => {
      const s = salt();
      const args = { account: "AC-1", amount: 10 };
      const runId = `run_${randomUUID()}`;
      const data = { run_id: runId, call_id: "c1", tool: "payments.pay", arguments: args, args_salt: s };
      const event = (d: object) => JSON.stringify({ type: "approval.requested", data: d });
      const first = await post(event(data));
      expect(first.status).toBe(201);
      expect(first.body.args_digest).toBe(argsDigest(args, s));
      expect(first.body.args_digest).toBe(jcsDigest('{"account":"AC-1","amount":10}', s));
      expect(first.body.args_digest).not.toBe(argsDigest(args));
      const row = await db.approval.findUniqueOrThrow({ where: { id: String(first.body.approval_id) } });
      expect(row.argsSalt).toBe(s);

      // Same call, same tool and arguments: same salt replays, another salt (or none) is another digest.
      expect(await post(event(data))).toMatchObject({ status: 200, body: first.body });
      for (const other of [
        { ...data, args_salt: salt() },
        { ...data, args_salt: undefined },
      ]) {
        const before = await stored();
        const r = await post(event(other));
        expect([r.status, r.body.error]).toEqual([409, "call-reused"]);
        expect(await stored()).toEqual(before);
      }

      const reviewer = await addUser({ email: `rev-${randomBytes(4).toString("hex")}@example.com`, roles: ["reviewer"] }, "cli");
      await recordReview(reviewer.id, { approvalId: row.id, decision: "approve" });

      const cs = new CountersignClient({ baseUrl: base, serviceSlug: svc.slug, webhookSecret: svc.webhook_secret, apiToken: svc.api_token });
      const binding = { run_id: runId, call_id: "c1", tool: "payments.pay" };
      for (const wrong of [argsDigest(args), argsDigest(args, salt())]) {
        const e = await cs.consume(row.id, { ...binding, args_digest: wrong }).catch((x: unknown) => x);
        expect(e).toMatchObject({ code: "binding-mismatch", status: 409 });
      }
      // The executor that knows the salt binds to the arguments it is about to run.
      const taken = await cs.consume(row.id, { ...binding, arguments: args, args_salt: s });
      expect(taken.decision).toBe("approved");
      const { payload } = decodeReceiptUnverified(taken.receipt);
      expect(payload).toMatchObject({ args_digest: argsDigest(args, s) });
      expect(Object.keys(payload as object)).not.toContain("args_salt");

      // The salt appears in no answer, audit event, callback payload or page data.
      const state = await fetch(`${base}/api/v1/approvals/${row.id}`, { headers: { authorization: `Bearer ${svc.api_token}` } });
      const seen = [JSON.stringify(first.body), await state.text(), JSON.stringify(taken), JSON.stringify(payload)];
      const events = await db.auditEvent.findMany({ where: { approvalId: row.id } });
      expect(events.map((e) => e.type)).toEqual(
        expect.arrayContaining(["approval.requested", "approval.decided", "consume.refused", "approval.consumed"]),
      );
      seen.push(...events.map((e) => e.data));
      const anyEvent = await db.auditEvent.count({ where: { data: { contains: s } } });
      expect(anyEvent).toBe(0);
      const callbacks = await db.callbackDelivery.findMany({ where: { approvalId: row.id } });
      expect(callbacks).toHaveLength(1);
      seen.push(...callbacks.map((c) => c.payload));
      const admin = await addUser({ email: `adm-${randomBytes(4).toString("hex")}@example.com`, roles: ["admin"] }, "cli");
      const view = await getReviewView(row.id, admin.id);
      expect(view?.id).toBe(row.id);
      seen.push(JSON.stringify(view));
      for (const text of seen) expect(text).not.toContain(s);
    });

    it("the TypeScript client salts every request and consumes with the salt it remembered", async () => {
      const cs = new CountersignClient({ baseUrl: base, serviceSlug: svc.slug, webhookSecret: svc.webhook_secret, apiToken: svc.api_token });
      const call = { run_id: `run_${randomUUID()}`, call_id: "c1", tool: "email.send", arguments: { to: "ops@example.com", n: 1 } };
      const created = await cs.requestApproval(call);
      const row = await db.approval.findUniqueOrThrow({ where: { id: created.approval_id } });
      expect(row.argsSalt).toBe(created.args_salt);
      expect(created.args_digest).toBe(argsDigest(call.arguments, created.args_salt));
      // A retry from the same client is a replay, not call-reused.
      expect(await cs.requestApproval(call)).toEqual(created);
      const reviewer = await addUser({ email: `rev-${randomBytes(4).toString("hex")}@example.com`, roles: ["reviewer"] }, "cli");
      await recordReview(reviewer.id, { approvalId: row.id, decision: "deny", reason: "not now" });
      const taken = await cs.consume(created.approval_id, call);
      expect(taken.decision).toBe("denied");
    });
  });
}
