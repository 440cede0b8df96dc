// Ingesting approval requests (docs/api.md) over real HTTP against the
// running app, on one database: a new request, replays of the same call, the
// digest check, the TTL cap and concurrent deliveries.
import { describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";
import { argsDigest } from "@countersign/client";
import { CountersignClient } from "@countersign/client";
import { callData, event, unique, useWebhookService } from "./webhook-harness";

export function webhookIngestSuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`webhook ingestion (${provider})`, () => {
    const { base, db, svc, post, stored, expectRefusedWithoutStoring } = useWebhookService(app, "svc");

    it("creates a pending request: 201, recomputed digest, redacted copy, audit event", async () => {
      // Someone who could approve it (the default policy: one reviewer), so no warning is due.
      const { addUser } = await import("@/lib/users/add-user");
      await addUser({ email: `reviewer-${unique()}@example.com`, roles: ["reviewer"] }, "cli");
      const data = callData({
        arguments: { to: "ana@example.com", api_key: "sk-live-abcdefghijklmnopqrstuv", amount: 10 },
        summary: "Refund ana@example.com",
        requested_by: "Ana@Example.com",
      });
      const r = await post(JSON.stringify(event(data)));
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({
        status: "pending",
        args_digest: argsDigest(data.arguments as Record<string, unknown>),
        review_url: `${base}/approvals/${String(r.body.approval_id)}`,
      });
      expect(Object.keys(r.body).sort()).toEqual(["approval_id", "args_digest", "expires_at", "review_url", "status"]);
      expect(await db.approval.findUniqueOrThrow({ where: { id: String(r.body.approval_id) } })).toMatchObject({ quorumUnreachable: false });
      const row = await db.approval.findUniqueOrThrow({ where: { id: String(r.body.approval_id) } });
      expect(row.redactedArgs).not.toContain("ana@example.com");
      expect(row.redactedArgs).not.toContain("sk-live");
      expect(JSON.parse(row.redactedArgs)).toMatchObject({ amount: 10 });
      expect(row.summary).not.toContain("ana@example.com");
      const audit = await db.auditEvent.findFirstOrThrow({ where: { approvalId: row.id, type: "approval.requested" } });
      expect(audit.data).not.toContain("ana@example.com");
      expect(audit.data).toContain(row.argsDigest);
    });

    it("accepts a matching args_digest and the TypeScript sender over real HTTP", async () => {
      const client = new CountersignClient({ baseUrl: base, serviceSlug: svc.slug, webhookSecret: svc.webhook_secret, apiToken: svc.api_token });
      const created = await client.requestApproval({ run_id: `run_${unique()}`, call_id: "c1", tool: "email.send", arguments: { n: 1 } });
      expect(created.status).toBe("pending");
      // The client always salts (docs/security.md).
      expect(created.args_digest).toBe(argsDigest({ n: 1 }, created.args_salt));
    });

    it("answers the same call with the same tool and digest with the first answer", async () => {
      const data = callData();
      const first = await post(JSON.stringify(event(data)));
      const before = await stored();
      const again = await post(JSON.stringify(event({ ...data, summary: "different summary is fine" })));
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(await stored()).toEqual(before);
    });

    it("refuses the same call with another digest or tool: 409 call-reused", async () => {
      const data = callData();
      expect((await post(JSON.stringify(event(data)))).status).toBe(201);
      await expectRefusedWithoutStoring(
        () => post(JSON.stringify(event({ ...data, arguments: { account: "AC-2", amount: 10 } }))),
        409,
        "call-reused",
      );
      await expectRefusedWithoutStoring(() => post(JSON.stringify(event({ ...data, tool: "payments.refund" }))), 409, "call-reused");
    });

    it("refuses a wrong args_digest: 422 digest-mismatch", async () => {
      const data = callData({ args_digest: argsDigest({ account: "AC-1", amount: 11 }) });
      await expectRefusedWithoutStoring(() => post(JSON.stringify(event(data))), 422, "digest-mismatch");
    });

    it("caps expires_in at the policy TTL", async () => {
      const r = await post(JSON.stringify(event(callData({ expires_in: 30 * 24 * 3600 }))));
      const row = await db.approval.findUniqueOrThrow({ where: { id: String(r.body.approval_id) } });
      expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(row.ttlSeconds * 1000);
      const short = await post(JSON.stringify(event(callData({ expires_in: 60 }))));
      const shortRow = await db.approval.findUniqueOrThrow({ where: { id: String(short.body.approval_id) } });
      expect(shortRow.expiresAt.getTime() - shortRow.createdAt.getTime()).toBe(60_000);
    });

    it("creates one request from 20 simultaneous deliveries of one call with different digests", async () => {
      const data = callData();
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(JSON.stringify(event({ ...data, arguments: { amount: i } })))));
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
      expect(answers.filter((a) => a.status === 409 && a.body.error === "call-reused")).toHaveLength(19);
      expect(await db.approval.count({ where: { runId: data.run_id } })).toBe(1);
    });
  });
}
