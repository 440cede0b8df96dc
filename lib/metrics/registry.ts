// This instance's own metrics (docs/operations.md, "Metrics"): one
// prom-client Registry per process with the counters the product bumps as it
// works, plus prom-client's process metrics. Prometheus adds `instance` to
// each series when it scrapes, so nothing here names the instance.
//
// Labels are fixed sets (outcomes, channels, HTTP status codes) or service
// slugs, never anything an agent or a reviewer wrote.
import "server-only";
import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";
import type { Decision } from "../approvals/finalize";

export const DECISION_OUTCOMES = ["approved", "denied", "expired", "cancelled", "revised"] as const satisfies readonly Decision[];

/**
 * Upper bounds of the time-to-decision buckets, in seconds: a reviewer
 * answering at once, within minutes, within the hour, and requests left
 * until they expire (TTLs run to hours).
 */
export const DECISION_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 28800, 86400];

export type ProcessMetrics = {
  registry: Registry;
  decisions: Counter<"outcome">;
  timeToDecision: Histogram<"outcome">;
  webhookAnswers: Counter<"code">;
  processMetricsOn: boolean;
};

function create(): ProcessMetrics {
  const registry = new Registry();
  const decisions = new Counter({
    name: "countersign_decisions_total",
    help: "Requests decided by this instance, by outcome, counted once after the deciding transaction committed.",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const timeToDecision = new Histogram({
    name: "countersign_time_to_decision_seconds",
    help: "From a request's arrival to its decision (for expired: to its expiry), by outcome, on the instance that decided it.",
    labelNames: ["outcome"] as const,
    buckets: DECISION_BUCKETS,
    registers: [registry],
  });
  const webhookAnswers = new Counter({
    name: "countersign_webhook_responses_total",
    help: "Answers this instance gave on POST /api/v1/webhooks/{service_slug}, by HTTP status code.",
    labelNames: ["code"] as const,
    registers: [registry],
  });
  // Every outcome is there from the start, at 0, so rates and sums see it.
  for (const outcome of DECISION_OUTCOMES) {
    decisions.inc({ outcome }, 0);
    timeToDecision.zero({ outcome });
  }
  return { registry, decisions, timeToDecision, webhookAnswers, processMetricsOn: false };
}

// On globalThis: a Next.js build can hold several copies of this module (one
// per route bundle), and all of them must count into the one registry.
const KEY = Symbol.for("countersign.metrics.process");
const g = globalThis as unknown as { [KEY]?: ProcessMetrics };

export function processMetrics(): ProcessMetrics {
  return (g[KEY] ??= create());
}

/**
 * prom-client's process metrics (CPU, memory, event loop lag, GC, handles),
 * once per process: from the app's start-up (lib/background.ts) or its first
 * scrape; never in a script or a test process that only counts.
 */
export function enableProcessMetrics(): void {
  const m = processMetrics();
  if (m.processMetricsOn) return;
  m.processMetricsOn = true;
  // The event loop is sampled every 100 ms, not prom-client's 10: at 10 the
  // sampling timer alone cost an idle instance about half a CPU second a minute.
  collectDefaultMetrics({ register: m.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  // Gauges named like counters, which `promtool check metrics` flags; the
  // same numbers are there by type in nodejs_active_handles, _requests and _resources.
  for (const name of LINT_FAILING_DEFAULTS) m.registry.removeSingleMetric(name);
}

const EVENT_LOOP_SAMPLE_MS = 100;

const LINT_FAILING_DEFAULTS = ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"];
