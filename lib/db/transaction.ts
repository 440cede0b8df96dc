import "server-only";
import { withUnitOfWork } from "./unit-of-work";
import { db, type Tx } from "./client";
import { sqlOf } from "./sql";
import { transactionScope } from "./sqlite-adapter";

/**
 * Runs fn in one interactive transaction. On SQLite the connection wrapper
 * (sqlite-adapter.ts) makes it BEGIN IMMEDIATE and keeps every other
 * statement out until it ends; on PostgreSQL it is READ COMMITTED, and
 * callers lock what they check (conditional updates, the audit head row).
 * A unit of work (unit-of-work.ts): what fn queues with beforeCommit() (the
 * audit events it recorded) runs last in it, what it queues with
 * afterCommit() once it committed.
 */
export function inTransaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
  return withUnitOfWork((finish) =>
    transactionScope.run(true, () =>
      db().$transaction(
        async (tx) => {
          const result = await fn(tx);
          await finish(sqlOf(tx));
          return result;
        },
        { maxWait: 10_000, timeout: 20_000 },
      ),
    ),
  );
}
