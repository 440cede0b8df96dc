import { Agent, run } from "@openai/agents";
import { z } from "zod";
import { CountersignClient } from "@countersign/client";
import { withApproval } from "@countersign/openai-agents";
import { model, refundOrder, runId } from "./your-app.js";

// COUNTERSIGN_URL, COUNTERSIGN_SLUG, COUNTERSIGN_WEBHOOK_SECRET, COUNTERSIGN_API_TOKEN
const client = CountersignClient.fromEnv();

const refund = withApproval(
  {
    name: "refund",
    description: "Refund part of an order",
    parameters: z.object({ orderId: z.string(), amount: z.number() }),
    execute: ({ orderId, amount }) => refundOrder(orderId, amount),
  },
  { client, name: "payments.refund", runId, effects: "write", summary: ({ orderId }) => `Refund order ${orderId}` },
);

const agent = new Agent({ name: "Support", instructions: "Refund orders when asked.", model, tools: [refund] });
const result = await run(agent, "Please refund 25 EUR on order A-1001");
console.log(result.finalOutput);
