// Work that must follow a transaction's commit and never a rollback (e.g.
// counting a decision in the metrics: lib/metrics). inTransaction and
// directTransaction open a scope around their transaction; afterCommit()
// called inside it queues a callback that runs once the COMMIT succeeded,
// and is dropped with the transaction if it rolls back. Callbacks run
// synchronously and must be cheap; one that throws is logged, never passed
// to the caller (the change is committed either way).
import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import { errorFields, log } from "../log";

type Callbacks = Array<() => void>;

// On globalThis: a Next.js build can hold several copies of this module, and
// the transaction that opens the scope and the code that queues into it may
// come from different ones.
const KEY = Symbol.for("countersign.db.afterCommit");
const g = globalThis as unknown as { [KEY]?: AsyncLocalStorage<Callbacks> };
const scope: AsyncLocalStorage<Callbacks> = (g[KEY] ??= new AsyncLocalStorage<Callbacks>());

function runSafely(fn: () => void): void {
  try {
    fn();
  } catch (e) {
    log.warn("after-commit callback failed", errorFields(e));
  }
}

/**
 * Runs `fn` once the enclosing transaction has committed. Outside any
 * transaction scope (a single autocommitted statement) it runs at once.
 */
export function afterCommit(fn: () => void): void {
  const queued = scope.getStore();
  if (queued) queued.push(fn);
  else runSafely(fn);
}

/** Runs `transaction` (which commits when it resolves), then what it queued; nothing if it throws. */
export async function withAfterCommit<T>(transaction: () => Promise<T>): Promise<T> {
  const queued: Callbacks = [];
  const result = await scope.run(queued, transaction);
  for (const fn of queued) runSafely(fn);
  return result;
}
