// Statements straight to the database driver, for the two paths every agent
// call takes (ingest and consume; docs/performance.md). Prisma's query
// interpreter cost about half a millisecond of CPU per statement there,
// more than the statements themselves. Prisma keeps the schema, the
// migrations and every other query.
//
// One `Sql` interface, three ways to get one:
// - directTransaction(fn): BEGIN … COMMIT on the driver. On SQLite it takes
//   the same connection and the same lock as Prisma's transactions
//   (sqlite-adapter.ts), so the write-safety rule holds for both; on
//   PostgreSQL it takes a connection from the pool Prisma shares.
// - direct(): single statements, each its own transaction.
// - inTransaction(fn) (transaction.ts): its handle is Prisma's transaction
//   client and, through Prisma's raw queries, the same transaction's Sql.
// A domain function that runs statements takes `Sql` and serves all three.
//
// SQL is written once, with `?` placeholders, in the subset both databases
// speak; PostgreSQL gets `$1, $2…`. Timestamps are written the way Prisma
// writes them; read them back with asDate() (a Date or text, depending on
// the route they took), numbers with Number().
import "server-only";
import { createHash } from "node:crypto";
import type BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { env } from "../env";
import { tracingActive, withSpan } from "../tracing/tracing";
import { withUnitOfWork } from "./unit-of-work";
import type { Tx } from "./client";
import { db } from "./client";
import { driverOf } from "./driver";
import { transactionScope } from "./sqlite-adapter";

export type SqlParam = string | number | boolean | Date | null;
export type SqlRow = Record<string, unknown>;

export interface Sql {
  readonly dialect: "sqlite" | "postgresql";
  /** Rows of a query (or of a statement with RETURNING). */
  all<T extends SqlRow = SqlRow>(text: string, params?: readonly SqlParam[]): Promise<T[]>;
  /** A statement's affected row count. */
  run(text: string, params?: readonly SqlParam[]): Promise<number>;
  /**
   * A statement that ends the caller's work in the transaction. In a
   * PostgreSQL driver transaction it is sent with the COMMIT, in one round
   * trip, so a row lock it or an earlier statement took is released one
   * round trip sooner; if another statement comes first, it runs before that
   * one. Its failure fails the commit. Elsewhere it runs at once.
   */
  runLast(text: string, params?: readonly SqlParam[]): Promise<void>;
}

/** `?` placeholders as PostgreSQL's numbered ones (our SQL has no `?` operator or literal). */
const pgTexts = new Map<string, { text: string; name: string }>();
function pgText(text: string): { text: string; name: string } {
  let t = pgTexts.get(text);
  if (!t) {
    let n = 0;
    const numbered = text.replace(/\?/g, () => `$${++n}`);
    // Named: each pooled connection parses a statement once.
    t = { text: numbered, name: `cs_${createHash("sha256").update(numbered).digest("hex").slice(0, 24)}` };
    pgTexts.set(text, t);
  }
  return t;
}

/** Prisma's SQLite form of a timestamp ("…T…000+00:00"), so both writers' rows compare and sort alike. */
function sqliteParam(p: SqlParam): string | number | null {
  if (p instanceof Date) return p.toISOString().replace("Z", "+00:00");
  if (typeof p === "boolean") return p ? 1 : 0;
  return p;
}

/** timestamp(3) columns hold UTC without a zone; a zone in the input is ignored, so ISO text is exact. */
function pgParam(p: SqlParam): string | number | boolean | null {
  return p instanceof Date ? p.toISOString() : p;
}

const PG_TIMESTAMP = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)$/;
const pgTypes = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === 1114) return (v: string) => new Date(PG_TIMESTAMP.test(v) ? `${v.replace(" ", "T")}Z` : v);
    if (oid === 20) return (v: string) => Number(v); // counts; every stored integer fits
    return pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

type Queryable = Pick<pg.PoolClient, "query">;

function pgRunner(client: Queryable): Sql {
  const exec = (text: string, params: readonly SqlParam[]) => {
    const { text: numbered, name } = pgText(text);
    return client.query({ name, text: numbered, values: params.map(pgParam), types: pgTypes });
  };
  return traced({
    dialect: "postgresql",
    all: async <T extends SqlRow>(text: string, params: readonly SqlParam[] = []) => (await exec(text, params)).rows as T[],
    run: async (text: string, params: readonly SqlParam[] = []) => (await exec(text, params)).rowCount ?? 0,
    runLast: async (text: string, params: readonly SqlParam[] = []) => void (await exec(text, params)),
  });
}

