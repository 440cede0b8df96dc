// @countersign/ai-sdk through the AI SDK's own generateText loop (a scripted
// MockLanguageModelV3 emits the tool calls; the SDK validates the input and
// runs the tool) against the live app, a reviewer deciding in between:
// approved → the body runs once with exactly the approved arguments and the
// model's next step sees its result; denied, timed out, aborted, replayed or
// Countersign unreachable → the body never runs and the model reads why.
import { fileURLToPath } from "node:url";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";
import { beforeAll, describe, expect, it } from "vitest";
import { ApprovalPort, argsDigest, CountersignClient, resultDigest, type PortDecision } from "@countersign/client";
import { withApproval, type WithApprovalOptions } from "@countersign/ai-sdk";
import { appFor } from "@/test/helpers/app";
import { linesNotInExample, readmeExcerpt } from "@/test/helpers/readme-excerpt";
import { freePort } from "@/test/helpers/ports";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A model that calls one tool, then answers in text once it has seen the result. */
function scriptedModel(toolCallId: string, toolName: string, input: Record<string, unknown>) {
  return new MockLanguageModelV3({
    doGenerate: [
      {
        content: [{ type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) }],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      },
      { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] },
    ],
  });
}

/** The tool result the SDK put into the model's second prompt. */
function toolResultSeenByModel(model: MockLanguageModelV3, toolCallId: string): unknown {
  const prompt = model.doGenerateCalls[1]?.prompt ?? [];
  for (const message of prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) if (part.type === "tool-result" && part.toolCallId === toolCallId) return part.output;
  }
  return undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("AI SDK integration (live, sqlite)", () => {
  const app = appFor("sqlite");
  let svc: { slug: string; webhook_secret: string; api_token: string };
  let reviewer: { id: string; email: string };
  let client: CountersignClient;
  let port: ApprovalPort;
  const bodyCalls: Array<Record<string, unknown>> = [];

  /** Decides the request of a run as a reviewer, as soon as it exists. */
  async function decideWhenRequested(runId: string, decision: "approve" | "deny", reason?: string, beforeDeciding?: () => void) {
    const { db } = await import("@/lib/db/client");
    const { recordReview } = await import("@/lib/reviews/record-review");
    const deadline = Date.now() + 20_000;
    for (;;) {
      const found = await db().approval.findFirst({ where: { runId } });
      if (found) {
        beforeDeciding?.();
        await recordReview(reviewer.id, { approvalId: found.id, decision, reason });
        return found;
      }
      if (Date.now() > deadline) throw new Error(`no request for ${runId}`);
      await sleep(50);
    }
  }

  async function stateOf(approvalId: string) {
    const r = await fetch(`${app!.baseUrl}/api/v1/approvals/${approvalId}`, { headers: { authorization: `Bearer ${svc.api_token}` } });
    return (await r.json()) as { status: string; consumed: boolean };
  }

  /** This service's client, pointed at a port nothing listens on. */
  async function unreachableClient() {
    const baseUrl = `http://127.0.0.1:${await freePort()}`;
    return new CountersignClient({ baseUrl, serviceSlug: svc.slug, webhookSecret: svc.webhook_secret, apiToken: svc.api_token, timeoutMs: 2000 });
  }

  function refundTool(runId: string, extra: Partial<WithApprovalOptions<{ paymentId: string; amountCents: number }>> = {}) {
    return withApproval(
      tool({
        description: "Refund a payment",
        inputSchema: z.object({ paymentId: z.string(), amountCents: z.number().int() }),
        execute: async (input) => {
          bodyCalls.push(input);
          return { refundId: `re_${bodyCalls.length}`, amountCents: input.amountCents };
        },
      }),
      { port, name: "payments.refund", runId, effects: "write", summary: (a) => `Refund ${a.amountCents} cents`, ...extra },
    );
  }

  beforeAll(async () => {
    if (!app) return;
    const f = await import("@/test/helpers/fixtures");
    svc = await f.makeService();
    reviewer = await f.makeUser(["reviewer"]);
    client = new CountersignClient({ baseUrl: app.baseUrl, serviceSlug: svc.slug, webhookSecret: svc.webhook_secret, apiToken: svc.api_token });
    port = new ApprovalPort(client, { timeoutMs: 20_000 });
  });

  const approvedRun = `run_${randomUUID()}`;
  const approvedCall = `call_${randomUUID()}`;

  it.runIf(app)("approved: the body runs once with exactly the approved arguments; the model sees its result", async () => {
    const before = bodyCalls.length;
    const decisions: PortDecision[] = [];
    const model = scriptedModel(approvedCall, "refund", { paymentId: "pay_1", amountCents: 4200 });
    const [result, request] = await Promise.all([
      generateText({
        model,
        tools: { refund: refundTool(approvedRun, { onDecision: (d) => decisions.push(d) }) },
        stopWhen: stepCountIs(3),
        prompt: "refund pay_1",
      }),
      decideWhenRequested(approvedRun, "approve", "ticket 1234"),
    ]);

    expect(bodyCalls.slice(before)).toEqual([{ paymentId: "pay_1", amountCents: 4200 }]);
    // The port's frozen copy, whose salted digest is the one Countersign approved and signed.
    const ran = bodyCalls[before]!;
    expect(Object.isFrozen(ran)).toBe(true);
    expect(decisions).toHaveLength(1);
    const decision = decisions[0]!;
    expect(decision).toMatchObject({ allowed: true, code: "approved", approvalId: request.id });
    expect(argsDigest(ran, request.argsSalt ?? undefined)).toBe(decision.receipt!.args_digest);
    expect(decision.receipt).toMatchObject({ run_id: approvedRun, call_id: approvedCall, tool: "payments.refund", decision: "approved" });

    expect(toolResultSeenByModel(model, approvedCall)).toEqual({ type: "json", value: { refundId: `re_${before + 1}`, amountCents: 4200 } });
    expect(result.text).toBe("done");
    expect(await stateOf(request.id)).toMatchObject({ status: "approved", consumed: true });
    // The run was reported before the model saw the output: succeeded, the salted digest of that output.
    expect((await client.getApproval(request.id)).execution).toMatchObject({
      status: "succeeded",
      result_digest: resultDigest({ refundId: `re_${before + 1}`, amountCents: 4200 }, request.argsSalt!),
    });
  });

  it.runIf(app)("approved, and the body throws: its error is passed on as it was, and the run is reported failed", async () => {
    class RefundFailed extends Error {}
    const failure = new RefundFailed("gateway said no to pay_7");
    const runId = `run_${randomUUID()}`;
    const failing = withApproval(
      tool({
        description: "Refund a payment",
        inputSchema: z.object({ paymentId: z.string() }),
        execute: async (): Promise<{ refundId: string }> => {
          throw failure;
        },
      }),
      { port, name: "payments.refund", runId },
    );
    const [outcome, request] = await Promise.all([
      Promise.resolve(failing.execute!({ paymentId: "pay_7" }, { toolCallId: "call_fail", messages: [] })).catch((error: unknown) => error),
      decideWhenRequested(runId, "approve"),
    ]);
    expect(outcome).toBe(failure);
    expect((await client.getApproval(request.id)).execution).toMatchObject({
      status: "failed",
      result_digest: resultDigest({ error: "RefundFailed" }, request.argsSalt!),
    });
  });

  it.runIf(app)("the same tool call id again after consumption: replayed, the body does not run again", async () => {
    const before = bodyCalls.length;
    const model = scriptedModel(approvedCall, "refund", { paymentId: "pay_1", amountCents: 4200 });
    await generateText({ model, tools: { refund: refundTool(approvedRun) }, stopWhen: stepCountIs(3), prompt: "refund pay_1 again" });
    expect(bodyCalls.length).toBe(before);
    expect(toolResultSeenByModel(model, approvedCall)).toEqual({
      type: "json",
      value: { approved: false, decision: "replayed", reason: expect.stringContaining("new call id"), approval_id: expect.any(String) },
    });
  });

  it.runIf(app)("denied: the body never runs and the model's next prompt carries the reviewer's reason", async () => {
    const before = bodyCalls.length;
    const runId = `run_${randomUUID()}`;
    const model = scriptedModel("call_deny", "refund", { paymentId: "pay_2", amountCents: 999_00 });
    const [result, request] = await Promise.all([
      generateText({ model, tools: { refund: refundTool(runId) }, stopWhen: stepCountIs(3), prompt: "refund pay_2" }),
      decideWhenRequested(runId, "deny", "wrong account"),
    ]);
    expect(bodyCalls.length).toBe(before);
    const seen = toolResultSeenByModel(model, "call_deny");
    expect(seen).toEqual({
      type: "json",
      value: { approved: false, decision: "denied", reason: expect.stringContaining("wrong account"), approval_id: request.id },
    });
    expect(result.steps[0]!.toolResults[0]!.output).toMatchObject({ approved: false, decision: "denied" });
    expect(await stateOf(request.id)).toMatchObject({ status: "denied", consumed: true });
  });

  it.runIf(app)("no decision in time: denied and the request withdrawn", async () => {
    const before = bodyCalls.length;
    const runId = `run_${randomUUID()}`;
    const model = scriptedModel("call_timeout", "refund", { paymentId: "pay_3", amountCents: 100 });
    await generateText({ model, tools: { refund: refundTool(runId, { timeoutMs: 1500 }) }, stopWhen: stepCountIs(3), prompt: "refund pay_3" });
    expect(bodyCalls.length).toBe(before);
    const seen = toolResultSeenByModel(model, "call_timeout") as { value: { decision: string; approval_id: string } };
    expect(seen.value).toMatchObject({ approved: false, decision: "timeout", reason: expect.stringContaining("withdrawn") });
    expect(await stateOf(seen.value.approval_id)).toMatchObject({ status: "cancelled", consumed: false });
  });

  it.runIf(app)("generateText aborted while waiting: the body never runs and the request is withdrawn", async () => {
    const before = bodyCalls.length;
    const decisions: PortDecision[] = [];
    const model = scriptedModel("call_abort", "refund", { paymentId: "pay_4", amountCents: 100 });
    const aborter = new AbortController();
    // Abort the moment Countersign has answered the request, i.e. while the call waits for reviewers.
    const abortingPort = new ApprovalPort(client, { timeoutMs: 20_000, onRequest: () => aborter.abort() });
    const refund = refundTool(`run_${randomUUID()}`, { port: abortingPort, onDecision: (d) => decisions.push(d) });
    // The SDK may end the run with its own abort error after the tool returned.
    await generateText({ model, tools: { refund }, stopWhen: stepCountIs(3), prompt: "refund pay_4", abortSignal: aborter.signal }).catch(
      () => undefined,
    );
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({ allowed: false, code: "aborted", approvalId: expect.any(String) });
    expect(bodyCalls.length).toBe(before);
    expect(await stateOf(decisions[0]!.approvalId!)).toMatchObject({ status: "cancelled", consumed: false });
  });

  it.runIf(app)("Countersign unreachable: denied, the body never runs", async () => {
    const before = bodyCalls.length;
    const nowhere = await unreachableClient();
    const model = scriptedModel("call_down", "refund", { paymentId: "pay_5", amountCents: 100 });
    const refund = refundTool(`run_${randomUUID()}`, { port: undefined, client: nowhere, timeoutMs: 3000 });
    await generateText({ model, tools: { refund }, stopWhen: stepCountIs(3), prompt: "refund pay_5" });
    expect(bodyCalls.length).toBe(before);
    expect(toolResultSeenByModel(model, "call_down")).toEqual({
      type: "json",
      value: { approved: false, decision: "network-error", reason: expect.stringContaining("denied") },
    });
  });

  it.runIf(app)("the body gets the approved copy even if the caller's input object changes while it waits", async () => {
    const before = bodyCalls.length;
    const runId = `run_${randomUUID()}`;
    const input = { paymentId: "pay_6", amountCents: 500 };
    const refund = refundTool(runId);
    const [output] = await Promise.all([
      refund.execute!(input, { toolCallId: "call_mutate", messages: [] }),
      decideWhenRequested(runId, "approve", undefined, () => (input.amountCents = 500_000)),
    ]);
    expect(bodyCalls.slice(before)).toEqual([{ paymentId: "pay_6", amountCents: 500 }]);
    expect(output).toEqual({ refundId: `re_${before + 1}`, amountCents: 500 });
  });

  it.runIf(app)("a tool with its own toModelOutput: its outputs use it, a denial reaches the model as JSON", async () => {
    const nowhere = await unreachableClient();
    const ran: unknown[] = [];
    const lookup = withApproval(
      tool<{ id: string }, { balance: number }>({
        inputSchema: z.object({ id: z.string() }),
        execute: async (input) => (ran.push(input), { balance: 5 }),
        toModelOutput: ({ output }) => ({ type: "text", value: `balance ${output.balance}` }),
      }),
      { client: nowhere, name: "ledger.lookup", runId: `run_${randomUUID()}` },
    );
    const model = scriptedModel("call_tmo", "lookup", { id: "a1" });
    await generateText({ model, tools: { lookup }, stopWhen: stepCountIs(3), prompt: "look up a1" });
    expect(ran).toEqual([]);
    expect(toolResultSeenByModel(model, "call_tmo")).toEqual({
      type: "json",
      value: { approved: false, decision: "network-error", reason: expect.any(String) },
    });
  });

  it.runIf(app)("a streaming execute (async generator) runs once when approved; its last output is the result", async () => {
    const runId = `run_${randomUUID()}`;
    const ran: unknown[] = [];
    const report = withApproval(
      tool({
        inputSchema: z.object({ month: z.string() }),
        async *execute(input) {
          ran.push(input);
          yield { status: "working" as const };
          yield { status: "done" as const, rows: 3 };
        },
      }),
      { port, name: "reports.export", runId },
    );
    const model = scriptedModel("call_stream", "report", { month: "2026-10" });
    await Promise.all([
      generateText({ model, tools: { report }, stopWhen: stepCountIs(3), prompt: "export October" }),
      decideWhenRequested(runId, "approve"),
    ]);
    expect(ran).toEqual([{ month: "2026-10" }]);
    expect(toolResultSeenByModel(model, "call_stream")).toEqual({ type: "json", value: { status: "done", rows: 3 } });
  });

  it.runIf(app)("without a tool call id (called outside the SDK's loop): denied before asking", async () => {
    const before = bodyCalls.length;
    const runId = `run_${randomUUID()}`;
    const output = await refundTool(runId).execute!({ paymentId: "pay_8", amountCents: 1 }, { toolCallId: "", messages: [] });
    expect(output).toMatchObject({ approved: false, decision: "missing-call-id" });
    expect(bodyCalls.length).toBe(before);
    const { db } = await import("@/lib/db/client");
    expect(await db().approval.findFirst({ where: { runId } })).toBeNull();
  });

  it.runIf(app)("the README example runs as written", async () => {
    const example = readFileSync(new URL("../examples/refund-agent.ts", import.meta.url), "utf8").trim();
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    expect(readme).toContain(example);
    expect(
      linesNotInExample(readmeExcerpt("(packages/ai-sdk/README.md)", "ts", fileURLToPath(new URL("../../..", import.meta.url))), example),
    ).toEqual([]);

    Object.assign(process.env, {
      COUNTERSIGN_URL: app!.baseUrl,
      COUNTERSIGN_SLUG: svc.slug,
      COUNTERSIGN_WEBHOOK_SECRET: svc.webhook_secret,
      COUNTERSIGN_API_TOKEN: svc.api_token,
    });
    const { runRefundAgent } = await import("../examples/refund-agent.js");
    const { refunds } = await import("../examples/payments.js");
    const runId = `run_${randomUUID()}`;
    const model = scriptedModel("call_readme", "refund", { paymentId: "pay_7", amountCents: 1250 });
    const [result] = await Promise.all([runRefundAgent(model, runId, "refund pay_7"), decideWhenRequested(runId, "approve")]);
    expect(refunds).toEqual([{ paymentId: "pay_7", amountCents: 1250 }]);
    expect(result.steps[0]!.toolResults[0]!.output).toEqual({ refundId: "re_1", paymentId: "pay_7", amountCents: 1250 });
    expect(result.text).toBe("done");
  });
});
