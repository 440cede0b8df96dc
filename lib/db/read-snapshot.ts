// Bulk reads in one consistent snapshot, on a dedicated read-only connection
// and without Prisma's per-row result mapping, which cost more than the work
// itself when `audit verify` reads 100,000 events (issue: benchmark). Only
// for whole-table scans; everything else goes through the Prisma client.
//
// SQL uses $1, $2… placeholders on both databases. Rows come back as arrays
// in column order; timestamps as text (see utcIso()).
import "server-only";
import Database from "better-sqlite3";
import pg from "pg";
import { env } from "../env";
import { sqlitePath } from "./migrate";

export type SnapshotQuery = (sql: string, params?: ReadonlyArray<string | number | null>) => Promise<unknown[][]>;

const TIMESTAMP_OIDS = [1114, 1184]; // timestamp, timestamptz: kept as text, read as UTC by utcIso()

/** Runs `fn` inside one read-only transaction (a snapshot: REPEATABLE READ on PostgreSQL, a read transaction on SQLite). */
export async function withReadSnapshot<T>(fn: (query: SnapshotQuery) => Promise<T>): Promise<T> {
  const { DATABASE_URL, databaseProvider } = env();
  if (databaseProvider === "postgresql") {
    const client = new pg.Client({
      connectionString: DATABASE_URL,
      types: {
        getTypeParser: ((oid: number, format?: "text" | "binary") =>
          TIMESTAMP_OIDS.includes(oid) ? (v: string) => v : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    await client.connect();
    try {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const result = await fn(
        async (sql, params = []) => (await client.query({ text: sql, values: [...params], rowMode: "array" })).rows as unknown[][],
      );
      await client.query("COMMIT");
      return result;
    } finally {
      await client.end();
    }
  }
  const conn = new Database(sqlitePath(DATABASE_URL), { readonly: true, fileMustExist: true, timeout: 5000 });
  try {
    conn.exec("BEGIN");
    const result = await fn(async (sql, params = []) => {
      // better-sqlite3 binds "?" in order: $n placeholders become "?" with their values in that order.
      const ordered = [...sql.matchAll(/\$(\d+)/g)].map((m) => params[Number(m[1]) - 1]);
      return conn
        .prepare(sql.replace(/\$\d+/g, "?"))
        .raw(true)
        .all(...ordered) as unknown[][];
    });
    conn.exec("COMMIT");
    return result;
  } finally {
    conn.close();
  }
}

const PRISMA_SQLITE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;
const PG_TIMESTAMP = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,3}))?$/;

/**
 * A stored timestamp as ISO 8601 UTC with milliseconds. Prisma writes them as
 * "2026-11-29T18:00:00.000+00:00" on SQLite (or epoch milliseconds) and as
 * timestamp(3) without a zone, meaning UTC, on PostgreSQL.
 */
export function utcIso(value: unknown): string {
  // The two stored forms, without a Date round trip (a scan reads 100,000 of them).
  if (typeof value === "string") {
    if (value.length === 29 && value.endsWith("+00:00") && PRISMA_SQLITE.test(value)) return `${value.slice(0, 23)}Z`;
    const pg = PG_TIMESTAMP.exec(value);
    if (pg) return `${pg[1]}T${pg[2]}.${(pg[3] ?? "").padEnd(3, "0")}Z`;
  }
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "number" || typeof value === "bigint") return new Date(Number(value)).toISOString();
  const text = String(value).trim();
  const zoned = /\d\d:\d\d(?::\d\d(?:\.\d+)?)?\s*(?:[zZ]|[+-]\d\d(?::?\d\d)?)$/.test(text);
  return new Date(zoned ? text : `${text.replace(" ", "T")}Z`).toISOString();
}
