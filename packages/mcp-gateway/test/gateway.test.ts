// The gateway with real parts on both sides: the official SDK Client asks the
// gateway, the gateway asks the live Countersign through the ApprovalPort and
// fronts a real SDK server, spawned over stdio or served over Streamable HTTP.
// A reviewer decides through the app's own review function. Proves: approved
// → the tool runs once with exactly the approved arguments, and the run is
// reported (the server records succeeded or failed with the digest of the
// result's content, or of the error's class name when the call threw);
// denied, timed out, cancelled or Countersign unreachable → an error result,
// the tool never runs and nothing is reported; read-only and unmarked tools
// pass straight through.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultDigest, type CountersignClient } from "@countersign/client";
import { connectDownstream } from "@countersign/mcp-gateway";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { appFor } from "@/test/helpers/app";
import { freePort } from "@/test/helpers/ports";
import type { Invocation } from "./fixtures/downstream";
import { startHttpDownstream } from "./fixtures/http-downstream";
import { clientThroughGateway, countersignClient, invocationsIn, sleep, textOf, type Harness, type ServiceSecrets } from "./harness";

const TSX = join(process.cwd(), "node_modules/tsx/dist/cli.mjs");
const STDIO_DOWNSTREAM = join(process.cwd(), "packages/mcp-gateway/test/fixtures/stdio-downstream.ts");

