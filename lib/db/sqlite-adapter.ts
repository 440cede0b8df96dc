// Prisma's better-sqlite3 adapter (7.10.0) runs every query on one shared
// connection, and only serializes transactions against each other. A query
// issued by another request while an interactive transaction is open lands
// inside that transaction: it reads uncommitted rows and, if the transaction
// rolls back, its acknowledged write silently disappears (measured on 7.10.0;
// test/db/sqlite-write-safety.test.ts proves this wrapper prevents it).
//
// This wrapper closes that hole at the driver layer: one lock per connection,
// held by a transaction from BEGIN to COMMIT/ROLLBACK and taken by every other
// statement, so nothing interleaves with an open transaction. Transactions
// also switch to BEGIN IMMEDIATE: they take SQLite's write lock up front and
// wait on busy_timeout for other processes, instead of failing with
// SQLITE_BUSY when a deferred transaction tries to upgrade its lock.
import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import type BetterSqlite3 from "better-sqlite3";
import type { IsolationLevel, SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, SqlResultSet, Transaction } from "@prisma/driver-adapter-utils";

export class Mutex {
  #tail: Promise<void> = Promise.resolve();

  /** Resolves with a release function once every earlier holder has released. */
  acquire(): Promise<() => void> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const ready = this.#tail.then(() => once(release));
    this.#tail = this.#tail.then(() => released);
    return ready;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (!done) {
      done = true;
      fn();
    }
  };
}

const raw = (sql: string): SqlQuery => ({ sql, args: [], argTypes: [] });

/**
 * Marks code running inside an interactive transaction. A query on the plain
 * client from there would wait for the lock its own transaction holds (a
 * deadlock until the transaction times out), so it fails at once instead.
 */
export const transactionScope = new AsyncLocalStorage<true>();

function assertNotInTransaction(): void {
  if (transactionScope.getStore()) {
    throw new Error("query on the plain client inside a transaction: use the transaction client (tx)");
  }
}

class SerializedTransaction implements Transaction {
  readonly provider: Transaction["provider"];
  readonly adapterName: string;
  readonly options: Transaction["options"];
  // Once COMMIT or ROLLBACK has run, the connection is back in autocommit
  // mode and no longer ours: a late statement of this transaction (e.g. one
  // still in flight when Prisma's transaction timeout rolled it back) must
  // fail, not run on its own and commit half a transaction.
  #closed = false;

  constructor(
    private readonly inner: Transaction,
    private readonly release: () => void,
  ) {
    this.provider = inner.provider;
    this.adapterName = inner.adapterName;
    this.options = inner.options;
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error("statement on a transaction that has already ended");
  }

  async queryRaw(q: SqlQuery): Promise<SqlResultSet> {
    this.#assertOpen();
    return this.inner.queryRaw(q);
  }
  async executeRaw(q: SqlQuery): Promise<number> {
    this.#assertOpen();
    const ends = /^\s*(COMMIT|ROLLBACK)\s*;?\s*$/i.test(q.sql);
    try {
      return await this.inner.executeRaw(q);
    } finally {
      if (ends) this.#closed = true;
    }
  }
  commit(): Promise<void> {
    return this.#end(() => this.inner.commit());
  }
  rollback(): Promise<void> {
    return this.#end(() => this.inner.rollback());
  }
  /** Commit or rollback: the transaction is over, and the connection's lock is released, whatever the outcome. */
  async #end(finish: () => Promise<void>): Promise<void> {
    this.#closed = true;
    try {
      await finish();
    } finally {
      this.release();
    }
  }
  createSavepoint(name: string): Promise<void> {
    return this.executeRaw(raw(`SAVEPOINT ${name}`)).then(() => undefined);
  }
  rollbackToSavepoint(name: string): Promise<void> {
    return this.executeRaw(raw(`ROLLBACK TO ${name}`)).then(() => undefined);
  }
  releaseSavepoint(name: string): Promise<void> {
    return this.executeRaw(raw(`RELEASE SAVEPOINT ${name}`)).then(() => undefined);
  }
}

class SerializedAdapter implements SqlDriverAdapter {
  readonly provider: SqlDriverAdapter["provider"];
  readonly adapterName: string;
  readonly getConnectionInfo?: SqlDriverAdapter["getConnectionInfo"];
  readonly #lock = new Mutex();

  constructor(
    private readonly inner: SqlDriverAdapter,
    private readonly onDispose: () => void = () => undefined,
  ) {
    this.provider = inner.provider;
    this.adapterName = inner.adapterName;
    this.getConnectionInfo = inner.getConnectionInfo?.bind(inner);
  }

  queryRaw(q: SqlQuery): Promise<SqlResultSet> {
    assertNotInTransaction();
    return this.#lock.run(() => this.inner.queryRaw(q));
  }
  executeRaw(q: SqlQuery): Promise<number> {
    assertNotInTransaction();
    return this.#lock.run(() => this.inner.executeRaw(q));
  }
  executeScript(script: string): Promise<void> {
    return this.#lock.run(() => this.inner.executeScript(script));
  }

  async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
    const release = await this.#lock.acquire();
    try {
      const tx = await this.inner.startTransaction(isolationLevel);
      try {
        // The inner adapter opened a deferred transaction that has not touched
        // the database yet; replace it with an immediate one on the same
        // connection (we hold the only key to it).
        await tx.executeRaw(raw("COMMIT"));
        await tx.executeRaw(raw("BEGIN IMMEDIATE"));
      } catch (e) {
        await tx.rollback().catch(() => undefined);
        throw e;
      }
      return new SerializedTransaction(tx, release);
    } catch (e) {
      release();
      throw e;
    }
  }

  dispose(): Promise<void> {
    this.onDispose();
    return this.#lock.run(() => this.inner.dispose());
  }

  /**
   * The driver's own connection, under the same lock as everything above
   * (lib/db/sql.ts: the direct statements of ingest and consume).
   */
  withConnection<T>(fn: (database: BetterSqlite3.Database) => Promise<T>): Promise<T> {
    // The Prisma adapter keeps its better-sqlite3 connection as `client` (7.10.0).
    const database = (this.inner as unknown as { client?: BetterSqlite3.Database }).client;
    if (!database || typeof database.prepare !== "function") throw new Error("the SQLite adapter exposes no connection");
    return this.#lock.run(() => fn(database));
  }
}

export class SerializedSqliteAdapterFactory implements SqlDriverAdapterFactory {
  readonly provider: SqlDriverAdapterFactory["provider"];
  readonly adapterName: string;

  constructor(private readonly inner: SqlDriverAdapterFactory) {
    this.provider = inner.provider;
    this.adapterName = inner.adapterName;
  }

  // One connection per client: Prisma's and the direct statements' (lib/db/sql.ts).
  #connected: Promise<SerializedAdapter> | undefined;

  connect(): Promise<SqlDriverAdapter> {
    return this.#connection();
  }

  #connection(): Promise<SerializedAdapter> {
    this.#connected ??= (async () => {
      const adapter = new SerializedAdapter(await this.inner.connect(), () => (this.#connected = undefined));
      // WAL lets readers in other processes work during a write.
      await adapter.executeScript("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;");
      return adapter;
    })().catch((e: unknown) => {
      this.#connected = undefined;
      throw e;
    });
    return this.#connected;
  }

  /** Runs fn on the connection, holding its lock (connects first if Prisma has not yet). */
  async withConnection<T>(fn: (database: BetterSqlite3.Database) => Promise<T>): Promise<T> {
    return (await this.#connection()).withConnection(fn);
  }
}
