// What the product counts as it works, into this instance's registry
// (registry.ts). Each call is an in-memory increment: nothing here waits on
// I/O, so the webhook and decision paths do not slow down.
import "server-only";
import type { Decision } from "../approvals/finalize";
import { processMetrics } from "./registry";

/**
 * One decision, with the seconds from the request's arrival to it. Called
 * once per decision, after the deciding transaction committed
 * (lib/approvals/finalize.ts queues it with afterCommit), on the instance
 * that decided.
 */
export function countDecision(outcome: Decision, secondsToDecision: number): void {
  const m = processMetrics();
  m.decisions.inc({ outcome });
  // Clocks of two instances can differ by a little: never a negative time.
  m.timeToDecision.observe({ outcome }, Math.max(0, secondsToDecision));
}

/**
 * Wraps the webhook route's handler (outermost, so answers to errors that
 * escaped are counted too) and counts each answer by HTTP status code.
 */
export function countWebhookAnswers<R extends Request, C>(handler: (req: R, ctx: C) => Promise<Response>): (req: R, ctx: C) => Promise<Response> {
  return async (req, ctx) => {
    const res = await handler(req, ctx);
    processMetrics().webhookAnswers.inc({ code: String(res.status) });
    return res;
  };
}
