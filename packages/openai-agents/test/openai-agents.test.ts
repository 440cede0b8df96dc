// @countersign/openai-agents through the OpenAI Agents SDK's own runner and its
// scripted test model, against the live app: approved → the body runs once with
// exactly the approved arguments and the model reads its output; denied,
// timed out, unreachable, replayed → the body never runs and the model reads
// the denial. Reviewers decide through the app's own review function.
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  // Before the SDK loads: no trace exporter trying to reach OpenAI.
  process.env.OPENAI_AGENTS_DISABLE_TRACING = "1";
});

import { Agent, run, tool } from "@openai/agents";
import { ScriptedModel, assistantMessage, functionCall, modelResponder } from "@openai/agents/testing";
import { z } from "zod";
import { ApprovalPort, CountersignClient, argsDigest, resultDigest, type RequestedApproval } from "@countersign/client";
import { isApprovalDenied, withApproval } from "@countersign/openai-agents";
import { appFor } from "../../../test/helpers/app";
import { linesNotInExample, readmeExcerpt } from "../../../test/helpers/readme-excerpt";
import { freePort } from "../../../test/helpers/ports";

type Service = { slug: string; webhook_secret: string; api_token: string };
type ToolResult = { callId: string; output: { type: string; text: string } };

function clientFor(baseUrl: string, svc: Service) {
  return new CountersignClient({ baseUrl, serviceSlug: svc.slug, webhookSecret: svc.webhook_secret, apiToken: svc.api_token });
}

type Form = "tool options" | "FunctionTool";

/** One agent run: the model calls `refund` with `args` under `callId`, then reads the tool's result. */
async function runRefundAgent(o: {
  form: Form;
  port: ApprovalPort;
  runId: string;
  callId: string;
  args: Record<string, unknown>;
  timeoutMs?: number;
}) {
  const executed: unknown[] = [];
  const definition = {
    name: "refund",
    description: "Refund part of an order",
    parameters: z.object({ orderId: z.string(), amount: z.number() }),
    execute: async (input: { orderId: string; amount: number }) => {
      executed.push(input);
      return { refunded: input.amount, orderId: input.orderId };
    },
  };
  const approval = {
    port: o.port,
    name: "payments.refund",
    runId: o.runId,
    effects: "write",
    summary: () => "Refund an order",
    timeoutMs: o.timeoutMs,
  } as const;
  const refund = o.form === "tool options" ? withApproval(definition, approval) : withApproval(tool(definition), approval);
  const seen: ToolResult[] = [];
  const model = new ScriptedModel([
    [functionCall("refund", o.args, { callId: o.callId })],
    modelResponder((call) => {
      const input = Array.isArray(call.request.input) ? call.request.input : [];
      seen.push(...(input.filter((item) => item.type === "function_call_result") as unknown as ToolResult[]));
      return [assistantMessage("done")];
    }),
  ]);
  const agent = new Agent({ name: "Support", instructions: "Refund orders when asked.", model, tools: [refund] });
  const result = await run(agent, "Please refund order o-1");
  model.assertComplete();
  expect(seen).toHaveLength(1);
  expect(seen[0]!.callId).toBe(o.callId);
  return { executed, output: JSON.parse(seen[0]!.output.text) as unknown, finalOutput: result.finalOutput };
}

