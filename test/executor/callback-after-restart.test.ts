// A decision committed while no app instance is delivering (the app died right
// after deciding) is still delivered: the outbox row was written with the
// decision, and the next instance to start delivers it, once, signed.
import { createServer, type Server } from "node:http";
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { direct } from "@/lib/db/sql";
import { freshSqliteUrl } from "../helpers/databases";
import { startAppServer, type AppServer } from "../helpers/app-server";
import { generateSecrets } from "@/lib/local-secrets";

describe("callback outbox across a restart", () => {
  let receiver: Server | undefined;
  let app: AppServer | undefined;
  afterAll(async () => {
    await app?.stop();
    await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  });

  it("delivers after the next start a decision made while no instance was running", async () => {
    const received: Array<{ id: string; body: string; headers: Record<string, string> }> = [];
    receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        received.push({
          id: String(req.headers["webhook-id"]),
          body,
          headers: { ts: String(req.headers["webhook-timestamp"]), sig: String(req.headers["webhook-signature"]) },
        });
        res.statusCode = 200;
        res.end();
      });
    });
    await new Promise<void>((r) => receiver!.listen(0, "127.0.0.1", () => r()));
    const port = (receiver.address() as { port: number }).port;

    // This process plays the instance that decided and then died: the app is not running.
    const url = freshSqliteUrl();
    const secrets = generateSecrets();
    Object.assign(process.env, secrets, { DATABASE_URL: url });
    const { prepareDatabase } = await import("@/lib/startup/prepare");
    await prepareDatabase();
    const f = await import("../helpers/fixtures");
    const { createService } = await import("@/lib/services/manage-services");
    const { findServiceForWebhook } = await import("@/lib/services/service-secrets");
    const { recordReview } = await import("@/lib/reviews/record-review");
    const { db } = await import("@/lib/db/client");
    const created = await createService({ slug: `restart-${randomUUID().slice(0, 8)}`, callbackUrl: `http://127.0.0.1:${port}/hook` }, "cli");
    const service = { ...created, auth: (await findServiceForWebhook(direct(), created.slug))! };
    const reviewer = await f.makeUser(["reviewer"]);
    const req = await f.makeApproval(service, { tool: "mail.send" });
    await recordReview(reviewer.id, { approvalId: req.approval_id, decision: "approve" });
    expect(await db().callbackDelivery.count({ where: { approvalId: req.approval_id, status: "pending" } })).toBe(1);
    await db().$disconnect();
    expect(received).toHaveLength(0);

    const free = await new Promise<number>((r) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => r(p));
      });
    });
    app = await startAppServer({ port: free, env: { ...secrets, DATABASE_URL: url, LOG_LEVEL: "error" } });
    await expect.poll(() => received.length, { timeout: 20_000, interval: 200 }).toBe(1);
    await new Promise((r) => setTimeout(r, 1500));
    expect(received).toHaveLength(1);

    const { verifyCallback } = await import("@countersign/client");
    const event = verifyCallback({
      secret: created.callback_secret,
      headers: { id: received[0]!.id, timestamp: received[0]!.headers.ts!, signature: received[0]!.headers.sig! },
      rawBody: Buffer.from(received[0]!.body),
    });
    expect(event.data).toMatchObject({ approval_id: req.approval_id, decision: "approved", decided_by: [reviewer.email] });
    expect(
      (await db().callbackDelivery.findUniqueOrThrow({ where: { approvalId_type: { approvalId: req.approval_id, type: "approval.decided" } } }))
        .status,
    ).toBe("delivered");
    await db().$disconnect();
  }, 120_000);
});
