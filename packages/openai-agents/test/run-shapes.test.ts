// @countersign/openai-agents in the other shapes an SDK run takes, against the
// live app: two tool calls in one model turn are decided one by one, each by
// its own call id (the run id taken from the SDK's run context); a run aborted
// while waiting, or a tool whose own SDK timeout fires, withdraws the request
// and runs nothing; a streamed run goes through the same gate.
import { randomUUID } from "node:crypto";
import { describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  // Before the SDK loads: no trace exporter trying to reach OpenAI.
  process.env.OPENAI_AGENTS_DISABLE_TRACING = "1";
});

import { Agent, run } from "@openai/agents";
import { ScriptedModel, assistantMessage, functionCall, modelResponder } from "@openai/agents/testing";
import { z } from "zod";
import { ApprovalPort, CountersignClient, type RequestedApproval } from "@countersign/client";
import { withApproval, type RunIdContext } from "@countersign/openai-agents";
import { appFor } from "../../../test/helpers/app";

type AppContext = { sessionRunId: string };
type ToolResult = { callId: string; output: { type: string; text: string } };

async function setUp(baseUrl: string) {
  const f = await import("../../../test/helpers/fixtures");
  const { recordReview } = await import("@/lib/reviews/record-review");
  const svc = await f.makeService();
  const reviewer = await f.makeUser(["reviewer"]);
  const client = new CountersignClient({ baseUrl, serviceSlug: svc.slug, webhookSecret: svc.webhook_secret, apiToken: svc.api_token });
  const decide = (approvalId: string, decision: "approve" | "deny") =>
    recordReview(reviewer.id, { approvalId, decision, reason: decision === "deny" ? "not this one" : "ok" });
  return { client, decide };
}

/** The refund tool, gated by `port`, recording what its body received. */
function refundTool(port: ApprovalPort, runId: string | ((call: RunIdContext<AppContext>) => string), toolTimeoutMs?: number) {
  const executed: Array<{ orderId: string; amount: number }> = [];
  const refund = withApproval(
    {
      name: "refund",
      description: "Refund part of an order",
      parameters: z.object({ orderId: z.string(), amount: z.number() }),
      execute: async (input: { orderId: string; amount: number }) => {
        executed.push(input);
        return `refunded ${input.amount} on ${input.orderId}`;
      },
      ...(toolTimeoutMs ? { timeoutMs: toolTimeoutMs } : {}),
    },
    { port, name: "payments.refund", runId, effects: "write" },
  );
  return { refund, executed };
}

/** A model that makes `calls` in one turn, then records the tool results it is shown and stops. */
function scripted(calls: ReturnType<typeof functionCall>[]) {
  const seen: ToolResult[] = [];
  const model = new ScriptedModel([
    calls,
    modelResponder((call) => {
      const input = Array.isArray(call.request.input) ? call.request.input : [];
      seen.push(...(input.filter((item) => item.type === "function_call_result") as unknown as ToolResult[]));
      return [assistantMessage("done")];
    }),
  ]);
  return { model, seen };
}

