import "server-only";
import { db, type Tx } from "./client";
import { transactionScope } from "./sqlite-adapter";

/**
 * Runs fn in one interactive transaction. On SQLite the connection wrapper
 * (sqlite-adapter.ts) makes it BEGIN IMMEDIATE and keeps every other
 * statement out until it ends; on PostgreSQL it is READ COMMITTED, and
 * callers lock what they check (conditional updates, the audit head row).
 */
export function inTransaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
  return transactionScope.run(true, () => db().$transaction(fn, { maxWait: 10_000, timeout: 20_000 }));
}
