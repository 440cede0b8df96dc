// The unit of work around every transaction (inTransaction, directTransaction):
// what must happen as the transaction's last statements, and what must
// follow its commit and never a rollback.
//
// - beforeCommit(fn): fn runs with the transaction's statements after the
//   transaction's own work and before COMMIT, in the order queued. The
//   audit chain uses it (lib/audit/append-event.ts, recordAudit): a
//   transaction's events are appended together, in order, as its last
//   statements, so the chain's head (on PostgreSQL a row lock every
//   appender queues on) is the last lock taken and is held only until the
//   commit, whichever function in the transaction recorded them.
// - afterCommit(fn): fn runs once the COMMIT succeeded (e.g. counting a
//   decision in the metrics: lib/metrics), and is dropped with the
//   transaction if it rolls back. Callbacks run synchronously and must be
//   cheap; one that throws is logged, never passed to the caller (the change
//   is committed either way). Outside any transaction it runs at once.
// - workState(key, init): per-transaction state a module keeps (the audit
//   events recorded so far).
import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import { errorFields, log } from "../log";
import type { Sql } from "./sql";

type Work = {
  /** Set once the transaction ended: work queued later (a timer started inside it) has no transaction to join. */
  closed: boolean;
  beforeCommit: Array<(sql: Sql) => Promise<void>>;
  afterCommit: Array<() => void>;
  state: Map<symbol, unknown>;
};

// On globalThis: a Next.js build can hold several copies of this module, and
// the transaction that opens the scope and the code that queues into it may
// come from different ones.
const KEY = Symbol.for("countersign.db.unitOfWork");
const g = globalThis as unknown as { [KEY]?: AsyncLocalStorage<Work> };
const scope: AsyncLocalStorage<Work> = (g[KEY] ??= new AsyncLocalStorage<Work>());

function runSafely(fn: () => void): void {
  try {
    fn();
  } catch (e) {
    log.warn("after-commit callback failed", errorFields(e));
  }
}

/** Runs `fn` once the enclosing transaction has committed; outside any transaction, at once. */
export function afterCommit(fn: () => void): void {
  const work = scope.getStore();
  if (work && !work.closed) work.afterCommit.push(fn);
  else runSafely(fn);
}

/** Runs `fn` as the enclosing transaction's last work before COMMIT. Throws outside a transaction. */
export function beforeCommit(fn: (sql: Sql) => Promise<void>): void {
  const work = scope.getStore();
  if (!work || work.closed) throw new Error("beforeCommit outside a transaction: open one with inTransaction or directTransaction");
  work.beforeCommit.push(fn);
}

/** This transaction's state under `key` (made by `init` on first use), or undefined outside a transaction. */
export function workState<T>(key: symbol, init: () => T): T | undefined {
  const work = scope.getStore();
  if (!work || work.closed) return undefined;
  if (!work.state.has(key)) work.state.set(key, init());
  return work.state.get(key) as T;
}

/**
 * Opens a unit of work around `transaction`, which runs its statements and
 * calls `finish(sql)` with the transaction's Sql just before it commits (the
 * queued beforeCommit work runs there); what was queued with afterCommit runs
 * once it resolved. Nothing runs after a transaction that throws.
 */
export async function withUnitOfWork<T>(transaction: (finish: (sql: Sql) => Promise<void>) => Promise<T>): Promise<T> {
  const work: Work = { closed: false, beforeCommit: [], afterCommit: [], state: new Map() };
  const finish = async (sql: Sql) => {
    // Work queued by the work itself runs too, still before the commit.
    for (let fn = work.beforeCommit.shift(); fn; fn = work.beforeCommit.shift()) await fn(sql);
  };
  try {
    const result = await scope.run(work, () => transaction(finish));
    work.closed = true;
    for (const fn of work.afterCommit) runSafely(fn);
    return result;
  } finally {
    work.closed = true;
  }
}
