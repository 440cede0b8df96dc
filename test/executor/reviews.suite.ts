// The agent hears why: the consume answer, the state answer and the signed
// approval.decided callback carry every vote with its reason, in the order
// cast, over real HTTP against the running app. Votes are cast through the
// one review function (lib/reviews) on the same database.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { direct } from "@/lib/db/sql";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";

type Vote = { by: string; vote: "approve" | "deny"; reason: string | null; at: string };

export function reviewsSuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`reviews reach the executor (${provider})`, () => {
    const base = app?.baseUrl ?? "";
    let f: typeof import("../helpers/fixtures");
    let recordReview: typeof import("@/lib/reviews/record-review").recordReview;
    let client: typeof import("@countersign/client");
    let db: import("@/lib/db/client").Db;
    let svc: Awaited<ReturnType<typeof f.makeService>>;
    let callbackSecret: string;
    let tool: string;
    let ria: { id: string; email: string };
    let rex: { id: string; email: string };
    let receiver: Server;
    const received: Array<{ headers: IncomingMessage["headers"]; body: string }> = [];

    beforeAll(async () => {
      f = await import("../helpers/fixtures");
      ({ recordReview } = await import("@/lib/reviews/record-review"));
      client = await import("@countersign/client");
      db = (await import("@/lib/db/client")).db();
      receiver = createServer((req, res) => {
        let body = "";
        req.on("data", (c: Buffer) => (body += c.toString()));
        req.on("end", () => {
          received.push({ headers: req.headers, body });
          res.statusCode = 204;
          res.end();
        });
      });
      await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
      const port = (receiver.address() as { port: number }).port;
      const { createService } = await import("@/lib/services/manage-services");
      const { findServiceForWebhook } = await import("@/lib/services/service-secrets");
      const created = await createService({ slug: `why-${randomUUID().slice(0, 8)}`, callbackUrl: `http://127.0.0.1:${port}/hook` }, "cli");
      svc = { ...created, auth: (await findServiceForWebhook(direct(), created.slug))! };
      callbackSecret = created.callback_secret;
      // Four eyes for this service's tool: two distinct approvals decide, one deny decides.
      tool = `why.${f.uid()}`;
      await f.makePolicy({ tool, roles: ["reviewer"], quorum: 2, service: svc.slug });
      ria = await f.makeUser(["reviewer"]);
      rex = await f.makeUser(["reviewer"]);
    });
    afterAll(async () => {
      await new Promise<void>((r) => receiver.close(() => r()));
      await db.$disconnect();
    });

    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${svc.api_token}`, "content-type": "application/json" } });
    const state = async (id: string) => (await (await api(`/api/v1/approvals/${id}`)).json()) as Record<string, unknown> & { reviews: Vote[] };
    const consume = async (id: string) => {
      const a = await db.approval.findUniqueOrThrow({ where: { id } });
      const binding = { run_id: a.runId, call_id: a.callId, tool: a.tool, args_digest: a.argsDigest };
      const r = await api(`/api/v1/approvals/${id}/consume`, { method: "POST", body: JSON.stringify(binding) });
      return { status: r.status, text: await r.clone().text(), body: (await r.json()) as Record<string, unknown> & { reviews: Vote[] } };
    };
    /** The callback for one request, once delivered, with its signature verified as an executor would. */
    const callbackFor = async (approvalId: string) => {
      await expect.poll(() => received.some((r) => r.body.includes(approvalId)), { timeout: 20_000, interval: 200 }).toBe(true);
      const hit = received.find((r) => r.body.includes(approvalId))!;
      const event = client.verifyCallback({
        secret: callbackSecret,
        headers: {
          id: String(hit.headers["webhook-id"]),
          timestamp: String(hit.headers["webhook-timestamp"]),
          signature: String(hit.headers["webhook-signature"]),
        },
        rawBody: Buffer.from(hit.body),
      });
      if (event.type !== "approval.decided") throw new Error(`expected approval.decided, got ${event.type}`);
      return { event, raw: hit.body };
    };
    const inOrder = (votes: Vote[]) => votes.every((v, i) => i === 0 || Date.parse(votes[i - 1]!.at) <= Date.parse(v.at));

    it("four eyes approved: consume and callback carry both votes in order, with the reason given and null where none was", async () => {
      const a = await f.makeApproval(svc, { tool });
      await recordReview(ria.id, { approvalId: a.approval_id, decision: "approve", reason: "matches ticket 88" });
      // While pending, the state already shows the vote cast so far.
      const pending = await state(a.approval_id);
      expect(pending.status).toBe("pending");
      expect(pending.reviews).toEqual([{ by: ria.email, vote: "approve", reason: "matches ticket 88", at: expect.any(String) }]);
      await recordReview(rex.id, { approvalId: a.approval_id, decision: "approve" });

      const expected = [
        { by: ria.email, vote: "approve", reason: "matches ticket 88", at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) },
        { by: rex.email, vote: "approve", reason: null, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) },
      ];
      const decided = await state(a.approval_id);
      expect(decided).toMatchObject({ status: "approved", decided_by: [ria.email, rex.email], reviews: expected });

      const taken = await consume(a.approval_id);
      expect(taken.status).toBe(200);
      expect(taken.body).toMatchObject({ decision: "approved", decided_by: [ria.email, rex.email], reviews: expected });
      expect(inOrder(taken.body.reviews)).toBe(true);
      expect(taken.body.reviews).toEqual(decided.reviews);
      expect(client.denialReason(taken.body)).toBeNull();

      const { event } = await callbackFor(a.approval_id);
      expect(event.data).toMatchObject({ decision: "approved", decided_by: [ria.email, rex.email] });
      expect(event.data.reviews).toEqual(taken.body.reviews);
    });

    it("denied after one approval: both votes in order, and the agent can read why", async () => {
      const a = await f.makeApproval(svc, { tool });
      await recordReview(ria.id, { approvalId: a.approval_id, decision: "approve", reason: "fine by me" });
      await recordReview(rex.id, { approvalId: a.approval_id, decision: "deny", reason: "wrong account; ask finance" });

      const taken = await consume(a.approval_id);
      expect(taken.status).toBe(200);
      expect(taken.body).toMatchObject({
        decision: "denied",
        decided_by: [rex.email],
        reviews: [
          { by: ria.email, vote: "approve", reason: "fine by me", at: expect.any(String) },
          { by: rex.email, vote: "deny", reason: "wrong account; ask finance", at: expect.any(String) },
        ],
      });
      expect(inOrder(taken.body.reviews)).toBe(true);
      expect(client.denialReason(taken.body)).toBe("wrong account; ask finance");

      const { event } = await callbackFor(a.approval_id);
      expect(event.data.decision).toBe("denied");
      expect(event.data.reviews).toEqual(taken.body.reviews);
      expect(client.denialReason(event.data)).toBe("wrong account; ask finance");
    });

    it("an expiry carries the votes cast before it; none at all is an empty list", async () => {
      const partly = await f.makeApproval(svc, { tool, expires_in: 1 });
      const untouched = await f.makeApproval(svc, { tool, expires_in: 1 });
      await recordReview(ria.id, { approvalId: partly.approval_id, decision: "approve", reason: "one of two" });
      await new Promise((r) => setTimeout(r, 1100));
      const taken = await consume(partly.approval_id);
      expect(taken.body).toMatchObject({ decision: "expired", decided_by: [], reviews: [{ by: ria.email, vote: "approve", reason: "one of two" }] });
      const empty = await consume(untouched.approval_id);
      expect(empty.body).toMatchObject({ decision: "expired", reviews: [] });
      const { event } = await callbackFor(partly.approval_id);
      expect(event.data).toMatchObject({ decision: "expired", decided_by: [] });
      expect(event.data.reviews).toEqual(taken.body.reviews);
    });

    it("carries nothing of the arguments, and the receipt stays the binding and the decision only", async () => {
      const canary = `canary-${f.uid()}`;
      const a = await f.makeApproval(svc, { tool, arguments: { account: canary, note: { deep: canary } } });
      await recordReview(ria.id, { approvalId: a.approval_id, decision: "deny", reason: "not this account" });
      const taken = await consume(a.approval_id);
      expect(taken.body.reviews).toEqual([{ by: ria.email, vote: "deny", reason: "not this account", at: expect.any(String) }]);
      expect(taken.text).not.toContain(canary);
      expect(JSON.stringify(await state(a.approval_id))).not.toContain(canary);
      const { raw } = await callbackFor(a.approval_id);
      expect(raw).not.toContain(canary);
      const receipt = await client.verifyReceipt(String(taken.body.receipt), `${base}/.well-known/jwks.json`);
      expect(receipt).not.toHaveProperty("reviews");
      expect(JSON.stringify(receipt)).not.toContain("not this account");
    });
  });
}
