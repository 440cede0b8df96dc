// Stand-ins for the parts of an application the README example imports: in
// a real app `model` is a model name or provider model, `refundOrder` calls the
// payment system and `runId` identifies the agent run. Here the model is the
// SDK's own scripted test model, so the example runs without an API key.
import { randomUUID } from "node:crypto";
import { ScriptedModel, assistantMessage, functionCall, modelResponder } from "@openai/agents/testing";

export const runId = `readme-${randomUUID()}`;

/** Every refund the tool body actually made. */
export const refunds: Array<{ orderId: string; amount: number }> = [];

export async function refundOrder(orderId: string, amount: number): Promise<string> {
  refunds.push({ orderId, amount });
  return `refunded ${amount} on ${orderId}`;
}

/** What the model was shown as the tool's result on its second turn. */
export const toolResults: unknown[] = [];

export const model = new ScriptedModel([
  [functionCall("refund", { orderId: "A-1001", amount: 25 }, { callId: `call_${randomUUID()}` })],
  modelResponder((call) => {
    const input = Array.isArray(call.request.input) ? call.request.input : [];
    toolResults.push(...input.filter((item) => item.type === "function_call_result"));
    return [assistantMessage("Done: the refund went through.")];
  }),
]);
