// "This request changed": wakes long-polls (GET ?wait=) and the live queue
// (lib/queue/live-feed.ts waits for any change).
// In-process listeners are woken directly; other instances sharing
// PostgreSQL hear it through LISTEN/NOTIFY, sent inside the deciding
// transaction so it is delivered exactly when the change commits.
import "server-only";
import { EventEmitter } from "node:events";
import pg from "pg";
import { env } from "../env";
import type { Tx } from "../db/client";
import { sqlOf, type Sql } from "../db/sql";
import { errorFields, log } from "../log";

const CHANNEL = "countersign_approval_changed";
const ANY = "*";

type Hub = { emitter: EventEmitter; listening?: Promise<void> };
const g = globalThis as unknown as { countersignChanges?: Hub };
const hub: Hub = (g.countersignChanges ??= { emitter: new EventEmitter().setMaxListeners(0) });

/** Call inside the transaction that changes the request. */
export async function announceChange(tx: Tx | Sql, approvalId: string): Promise<void> {
  const sql = sqlOf(tx);
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
    const client = new pg.Client({ connectionString: env().DATABASE_URL });
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

/**
 * Resolves when the request may have changed, or after `timeoutMs`. Callers
 * re-read the database afterwards.
 */
export async function waitForChange(approvalId: string | null, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  await ensureListening();
  // PostgreSQL notifies every instance, so the re-read is only a safety net;
  // SQLite cannot notify other processes (e.g. the admin CLI), so re-read sooner.
  const pollMs = env().databaseProvider === "postgresql" ? 2000 : 500;
  const event = approvalId ?? ANY;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      hub.emitter.off(event, done);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, Math.min(timeoutMs, pollMs));
    hub.emitter.on(event, done);
    signal?.addEventListener("abort", done);
  });
}
