// Work each app instance does in the background: deliver callbacks, tell
// reviewers (notification triggers and the outbox, Slack updates), stream the
// audit events to their sinks, mark
// expired requests, end time-bound roles, turn refusal counts into audit events, prune old
// rate-limit counters. Every step is safe to run
// on several instances at once (leases and conditional updates).
import "server-only";
import { db } from "./db/client";
import { deliverDueCallbacks, releaseLeases } from "./callbacks/deliver-callbacks";
import { sweepExpired } from "./approvals/expire-approval";
import { fanOutDueTriggers } from "./notifications/fan-out";
import { deliverDueNotifications, releaseNotificationLeases } from "./notifications/deliver-notifications";
import { stopSendThread } from "./notifications/send-thread";
import { NOTIFY_MESSAGE_BATCH, NOTIFY_TRIGGER_BATCH } from "./notifications/batch";
import { pruneRateLimits } from "./rate-limit";
import { pruneWebauthnChallenges } from "./passkeys/vote-passkey";
import { flushRefusalTallies } from "./audit/refusal-tallies";
import { purgeExpiredArguments } from "./retention/purge-arguments";
import { expireRoles } from "./users/expire-roles";
import { errorFields, log } from "./log";
import { beginShutdown } from "./shutdown";
import { queueSlackUpdates } from "./slack/sync-posts";
import { releaseMetricsLease } from "./metrics/lease";
import { enableProcessMetrics } from "./metrics/registry";
import { flushTraces } from "./tracing/tracing";
import { startAuditStreamPass, stopAuditStream } from "./audit-stream/background";
import { backgroundWorkDue } from "./background-due";

const TICK_MS = 1000;
/** A tick keeps working through due notifications while there are more, up to this long. */
const DRAIN_MS = 5000;
/** The steps' own queries run on every tick this many, whatever the one statement said. */
const FULL_PASS_EVERY = 15;
type State = { timer?: NodeJS.Timeout; running: boolean; stopping: boolean; ticks: number; again: boolean; routineAt: number };
const g = globalThis as unknown as { countersignBackground?: State };

/** `nudged`: started by a new request (or a drain that ran out of time), not by the clock. */
async function tick(state: State, nudged = false): Promise<void> {
  if (state.running || state.stopping) return;
  state.running = true;
  try {
    // On the clock's ticks, and on a nudge only if the clock's last was a
    // second ago: a nudge is about telling reviewers, and under a burst of
    // webhooks these steps' queries ran back to back for nothing.
    const routine = !nudged || Date.now() - state.routineAt >= TICK_MS;
    // On the clock's ticks one statement first asks whether any step has
    // work (lib/background-due); a nudge has work. Every FULL_PASS_EVERY ticks
    // the steps look for themselves all the same.
    const work = nudged || state.ticks % FULL_PASS_EVERY === 0 || (await backgroundWorkDue());
    if (routine) {
      state.routineAt = Date.now();
      if (work) {
        await sweepExpired();
        await deliverDueCallbacks();
        // Slack messages of requests decided since: their updates join the outbox first.
        await queueSlackUpdates();
      }
      // Audit events to the configured sinks (syslog, OTLP, webhook): a pass of its own, not awaited here.
      startAuditStreamPass();
    }
    // Under a burst of requests, a full batch means more are due: keep at it
    // rather than wait a second per batch, so reviewers hear within seconds.
    // Fan-out and delivery run side by side; after DRAIN_MS the other steps
    // get their turn, and the next tick starts at once.
    if (work && (await drainNotifications(state, Date.now() + DRAIN_MS))) state.again = true;
    if (routine) {
      ++state.ticks;
      // Refusal counts of minutes that are over become audit events; time-bound
      // roles that ended are recorded (they stopped counting at their end already).
      if (state.ticks % 10 === 0) await flushRefusalTallies();
      if (state.ticks % 10 === 5) await expireRoles();
      if (state.ticks % 600 === 0) await pruneRateLimits(db());
      if (state.ticks % 600 === 300) await pruneWebauthnChallenges();
      // Retention (RETENTION_DAYS): decided requests past it lose their arguments, a batch at a time.
      if (state.ticks % 60 === 45) await purgeExpiredArguments({ maxBatches: 20 });
    }
  } catch (e) {
    log.warn("background tick failed", errorFields(e));
  } finally {
    state.running = false;
  }
  if (state.again && !state.stopping) {
    state.again = false;
    setImmediate(() => void tick(state, true));
  }
}

