import "server-only";
import { withUnitOfWork } from "./unit-of-work";
import { db, type Tx } from "./client";
import { prismaStatements, type Sql } from "./sql";
import { transactionScope } from "./sqlite-adapter";

/**
 * One transaction, whichever way it was opened: Prisma's model API on it and
 * its plain statements (Sql), one handle. A domain function that only needs
 * statements takes `Sql`, and gets this handle or a driver transaction's
 * (directTransaction) alike.
 */
export type Unit = Tx & Sql;

/** Prisma's transaction client, answering Sql's members with the same transaction's statements. */
function unitOf(tx: Tx): Unit {
  const sql = prismaStatements(tx);
  return new Proxy(tx, {
    get: (target, prop) => (prop === "all" || prop === "run" || prop === "runLast" || prop === "dialect" ? sql[prop] : Reflect.get(target, prop)),
  }) as Unit;
}

/**
 * Runs fn in one interactive transaction. On SQLite the connection wrapper
 * (sqlite-adapter.ts) makes it BEGIN IMMEDIATE and keeps every other
 * statement out until it ends; on PostgreSQL it is READ COMMITTED, and
 * callers lock what they check (conditional updates, the audit head row).
 * A unit of work (unit-of-work.ts): what fn queues with beforeCommit() (the
 * audit events it recorded) runs last in it, what it queues with
 * afterCommit() once it committed.
 */
export function inTransaction<T>(fn: (tx: Unit) => Promise<T>): Promise<T> {
  return withUnitOfWork((finish) =>
    transactionScope.run(true, () =>
      db().$transaction(
        async (prismaTx) => {
          const tx = unitOf(prismaTx);
          const result = await fn(tx);
          await finish(tx);
          return result;
        },
        { maxWait: 10_000, timeout: 20_000 },
      ),
    ),
  );
}
