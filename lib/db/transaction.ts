import "server-only";
import { withAfterCommit } from "./after-commit";
import { db, type Tx } from "./client";
import { transactionScope } from "./sqlite-adapter";

/**
 * Runs fn in one interactive transaction. On SQLite the connection wrapper
 * (sqlite-adapter.ts) makes it BEGIN IMMEDIATE and keeps every other
 * statement out until it ends; on PostgreSQL it is READ COMMITTED, and
 * callers lock what they check (conditional updates, the audit head row).
 * What fn queues with afterCommit() (after-commit.ts) runs once it committed.
 */
export function inTransaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
  return withAfterCommit(() => transactionScope.run(true, () => db().$transaction(fn, { maxWait: 10_000, timeout: 20_000 })));
}