/**
 * A PostgreSQL driver transaction's statements, and its commit. The
 * statement given to runLast waits for the commit and goes with it as one
 * simple query ("…; COMMIT"), its values written as literals by the
 * driver's own escaping: the extended protocol the other statements use
 * allows one statement per round trip, and node-postgres does not pipeline.
 * If that statement fails, PostgreSQL runs nothing after it in the string:
 * the transaction is left aborted and the caller rolls it back.
 */
function pgTransaction(client: pg.PoolClient): { sql: Sql; commit(): Promise<void> } {
  const runner = pgRunner(client);
  let pending: { text: string; params: readonly SqlParam[] } | undefined;
  const flush = async () => {
    if (!pending) return;
    const { text, params } = pending;
    pending = undefined;
    await runner.run(text, params);
  };
  return {
    sql: {
      dialect: "postgresql",
      all: async <T extends SqlRow>(text: string, params?: readonly SqlParam[]) => (await flush(), runner.all<T>(text, params)),
      run: async (text: string, params?: readonly SqlParam[]) => (await flush(), runner.run(text, params)),
      runLast: async (text: string, params: readonly SqlParam[] = []) => {
        await flush();
        pending = { text, params };
      },
    },
    commit: async () => {
      const last = pending;
      pending = undefined;
      await client.query(last ? `${pgInline(last.text, last.params)}; COMMIT` : "COMMIT");
    },
  };
}

/** A statement with its `?` placeholders replaced by literals (our SQL has no other `?`). */
function pgInline(text: string, params: readonly SqlParam[]): string {
  let i = 0;
  const inlined = text.replace(/\?/g, () => {
    if (i >= params.length) throw new Error("more placeholders than values");
    return pgLiteral(params[i++]!);
  });
  if (i !== params.length) throw new Error("more values than placeholders");
  return inlined;
}

function pgLiteral(p: SqlParam): string {
  if (p === null) return "NULL";
  if (typeof p === "boolean") return p ? "TRUE" : "FALSE";
  if (typeof p === "number") {
    if (!Number.isFinite(p)) throw new Error("a statement value is not a finite number");
    return String(p);
  }
  return pg.escapeLiteral(pgParam(p) as string);
}

const statements = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();
function prepared(database: BetterSqlite3.Database, text: string): BetterSqlite3.Statement {
  let cache = statements.get(database);
  if (!cache) statements.set(database, (cache = new Map()));
  let stmt = cache.get(text);
  if (!stmt) {
    stmt = database.prepare(text);
    // Prisma's connection returns BigInt by default; our integers are counts and sequence numbers.
    if (stmt.reader) stmt.safeIntegers(false);
    cache.set(text, stmt);
  }
  return stmt;
}

/** Statements on a connection the caller already holds (the lock, and BEGIN where it applies). */
/** The statement's first word (SELECT, INSERT, …): a span's name, never the text or its values. */
const operationOf = (text: string) => /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? "SQL";

/** With traces on, each statement in a span of its own (docs/operations.md, Traces). */
function traced(sql: Sql): Sql {
  if (!tracingActive()) return sql;
  const span = <T>(text: string, run: () => Promise<T>) =>
    withSpan(`db ${operationOf(text)}`, { "db.system.name": sql.dialect, "db.operation.name": operationOf(text) }, run);
  return {
    dialect: sql.dialect,
    all: <T extends SqlRow>(text: string, params?: readonly SqlParam[]) => span(text, () => sql.all<T>(text, params)),
    run: (text: string, params?: readonly SqlParam[]) => span(text, () => sql.run(text, params)),
    runLast: (text: string, params?: readonly SqlParam[]) => span(text, () => sql.runLast(text, params)),
  };
}

function sqliteRunner(database: BetterSqlite3.Database): Sql {
  return traced({
    dialect: "sqlite",
    all: async <T extends SqlRow>(text: string, params: readonly SqlParam[] = []) => prepared(database, text).all(...params.map(sqliteParam)) as T[],
    run: async (text: string, params: readonly SqlParam[] = []) => prepared(database, text).run(...params.map(sqliteParam)).changes,
    runLast: async (text: string, params: readonly SqlParam[] = []) => void prepared(database, text).run(...params.map(sqliteParam)),
  });
}

/** The same statements through a Prisma client or transaction (its connection, its transaction). */
function prismaRunner(tx: Tx, dialect: Sql["dialect"]): Sql {
  const text = (t: string) => (dialect === "postgresql" ? pgText(t).text : t);
  return {
    dialect,
    all: <T extends SqlRow>(t: string, params: readonly SqlParam[] = []) => tx.$queryRawUnsafe<T[]>(text(t), ...params),
    run: (t: string, params: readonly SqlParam[] = []) => tx.$executeRawUnsafe(text(t), ...params),
    runLast: async (t: string, params: readonly SqlParam[] = []) => void (await tx.$executeRawUnsafe(text(t), ...params)),
  };
}

