import "server-only";
import { db, type Tx } from "./client";

/**
 * Runs fn in one interactive transaction. On SQLite the connection wrapper
 * (sqlite-adapter.ts) makes it BEGIN IMMEDIATE and keeps every other
 * statement out until it ends; on PostgreSQL it is READ COMMITTED, and
 * callers lock what they check (conditional updates, the audit head row).
 */
export function inTransaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db().$transaction(fn, { maxWait: 10_000, timeout: 20_000 });
}