describe("OpenAI Agents SDK wrapper (live, sqlite)", () => {
  const app = appFor("sqlite");

  it.runIf(app).each<Form>(["tool options", "FunctionTool"])(
    "%s: runs the body once with the approved arguments, and never otherwise",
    async (form) => {
      const f = await import("../../../test/helpers/fixtures");
      const { recordReview } = await import("@/lib/reviews/record-review");
      const svc = await f.makeService();
      const reviewer = await f.makeUser(["reviewer"]);
      const client = clientFor(app!.baseUrl, svc);
      const runId = `run-${randomUUID()}`;
      const reviews: Promise<unknown>[] = [];
      const portDeciding = (decide: ((approvalId: string) => Promise<unknown>) | null, seen: RequestedApproval[] = []) =>
        new ApprovalPort(client, {
          onRequest: (created) => {
            seen.push(created);
            if (decide) reviews.push(decide(created.approval_id));
          },
        });

      // Approved: once, with exactly the arguments whose digest Countersign approved and consumed.
      const asked: RequestedApproval[] = [];
      const approve = (approvalId: string) => recordReview(reviewer.id, { approvalId, decision: "approve", reason: "ticket 1234" });
      const args = { orderId: "o-1", amount: 42 };
      const approved = await runRefundAgent({ form, port: portDeciding(approve, asked), runId, callId: "call_approve", args });
      expect(approved.executed).toEqual([args]);
      // Built from tool options, execute gets the port's frozen copy itself, not a re-parse.
      expect(Object.isFrozen(approved.executed[0])).toBe(form === "tool options");
      expect(approved.output).toEqual({ refunded: 42, orderId: "o-1" });
      expect(approved.finalOutput).toBe("done");
      expect(asked).toHaveLength(1);
      const state = await client.getApproval(asked[0]!.approval_id);
      expect(state).toMatchObject({ status: "approved", consumed: true, run_id: runId, call_id: "call_approve", tool: "payments.refund" });
      expect(argsDigest(approved.executed[0] as Record<string, unknown>, asked[0]!.args_salt)).toBe(state.args_digest);
      // The run was reported: succeeded, with the salted digest of what the body returned.
      expect(state.execution).toMatchObject({
        status: "succeeded",
        result_digest: resultDigest({ refunded: 42, orderId: "o-1" }, asked[0]!.args_salt),
      });

      // The same call id again after consumption: replayed, the body does not run.
      const replayAsked: RequestedApproval[] = [];
      const replay = await runRefundAgent({ form, port: portDeciding(null, replayAsked), runId, callId: "call_approve", args });
      expect(replay.executed).toEqual([]);
      expect(replayAsked.map((c) => c.approval_id)).toEqual([asked[0]!.approval_id]);
      expect(replay.output).toMatchObject({ approved: false, decision: "replayed", approval_id: asked[0]!.approval_id });
      expect(isApprovalDenied(replay.output)).toBe(true);

      // Denied: the body never runs; the model reads the reviewer's reason.
      const deny = (approvalId: string) => recordReview(reviewer.id, { approvalId, decision: "deny", reason: "wrong account" });
      const denied = await runRefundAgent({ form, port: portDeciding(deny), runId, callId: "call_deny", args: { orderId: "o-2", amount: 7 } });
      expect(denied.executed).toEqual([]);
      expect(denied.output).toMatchObject({ approved: false, decision: "denied", approval_id: expect.any(String) });
      expect((denied.output as { reason: string }).reason).toContain("wrong account");

      // No decision in time: denied, and the request is withdrawn.
      const timedOutAsked: RequestedApproval[] = [];
      const timedOut = await runRefundAgent({
        form,
        port: portDeciding(null, timedOutAsked),
        runId,
        callId: "call_timeout",
        args: { orderId: "o-3", amount: 1 },
        timeoutMs: 1500,
      });
      expect(timedOut.executed).toEqual([]);
      expect(timedOut.output).toMatchObject({ approved: false, decision: "timeout" });
      expect(await client.getApproval(timedOutAsked[0]!.approval_id)).toMatchObject({ status: "cancelled", consumed: false });

      await Promise.all(reviews);
    },
  );

  it.runIf(app).each<Form>(["tool options", "FunctionTool"])(
    "%s: denies when Countersign cannot be reached, without running the body",
    async (form) => {
      const nobody = `http://127.0.0.1:${await freePort()}`;
      const svc = { slug: "svc-unreachable", webhook_secret: `whsec_${Buffer.alloc(32, 1).toString("base64")}`, api_token: "cs_unused" };
      const port = new ApprovalPort(clientFor(nobody, svc), { timeoutMs: 5000 });
      const r = await runRefundAgent({ form, port, runId: `run-${randomUUID()}`, callId: "call_offline", args: { orderId: "o-4", amount: 3 } });
      expect(r.executed).toEqual([]);
      expect(r.output).toMatchObject({ approved: false, decision: "network-error" });
    },
  );

  it.runIf(app).each<Form>(["tool options", "FunctionTool"])(
    "%s: denies a call that has no tool call id (invoked outside the runner)",
    async (form) => {
      let ran = false;
      const svc = { slug: "svc-x", webhook_secret: `whsec_${Buffer.alloc(32, 2).toString("base64")}`, api_token: "cs_unused" };
      const definition = {
        name: "noop",
        description: "Does nothing",
        parameters: z.object({}),
        execute: () => {
          ran = true;
          return "ran";
        },
      };
      const approval = { client: clientFor(app!.baseUrl, svc), runId: "run-direct" };
      const gated = form === "tool options" ? withApproval(definition, approval) : withApproval(tool(definition), approval);
      const { RunContext } = await import("@openai/agents");
      expect(await gated.invoke(new RunContext(), "{}")).toMatchObject({ approved: false, decision: "missing-call-id" });
      expect(ran).toBe(false);
    },
  );

  it.runIf(app)("runs the README example as written", async () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const example = readFileSync(new URL("../examples/refund-agent.ts", import.meta.url), "utf8");
    expect(readme).toContain(example.trim());
    expect(
      linesNotInExample(readmeExcerpt("(packages/openai-agents/README.md)", "ts", fileURLToPath(new URL("../../..", import.meta.url))), example),
    ).toEqual([]);

    const f = await import("../../../test/helpers/fixtures");
    const { recordReview } = await import("@/lib/reviews/record-review");
    const { db } = await import("@/lib/db/client");
    const svc = await f.makeService();
    const reviewer = await f.makeUser(["reviewer"]);
    Object.assign(process.env, {
      COUNTERSIGN_URL: app!.baseUrl,
      COUNTERSIGN_SLUG: svc.slug,
      COUNTERSIGN_WEBHOOK_SECRET: svc.webhook_secret,
      COUNTERSIGN_API_TOKEN: svc.api_token,
    });
    const yourApp = await import("../examples/your-app");
    // A reviewer approves the example's request as soon as it appears.
    const reviewing = (async () => {
      for (let i = 0; i < 200; i++) {
        const pending = await db().approval.findFirst({ where: { runId: yourApp.runId, status: "pending" } });
        if (pending) return recordReview(reviewer.id, { approvalId: pending.id, decision: "approve" });
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error("the example never asked for approval");
    })();
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    let printed: unknown[][];
    try {
      await import("../examples/refund-agent");
    } finally {
      printed = [...log.mock.calls];
      log.mockRestore();
    }
    await reviewing;
    expect(yourApp.refunds).toEqual([{ orderId: "A-1001", amount: 25 }]);
    expect(yourApp.toolResults).toMatchObject([{ type: "function_call_result", output: { type: "text", text: "refunded 25 on A-1001" } }]);
    expect(printed).toEqual([["Done: the refund went through."]]);
  });
});