/** `%`, `_` and the escape character itself taken literally in a LIKE pattern (ESCAPE '!'). */
export const likeLiteral = (s: string) => s.replace(/[!%_]/g, (c) => `!${c}`);

/** A Prisma transaction's statements (inTransaction's handle answers Sql's members with these). */
export function prismaStatements(tx: Tx): Sql {
  return prismaRunner(tx, env().databaseProvider);
}

function assertNotInTransaction(): void {
  if (transactionScope.getStore()) {
    throw new Error("direct statement outside the open transaction: pass its Sql or tx instead");
  }
}

/**
 * Single statements, each committed on its own, outside any transaction: on
 * SQLite one from inside would wait for the lock its own transaction holds;
 * on PostgreSQL it would take a second pooled connection while holding one,
 * and enough of those at once empty the pool. Both fail at once instead.
 */
export function direct(): Sql {
  const driver = driverOf(db());
  const onConnection = <T>(use: (sql: Sql) => Promise<T>): Promise<T> => {
    assertNotInTransaction();
    return driver.kind === "postgresql" ? use(pgRunner(driver.pool)) : driver.factory.withConnection((database) => use(sqliteRunner(database)));
  };
  return {
    dialect: driver.kind,
    all: <T extends SqlRow>(text: string, params?: readonly SqlParam[]) => onConnection((sql) => sql.all<T>(text, params)),
    run: (text: string, params?: readonly SqlParam[]) => onConnection((sql) => sql.run(text, params)),
    runLast: (text: string, params?: readonly SqlParam[]) => onConnection((sql) => sql.runLast(text, params)),
  };
}

/**
 * Runs fn in one transaction on the driver: BEGIN IMMEDIATE on SQLite (the
 * write lock up front, like inTransaction), READ COMMITTED on PostgreSQL.
 * Commits when fn resolves, rolls back when it throws. A unit of work
 * (unit-of-work.ts): what fn queues with beforeCommit() (the audit events it
 * recorded) runs last in it, what it queues with afterCommit() once it
 * committed.
 */
export function directTransaction<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
  return withUnitOfWork((finish) =>
    driverTransaction(async (sql) => {
      const result = await fn(sql);
      await finish(sql);
      return result;
    }),
  );
}

async function driverTransaction<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
  assertNotInTransaction();
  const driver = driverOf(db());
  if (driver.kind === "sqlite") {
    return driver.factory.withConnection((database) =>
      transactionScope.run(true, async () => {
        prepared(database, "BEGIN IMMEDIATE").run();
        try {
          const result = await fn(sqliteRunner(database));
          prepared(database, "COMMIT").run();
          return result;
        } catch (e) {
          if (database.inTransaction) prepared(database, "ROLLBACK").run();
          throw e;
        }
      }),
    );
  }
  const client = await driver.pool.connect();
  try {
    await client.query("BEGIN");
    const tx = pgTransaction(client);
    const result = await fn(tx.sql);
    await tx.commit();
    client.release();
    return result;
  } catch (e) {
    // A connection whose rollback fails is in an unknown state: destroyed, not reused.
    await client.query("ROLLBACK").then(
      () => client.release(),
      (err: Error) => client.release(err),
    );
    throw e;
  }
}

/** A timestamp as read back: Date from PostgreSQL and Prisma, text from better-sqlite3. */
export function asDate(v: unknown): Date {
  if (v instanceof Date) return v;
  if (typeof v === "string" || typeof v === "number") return new Date(v);
  if (typeof v === "bigint") return new Date(Number(v));
  throw new Error("not a timestamp");
}

export function asDateOrNull(v: unknown): Date | null {
  return v === null || v === undefined ? null : asDate(v);
}

/** A boolean as read back: 0/1 on SQLite. */
export function asBool(v: unknown): boolean {
  return v === true || v === 1 || v === 1n || v === "1" || v === "t";
}

/** `?, ?, ?` for an IN list of n values (n ≥ 1). */
export function placeholders(n: number): string {
  return Array.from({ length: n }, () => "?").join(", ");
}

/** A unique-constraint violation, from either driver or from Prisma (a model query, or a raw one: P2010 with the adapter's cause). */
export function isUniqueViolation(e: unknown): boolean {
  if (typeof e !== "object" || e === null || !("code" in e)) return false;
  const { code, meta } = e as { code: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown } } } };
  if (code === "P2010") return meta?.driverAdapterError?.cause?.kind === "UniqueConstraintViolation";
  return code === "P2002" || code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}