describe("OpenAI Agents SDK wrapper: run shapes (live, sqlite)", () => {
  const app = appFor("sqlite");

  it.runIf(app)("decides two calls of one turn separately, each bound to its call id", async () => {
    const { client, decide } = await setUp(app!.baseUrl);
    const reviews: Promise<{ run_id: string }>[] = [];
    const port = new ApprovalPort(client, {
      onRequest: (created) => {
        // The reviewer approves the call for order p-1 and denies the other one.
        reviews.push(
          client.getApproval(created.approval_id).then(async (s) => {
            await decide(s.approval_id, s.call_id === "call_p1" ? "approve" : "deny");
            return s;
          }),
        );
      },
    });
    // The run id comes from the SDK's run context, per call.
    const { refund, executed } = refundTool(port, ({ context }) => context!.context.sessionRunId);
    const sessionRunId = `run-${randomUUID()}`;
    const { model, seen } = scripted([
      functionCall("refund", { orderId: "p-1", amount: 1 }, { callId: "call_p1" }),
      functionCall("refund", { orderId: "p-2", amount: 2 }, { callId: "call_p2" }),
    ]);
    const agent = new Agent<AppContext>({ name: "Support", instructions: "Refund.", model, tools: [refund] });
    await run(agent, "Refund p-1 and p-2", { context: { sessionRunId } });
    const states = await Promise.all(reviews);
    expect(states.map((s) => s.run_id)).toEqual([sessionRunId, sessionRunId]);

    expect(executed).toEqual([{ orderId: "p-1", amount: 1 }]);
    const byCall = Object.fromEntries(seen.map((r) => [r.callId, r.output.text]));
    expect(byCall.call_p1).toBe("refunded 1 on p-1");
    expect(JSON.parse(byCall.call_p2!)).toMatchObject({ approved: false, decision: "denied", reason: expect.stringContaining("not this one") });
  });

  it.runIf(app)("withdraws the request and runs nothing when the run is aborted while waiting", async () => {
    const { client } = await setUp(app!.baseUrl);
    const controller = new AbortController();
    const asked: RequestedApproval[] = [];
    const port = new ApprovalPort(client, {
      onRequest: (created) => {
        asked.push(created);
        setTimeout(() => controller.abort(), 200);
      },
    });
    const { refund, executed } = refundTool(port, `run-${randomUUID()}`);
    const { model } = scripted([functionCall("refund", { orderId: "a-1", amount: 9 }, { callId: "call_abort" })]);
    const agent = new Agent({ name: "Support", instructions: "Refund.", model, tools: [refund] });
    await run(agent, "Refund a-1", { signal: controller.signal }).catch(() => undefined);

    expect(executed).toEqual([]);
    expect(asked).toHaveLength(1);
    // The withdrawal is the port's last step; allow it a moment to land.
    await expect.poll(() => client.getApproval(asked[0]!.approval_id).then((s) => s.status), { timeout: 5000 }).toBe("cancelled");
  });

  it.runIf(app)("treats the SDK tool's own timeout as covering the wait: withdrawn, nothing runs", async () => {
    const { client } = await setUp(app!.baseUrl);
    const asked: RequestedApproval[] = [];
    const port = new ApprovalPort(client, { onRequest: (created) => asked.push(created) });
    const { refund, executed } = refundTool(port, `run-${randomUUID()}`, 1000);
    const { model, seen } = scripted([functionCall("refund", { orderId: "t-1", amount: 5 }, { callId: "call_tool_timeout" })]);
    await run(new Agent({ name: "Support", instructions: "Refund.", model, tools: [refund] }), "Refund t-1");

    expect(executed).toEqual([]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.output.text).toMatch(/timed out/i);
    await expect.poll(() => client.getApproval(asked[0]!.approval_id).then((s) => s.status), { timeout: 5000 }).toBe("cancelled");
  });

  it.runIf(app)("gates a streamed run the same way", async () => {
    const { client, decide } = await setUp(app!.baseUrl);
    const reviews: Promise<unknown>[] = [];
    const port = new ApprovalPort(client, { onRequest: (created) => reviews.push(decide(created.approval_id, "approve")) });
    const { refund, executed } = refundTool(port, `run-${randomUUID()}`);
    const { model, seen } = scripted([functionCall("refund", { orderId: "s-1", amount: 4 }, { callId: "call_stream" })]);
    const result = await run(new Agent({ name: "Support", instructions: "Refund.", model, tools: [refund] }), "Refund s-1", { stream: true });
    for await (const event of result) void event;
    await result.completed;
    await Promise.all(reviews);

    expect(executed).toEqual([{ orderId: "s-1", amount: 4 }]);
    expect(seen.map((r) => r.output.text)).toEqual(["refunded 4 on s-1"]);
    expect(result.finalOutput).toBe("done");
  });
});
