// "This request changed": wakes long-polls (GET ?wait=) and the live queue
// (lib/queue/live-feed.ts waits for any change).
// In-process listeners are woken directly; other instances sharing
// PostgreSQL hear it through LISTEN/NOTIFY, sent inside the deciding
// transaction so it is delivered exactly when the change commits.
// Changes nobody announced to this process (SQLite has no NOTIFY, and the
// admin command line is another process; a PostgreSQL listener can lose its
// connection) are found by one watcher per process, while anyone waits: it
// reads the audit chain's head, and when that moved, which requests the new
// events name. Every change a waiter cares about appends an event in its own
// transaction. One small read per poll, however many are waiting: a re-read
// of each waiter's request on every poll made hundreds of open long-polls
// cost hundreds of full-row reads a second (the soak, docs/performance.md).
import "server-only";
import { EventEmitter } from "node:events";
import pg from "pg";
import { env } from "../env";
import { direct, type Sql } from "../db/sql";
import { errorFields, log } from "../log";
import { isShuttingDown } from "../shutdown";

const CHANNEL = "countersign_approval_changed";
/** How the listening connection names itself to PostgreSQL (pg_stat_activity), apart from the pool's. */
export const LISTENER_APPLICATION_NAME = "countersign-change-listener";
const ANY = "*";
/** Wakes every waiter once: the watcher (re)starts from the current head and cannot know what changed before it. */
const RESYNC = "resync";

type Hub = {
  emitter: EventEmitter;
  listening?: Promise<void>;
  /** How many waitForChange calls are waiting now; the watcher runs while there are any. */
  waiting: number;
  watching: boolean;
};
const g = globalThis as unknown as { countersignChanges?: Hub };
const hub: Hub = (g.countersignChanges ??= { emitter: new EventEmitter().setMaxListeners(0), waiting: 0, watching: false });

/** Call inside the transaction that changes the request. */
export async function announceChange(sql: Sql, approvalId: string): Promise<void> {
  if (sql.dialect === "postgresql") await sql.run("SELECT pg_notify(?, ?)", [CHANNEL, approvalId]);
}

/** Call after the transaction committed (wakes this instance at once). */
export function emitLocalChange(approvalId: string): void {
  hub.emitter.emit(approvalId);
  hub.emitter.emit(ANY, approvalId);
}

function ensureListening(): Promise<void> {
  if (env().databaseProvider !== "postgresql") return Promise.resolve();
  hub.listening ??= (async () => {
    const client = new pg.Client({ connectionString: env().DATABASE_URL, application_name: LISTENER_APPLICATION_NAME });
    client.on("notification", (m) => {
      if (m.channel === CHANNEL && m.payload) emitLocalChange(m.payload);
    });
    client.on("error", (e) => {
      log.warn("approval change listener lost its connection", errorFields(e));
      hub.listening = undefined; // the next waiter reconnects
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
  })().catch((e: unknown) => {
    hub.listening = undefined;
    log.warn("cannot listen for approval changes", errorFields(e));
  });
  return hub.listening;
}

// PostgreSQL notifies every instance, so the watcher is only a safety net
// there; SQLite cannot notify other processes, so it looks sooner.
const pollMs = () => (env().databaseProvider === "postgresql" ? 2000 : 500);
const RETRY_AFTER_ERROR_MS = 5000;
/** The watcher keeps its place this long after the last waiter left, so a steady trickle of long-polls never restarts it. */
const IDLE_GRACE_MS = 30_000;

async function auditHeadSeq(): Promise<number> {
  const [head] = await direct().all<{ seq: number | bigint }>("SELECT seq FROM audit_head WHERE id = 1");
  return head ? Number(head.seq) : 0;
}

/** The requests named by the audit events after `from` up to `to`. */
async function approvalsChangedBetween(from: number, to: number): Promise<string[]> {
  const rows = await direct().all<{ approval_id: string }>(
    "SELECT DISTINCT approval_id FROM audit_events WHERE seq > ? AND seq <= ? AND approval_id IS NOT NULL",
    [from, to],
  );
  return rows.map((r) => r.approval_id);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

async function watch(): Promise<void> {
  let seen: number | null = null;
  let idleSince: number | null = null;
  for (;;) {
    if (isShuttingDown()) return;
    if (hub.waiting > 0) idleSince = null;
    else if ((idleSince ??= Date.now()) + IDLE_GRACE_MS <= Date.now()) return;
    try {
      if (seen === null) {
        seen = await auditHeadSeq();
        hub.emitter.emit(RESYNC);
      }
      await sleep(pollMs());
      const head = await auditHeadSeq();
      if (head === seen) continue;
      const ids = await approvalsChangedBetween(seen, head);
      seen = head;
      for (const id of ids) hub.emitter.emit(id);
      hub.emitter.emit(ANY);
    } catch (e) {
      log.warn("approval change watcher failed; retrying", errorFields(e));
      seen = null; // start again from the head, waking every waiter once to re-read
      await sleep(RETRY_AFTER_ERROR_MS);
    }
  }
}

function ensureWatching(): void {
  if (hub.watching) return;
  hub.watching = true;
  void watch().finally(() => {
    hub.watching = false;
    if (hub.waiting > 0) ensureWatching(); // a waiter arrived as it stopped
  });
}

/**
 * Resolves when the request (or, with null, any request) may have changed,
 * or after `timeoutMs`. Callers re-read the database afterwards.
 */
export async function waitForChange(approvalId: string | null, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  await ensureListening();
  const event = approvalId ?? ANY;
  hub.waiting++;
  ensureWatching();
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      hub.emitter.off(event, done);
      hub.emitter.off(RESYNC, done);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, timeoutMs));
    hub.emitter.on(event, done);
    hub.emitter.on(RESYNC, done);
    signal?.addEventListener("abort", done);
  }).finally(() => hub.waiting--);
}
