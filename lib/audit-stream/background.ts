// Audit streaming from the background loop (lib/background.ts): one pass at
// a time per instance, started by the tick but not awaited by it, so a sink
// that takes its full timeout does not hold up telling reviewers.
import "server-only";
import { errorFields, log } from "../log";
import { configuredSinks, releaseStreamLeases, streamAuditPass } from "./stream-pass";
import type { AuditSink } from "./sink";

const g = globalThis as unknown as { countersignAuditStream?: { sinks: AuditSink[]; running?: Promise<void> } };

function state() {
  return (g.countersignAuditStream ??= { sinks: configuredSinks() });
}

/** Starts a pass unless one is under way or no sink is configured. */
export function startAuditStreamPass(): void {
  const s = state();
  if (s.running || s.sinks.length === 0) return;
  s.running = streamAuditPass(s.sinks)
    .then((results) => {
      for (const r of results) if (r.outcome === "failed") log.warn("audit stream: sink failed", { sink: r.sink, errorClass: r.errorClass });
    })
    .catch((e: unknown) => log.warn("audit stream pass failed", errorFields(e)))
    .finally(() => {
      s.running = undefined;
    });
}

/** Waits for the pass under way, then hands this instance's leases back. */
export async function stopAuditStream(): Promise<void> {
  const s = g.countersignAuditStream;
  if (!s) return;
  await s.running;
  await releaseStreamLeases();
}
