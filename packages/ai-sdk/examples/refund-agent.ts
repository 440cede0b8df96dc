import { generateText, stepCountIs, tool, type LanguageModel } from "ai";
import { z } from "zod";
import { ApprovalPort, CountersignClient } from "@countersign/client";
import { withApproval } from "@countersign/ai-sdk";
import { refundPayment } from "./payments.js"; // your code

// Reads COUNTERSIGN_URL, COUNTERSIGN_SLUG, COUNTERSIGN_WEBHOOK_SECRET and COUNTERSIGN_API_TOKEN.
const port = new ApprovalPort(CountersignClient.fromEnv());

export async function runRefundAgent(model: LanguageModel, runId: string, prompt: string) {
  const refund = withApproval(
    tool({
      description: "Refund a payment",
      inputSchema: z.object({ paymentId: z.string(), amountCents: z.number().int().positive() }),
      execute: async ({ paymentId, amountCents }) => refundPayment(paymentId, amountCents),
    }),
    { port, name: "payments.refund", runId, summary: (a) => `Refund ${a.amountCents} cents of ${a.paymentId}` },
  );
  return generateText({ model, tools: { refund }, stopWhen: stepCountIs(5), prompt });
}