describe("MCP gateway (live, sqlite)", () => {
  const app = appFor("sqlite");
  let svc: ServiceSecrets;
  let countersign: CountersignClient;
  let decide: (approvalId: string, decision: "approve" | "deny", reason: string) => Promise<void>;
  let reviewerEmail: string;
  const close: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    if (!app) return;
    const f = await import("@/test/helpers/fixtures");
    const { recordReview } = await import("@/lib/reviews/record-review");
    svc = await f.makeService();
    const reviewer = await f.makeUser(["reviewer"]);
    reviewerEmail = reviewer.email;
    decide = async (approvalId, decision, reason) => void (await recordReview(reviewer.id, { approvalId, decision, reason }));
    countersign = countersignClient(app.baseUrl, svc);
  });

  afterAll(async () => {
    for (const c of close.reverse()) await c();
  });

  const statusOf = async (approvalId: string) => (await countersign.getApproval(approvalId)).status;

  /** The one report the gateway made: what the server recorded for it, and the digest the port salted. */
  async function reportedRun(h: Harness) {
    expect(h.reports).toHaveLength(1);
    const { decision } = h.reports[0]!;
    if (!decision.allowed || !decision.argsSalt) throw new Error("the report is not of an approved call");
    const { execution } = await countersign.getApproval(decision.approvalId!);
    return { execution, digestOf: (value: unknown) => resultDigest(value, decision.argsSalt!) };
  }

  describe("downstream over stdio", () => {
    const logFile = join(mkdtempSync(join(tmpdir(), "mcp-gw-")), "downstream.jsonl");
    let downstream: Client;
    beforeAll(async () => {
      if (!app) return;
      downstream = await connectDownstream({ command: process.execPath, args: [TSX, STDIO_DOWNSTREAM] }, { ...process.env, DOWNSTREAM_LOG: logFile });
      close.push(() => downstream.close());
    });

    it.runIf(app)("passes tools/list, resources and prompts through unchanged", async () => {
      const h = await clientThroughGateway({ downstream, countersign });
      expect(await h.client.listTools()).toEqual(await downstream.listTools());
      expect(await h.client.listResources()).toEqual(await downstream.listResources());
      expect(await h.client.readResource({ uri: "orders://recent" })).toEqual(await downstream.readResource({ uri: "orders://recent" }));
      expect(await h.client.getPrompt({ name: "refund-policy" })).toEqual(await downstream.getPrompt({ name: "refund-policy" }));
      expect(h.requested).toEqual([]);
      await h.close();
    });

    it.runIf(app)("approved: progress while waiting, then the tool runs once with exactly the approved arguments", async () => {
      const args = { order: "A-1001", amount: 25, note: "customer called" };
      const h = await clientThroughGateway({
        downstream,
        countersign,
        onRequest: async (id) => {
          await sleep(1200); // long enough for several progress notifications
          await decide(id, "approve", "ticket 77");
        },
      });
      const progress: Array<{ progress: number; message?: string }> = [];
      const result = await h.client.callTool({ name: "payments.refund", arguments: args }, undefined, { onprogress: (p) => progress.push(p) });
      await h.settled();

      expect(textOf(result), h.logs.join("\n")).toBe("refunded 25 on A-1001");
      expect(result.isError).toBeFalsy();
      expect(invocationsIn(logFile).filter((i) => i.tool === "payments.refund")).toEqual([{ tool: "payments.refund", args }]);
      expect(h.requested).toHaveLength(1);
      const id = h.requested[0]!;
      expect(result._meta).toMatchObject({ "countersign/approval_id": id });
      expect(await countersign.getApproval(id)).toMatchObject({ status: "approved", consumed: true, tool: "payments.refund", run_id: h.runId });
      // Reported once, before the client got the result: succeeded, digest of the content it got.
      const { execution, digestOf } = await reportedRun(h);
      expect(execution).toEqual({
        status: "succeeded",
        result_digest: digestOf(result.content),
        finished_at: expect.any(String),
        reported_at: expect.any(String),
      });
      expect(h.logs.join("\n")).toContain(`payments.refund: succeeded, reported (${id})`);

      expect(progress.length).toBeGreaterThanOrEqual(2);
      expect(progress[0]!.message).toMatch(/^Waiting for approval in Countersign/);
      for (let i = 1; i < progress.length; i++) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
      // The gateway's log names tools and ids, never argument values.
      expect(h.logs.join("\n")).not.toMatch(/A-1001|customer called/);
      await h.close();
    });

    it.runIf(app)("denied: an error result with the reviewer's reason, and the tool never runs", async () => {
      const h = await clientThroughGateway({ downstream, countersign, onRequest: (id) => decide(id, "deny", "wrong recipient") });
      const result = await h.client.callTool({ name: "email.send", arguments: { to: "ceo@example.com", subject: "hi" } });
      await h.settled();

      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('Countersign denied this call: wrong recipient. The tool "email.send" was not run.');
      expect(result._meta).toMatchObject({ "countersign/verdict": { code: "denied", approval_id: h.requested[0] } });
      expect(invocationsIn(logFile).filter((i) => i.tool === "email.send")).toEqual([]);
      expect(await countersign.getApproval(h.requested[0]!)).toMatchObject({ status: "denied", decided_by: [reviewerEmail], execution: null });
      expect(h.reports).toEqual([]);
      await h.close();
    });

    it.runIf(app)("a read-only tool passes straight through without a request", async () => {
      const h = await clientThroughGateway({ downstream, countersign });
      const result = await h.client.callTool({ name: "orders.lookup", arguments: { order: "A-7" } });
      expect(textOf(result)).toBe("order A-7: shipped");
      expect(h.requested).toEqual([]);
      expect(invocationsIn(logFile).filter((i) => i.tool === "orders.lookup")).toEqual([{ tool: "orders.lookup", args: { order: "A-7" } }]);
      await h.close();
    });

    it.runIf(app)("client cancellation withdraws the request, and the tool never runs", async () => {
      const abort = new AbortController();
      const h = await clientThroughGateway({ downstream, countersign, onRequest: () => void setTimeout(() => abort.abort(), 300) });
      const call = h.client.callTool({ name: "payments.refund", arguments: { order: "C-1", amount: 9 } }, undefined, { signal: abort.signal });
      await expect(call).rejects.toThrow();
      const id = h.requested[0]!;
      const deadline = Date.now() + 10_000;
      while ((await statusOf(id)) !== "cancelled" && Date.now() < deadline) await sleep(100);
      expect(await statusOf(id)).toBe("cancelled");
      expect(invocationsIn(logFile).filter((i) => i.args.order === "C-1")).toEqual([]);
      await h.close();
    });
  });

  describe("downstream over Streamable HTTP", () => {
    const invoked: Invocation[] = [];
    let downstream: Client;
    beforeAll(async () => {
      if (!app) return;
      const http = await startHttpDownstream((call) => invoked.push(call));
      downstream = await connectDownstream({ url: http.url });
      close.push(http.close, () => downstream.close());
    });

    it.runIf(app)("approved: the tool runs once with exactly the approved arguments", async () => {
      const args = { order: "H-1", amount: 12.5, lines: [{ sku: "X", qty: 2 }] };
      const h = await clientThroughGateway({ downstream, countersign, onRequest: (id) => decide(id, "approve", "ok") });
      const result = await h.client.callTool({ name: "payments.refund", arguments: args });
      await h.settled();
      expect(textOf(result), h.logs.join("\n")).toBe("refunded 12.5 on H-1");
      expect(result.isError).toBeFalsy();
      expect(invoked.filter((i) => i.args.order === "H-1")).toEqual([{ tool: "payments.refund", args }]);
      const { execution, digestOf } = await reportedRun(h);
      expect(execution).toMatchObject({ status: "succeeded", result_digest: digestOf(result.content) });
      await h.close();
    });

    it.runIf(app)("approved, and the downstream answers isError: the client gets that result as it was, reported failed", async () => {
      const h = await clientThroughGateway({ downstream, countersign, onRequest: (id) => decide(id, "approve", "ok") });
      const result = await h.client.callTool({ name: "payments.refund", arguments: { order: "E-1", amount: -5 } });
      await h.settled();
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe("cannot refund -5 on E-1");
      expect(result._meta).toMatchObject({ "countersign/approval_id": h.requested[0] });
      const { execution, digestOf } = await reportedRun(h);
      expect(execution).toMatchObject({ status: "failed", result_digest: digestOf(result.content) });
      await h.close();
    });

    it.runIf(app)("approved, and the forwarded call throws (the downstream took too long): reported failed with the error's class name", async () => {
      const h = await clientThroughGateway({ downstream, countersign, toolTimeoutMs: 300, onRequest: (id) => decide(id, "approve", "ok") });
      await expect(h.client.callTool({ name: "payments.refund", arguments: { order: "S-1", amount: 0 } })).rejects.toThrow(/timed out/i);
      await h.settled();
      const { execution, digestOf } = await reportedRun(h);
      expect(execution).toMatchObject({ status: "failed", result_digest: digestOf({ error: "McpError" }) });
      await h.close();
    });

    it.runIf(app)("globs: --approve marks exactly the matching tools, --allow lets a tool through", async () => {
      // approve orders.*: the read-only lookup now needs approval (denied here); the refund passes straight through.
      const a = await clientThroughGateway({
        downstream,
        countersign,
        marks: { approve: ["orders.*"] },
        onRequest: (id) => decide(id, "deny", "no lookups"),
      });
      const lookup = await a.client.callTool({ name: "orders.lookup", arguments: { order: "G-1" } });
      await a.settled();
      expect(lookup.isError).toBe(true);
      expect(textOf(lookup)).toContain("no lookups");
      const refund = await a.client.callTool({ name: "payments.refund", arguments: { order: "G-2", amount: 1 } });
      expect(textOf(refund)).toBe("refunded 1 on G-2");
      expect(a.requested).toHaveLength(1);
      await a.close();

      // allow email.*: the default still marks the refund, but the email goes straight through.
      const b = await clientThroughGateway({
        downstream,
        countersign,
        marks: { allow: ["email.*"] },
        onRequest: (id) => decide(id, "deny", "not now"),
      });
      expect(textOf(await b.client.callTool({ name: "email.send", arguments: { to: "G-3", subject: "s" } }))).toBe("sent to G-3");
      expect((await b.client.callTool({ name: "payments.refund", arguments: { order: "G-4", amount: 1 } })).isError).toBe(true);
      await b.settled();
      expect(b.requested).toHaveLength(1);
      await b.close();

      expect(invoked.filter((i) => String(i.args.order ?? i.args.to).startsWith("G-")).map((i) => i.tool)).toEqual(["payments.refund", "email.send"]);
    });

    it.runIf(app)("Countersign unreachable: an error result, and the tool never runs", async () => {
      const closed = countersignClient(`http://127.0.0.1:${await freePort()}`, svc);
      const h = await clientThroughGateway({ downstream, countersign: closed });
      const result = await h.client.callTool({ name: "payments.refund", arguments: { order: "U-1", amount: 3 } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Countersign did not approve this call \(.+\): approval failed, so the call is denied/);
      expect(invoked.filter((i) => i.args.order === "U-1")).toEqual([]);
      await h.close();
    });

    it.runIf(app)("no decision in time: the request is withdrawn and the tool never runs", async () => {
      const h = await clientThroughGateway({ downstream, countersign, timeoutMs: 1500 });
      const result = await h.client.callTool({ name: "payments.refund", arguments: { order: "T-1", amount: 4 } });
      expect(result.isError).toBe(true);
      expect(result._meta).toMatchObject({ "countersign/verdict": { code: "timeout" } });
      expect(await statusOf(h.requested[0]!)).toBe("cancelled");
      expect(invoked.filter((i) => i.args.order === "T-1")).toEqual([]);
      await h.close();
    });
  });
});
