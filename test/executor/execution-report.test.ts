// Execution reports from the TypeScript side against the live app: an
// approved call run through the port (port.run) or through an integration
// (@countersign/ai-sdk's withApproval) ends with the report recorded on the
// server (the state answer's `execution`, with the status and the salted
// digest the port computed), and with a signed approval.executed callback
// that verifyCallback accepts; a thrown tool error is reported as failed; a
// second report, and a report of a denied call, are refused by the server and
// never thrown into the agent's path.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";

type Client = typeof import("@countersign/client");

describe("execution reports from the TypeScript client (live, sqlite)", () => {
  const app = appFor("sqlite");
  let client: Client;
  let countersign: InstanceType<Client["CountersignClient"]>;
  let recordReview: typeof import("@/lib/reviews/record-review").recordReview;
  let reviewer: { id: string; email: string };
  let svc: { slug: string; api_token: string; webhook_secret: string; callback_secret: string };
  let receiver: Server;
  const callbacks: Array<{ headers: IncomingMessage["headers"]; body: string }> = [];

  beforeAll(async () => {
    if (!app) return;
    const f = await import("../helpers/fixtures");
    ({ recordReview } = await import("@/lib/reviews/record-review"));
    client = await import("@countersign/client");
    receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        callbacks.push({ headers: req.headers, body });
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
    const { createService } = await import("@/lib/services/manage-services");
    svc = await createService(
      { slug: `ran-${f.uid()}`, callbackUrl: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook` },
      "cli",
    );
    reviewer = await f.makeUser(["reviewer"]);
    countersign = new client.CountersignClient({
      baseUrl: app.baseUrl,
      serviceSlug: svc.slug,
      webhookSecret: svc.webhook_secret,
      apiToken: svc.api_token,
    });
  });
  afterAll(async () => {
    if (receiver) await new Promise<void>((r) => receiver.close(() => r()));
  });

  /** A port whose requests the reviewer approves (or denies) as they arrive. */
  function port(vote: "approve" | "deny" = "approve", options: { onReportError?: (error: unknown) => void } = {}) {
    return new client.ApprovalPort(countersign, {
      timeoutMs: 20_000,
      onRequest: (created) => void recordReview(reviewer.id, { approvalId: created.approval_id, decision: vote, reason: "checked" }),
      ...options,
    });
  }
  const call = (args: Record<string, unknown> = { order: "A-1", amount: 12.5 }) => ({
    run_id: `run-${randomUUID()}`,
    call_id: "c1",
    tool: "payments.refund",
    arguments: args,
  });
  const isoTime = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  /** The approval.executed callback of one request, once delivered, verified as a receiver would. */
  async function executedCallbackFor(approvalId: string) {
    const mine = () => callbacks.find((c) => c.body.includes(approvalId) && c.body.includes('"approval.executed"'));
    await expect.poll(() => mine() !== undefined, { timeout: 20_000, interval: 200 }).toBe(true);
    const hit = mine()!;
    return client.verifyCallback({ secret: svc.callback_secret, headers: hit.headers, rawBody: Buffer.from(hit.body) });
  }

  it.runIf(app)("port.run: the approved call runs, and the server records it as succeeded with the port's digest", async () => {
    const ran = await port().run(call(), async (args) => ({ refunded: args.amount, ref: "re_1" }));
    expect(ran).toMatchObject({ allowed: true, result: { refunded: 12.5, ref: "re_1" } });
    if (!ran.allowed) throw new Error("unreachable");
    const approvalId = ran.decision.approvalId!;
    const digest = client.resultDigest({ refunded: 12.5, ref: "re_1" }, ran.decision.argsSalt!);

    const state = await countersign.getApproval(approvalId);
    expect(state.execution).toEqual({ status: "succeeded", result_digest: digest, finished_at: isoTime, reported_at: isoTime });
    expect(ran.execution).toEqual({ approval_id: approvalId, ...state.execution });

    const event = await executedCallbackFor(approvalId);
    expect(event.type).toBe("approval.executed");
    if (event.type !== "approval.executed") throw new Error("unreachable");
    expect(event.data).toMatchObject({
      approval_id: approvalId,
      run_id: ran.decision.receipt.run_id,
      call_id: "c1",
      tool: "payments.refund",
      args_digest: ran.decision.receipt.args_digest,
      status: "succeeded",
      result_digest: digest,
      finished_at: state.execution!.finished_at,
    });
  });

  it.runIf(app)(
    "port.run: a tool that throws is recorded as failed with the digest of its class name, and its error reaches the caller",
    async () => {
      class RefundRefused extends Error {}
      let approved: import("@countersign/client").ApprovedPortDecision | undefined;
      const refused = new RefundRefused("card 4111 refused");
      await expect(
        port().run(call(), (_args, decision) => {
          approved = decision;
          throw refused;
        }),
      ).rejects.toBe(refused);
      const state = await countersign.getApproval(approved!.approvalId!);
      expect(state.execution).toMatchObject({
        status: "failed",
        result_digest: client.resultDigest({ error: "RefundRefused" }, approved!.argsSalt!),
      });
    },
  );

  it.runIf(app)("the server's refusals go to onReportError: a second report, and a denied call's (the client maps their codes)", async () => {
    const errors: unknown[] = [];
    const p = port("approve", { onReportError: (error) => errors.push(error) });
    const ran = await p.run(call(), () => "ok");
    if (!ran.allowed) throw new Error("not approved");
    expect(await p.reportExecution(ran.decision, { status: "failed", error: new Error("late") })).toBeUndefined();
    expect(errors).toEqual([expect.objectContaining({ code: "already-reported", status: 409 })]);
    expect((await countersign.getApproval(ran.decision.approvalId!)).execution?.status).toBe("succeeded");

    const denied = await port("deny").run(call(), () => "never");
    expect(denied).toMatchObject({ allowed: false, decision: { code: "denied" } });
    const report = {
      status: "succeeded" as const,
      result_digest: client.resultDigest(null, client.newArgsSalt()),
      finished_at: new Date().toISOString(),
    };
    await expect(countersign.reportExecution(denied.decision.approvalId!, report)).rejects.toMatchObject({ code: "not-consumed", status: 409 });
    expect((await countersign.getApproval(denied.decision.approvalId!)).execution).toBeNull();
  });

  it.runIf(app)("@countersign/ai-sdk: an approved tool call is reported with the digest of its output", async () => {
    const { tool } = await import("ai");
    const { z } = await import("zod");
    const { withApproval } = await import("@countersign/ai-sdk");
    const decisions: import("@countersign/client").PortDecision[] = [];
    const refund = withApproval(
      tool({
        description: "Refund a payment",
        inputSchema: z.object({ paymentId: z.string(), amountCents: z.number().int() }),
        execute: async (input) => ({ refundId: "re_9", amountCents: input.amountCents }),
      }),
      { port: port(), name: "payments.refund", runId: `run-${randomUUID()}`, onDecision: (d) => decisions.push(d) },
    );
    const output = await refund.execute!({ paymentId: "pay_9", amountCents: 900 }, { toolCallId: "call_9", messages: [] });
    expect(output).toEqual({ refundId: "re_9", amountCents: 900 });
    const [decision] = decisions;
    if (!decision?.allowed) throw new Error("not approved");
    expect((await countersign.getApproval(decision.approvalId!)).execution).toEqual({
      status: "succeeded",
      result_digest: client.resultDigest({ refundId: "re_9", amountCents: 900 }, decision.argsSalt!),
      finished_at: isoTime,
      reported_at: isoTime,
    });
  });
});