/** Delivery passes at once: a pass waits on its slowest sends; the others meanwhile take what the fan-out writes. */
const DELIVERY_LANES = 3;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Fans out and delivers until nothing more is due or `until`; true if work was left. */
async function drainNotifications(state: State, until: number): Promise<boolean> {
  let fanOutDone = false;
  let passesUnderWay = 0;
  let left = false;
  // Requests keep arriving while messages go out: the fan-out looks again
  // until it finds nothing due and no delivery pass is under way.
  const fanOut = async () => {
    try {
      for (;;) {
        if (state.stopping) return;
        const due = await fanOutDueTriggers();
        if (Date.now() >= until) return void (left ||= due === NOTIFY_TRIGGER_BATCH);
        if (due === NOTIFY_TRIGGER_BATCH) continue;
        if (due === 0 && passesUnderWay === 0) return;
        await pause(25);
      }
    } finally {
      fanOutDone = true;
    }
  };
  const deliver = async () => {
    for (;;) {
      if (state.stopping) return;
      passesUnderWay++;
      const attempted = await deliverDueNotifications().finally(() => passesUnderWay--);
      if (Date.now() >= until) return void (left ||= attempted === NOTIFY_MESSAGE_BATCH);
      if (attempted === NOTIFY_MESSAGE_BATCH) continue;
      if (fanOutDone) return;
      // Nothing (or little) due while the fan-out is still writing: look again shortly.
      await pause(20);
    }
  };
  // All finish before the tick ends, even when one fails.
  const results = await Promise.allSettled([fanOut(), ...Array.from({ length: DELIVERY_LANES }, deliver)]);
  const failed = results.find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
  return left;
}

/**
 * Runs the background work now rather than at the next second: a request
 * just filed has reviewers to tell. On an instance without background work
 * (a script, a test process) it does nothing; another instance's clock
 * still picks the work up within a second.
 */
export function nudgeBackgroundWork(): void {
  const state = g.countersignBackground;
  if (!state || state.stopping) return;
  if (state.running) state.again = true;
  else setImmediate(() => void tick(state, true));
}

export function startBackgroundWork(): void {
  if (g.countersignBackground) return;
  const state: State = { running: false, stopping: false, ticks: 0, again: false, routineAt: 0 };
  g.countersignBackground = state;
  // GET /api/metrics: the process metrics count from the instance's start.
  enableProcessMetrics();
  state.timer = setInterval(() => void tick(state), TICK_MS);
  state.timer.unref();
  // Next's own SIGTERM handler stops accepting connections, waits for the
  // requests in flight, then exits. Alongside it: end streams and long-polls
  // (lib/shutdown), cut a callback attempt short and hand the leases back.
  // Should the exit still win the race, a lease simply expires in a minute.
  process.once("SIGTERM", () => {
    log.info("SIGTERM: shutting down", { pid: process.pid });
    beginShutdown();
    void stopBackgroundWork();
  });
}

export async function stopBackgroundWork(): Promise<void> {
  const state = g.countersignBackground;
  if (!state) return;
  state.stopping = true;
  clearInterval(state.timer);
  while (state.running) await new Promise((r) => setTimeout(r, 50));
  await releaseLeases().catch(() => undefined);
  await releaseNotificationLeases().catch(() => undefined);
  // Another instance exposes the database-wide metrics from its next scrape on.
  await releaseMetricsLease().catch(() => undefined);
  // The audit stream's pass under way ends; another instance takes the sinks at its next pass.
  await stopAuditStream().catch(() => undefined);
  // Closes the kept-open SMTP connections; a pass still sending has ended above.
  stopSendThread();
  // Best effort: whatever is not flushed stays in refusal_tallies, and any
  // instance (or this one's successor) flushes it later. Nothing is lost.
  await flushRefusalTallies().catch(() => undefined);
  // The spans of this instance's last requests (traces on only).
  await flushTraces().catch(() => undefined);
}
