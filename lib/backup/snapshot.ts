// A consistent view of the whole database to back up from, while the app
// keeps serving (CONTRACT §22): on SQLite, SQLite's online backup API copies
// the database into a file of its own, which is then read at leisure; on
// PostgreSQL, one REPEATABLE READ READ ONLY transaction, read through a
// cursor per table. Either way every row comes from one moment, so the
// audit chain, its head and the rows the events describe agree.
//
// Values come out in the snapshot's portable form (tables.ts ColumnKind),
// the same from either database.
import "server-only";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { databaseProviderOf } from "../env";
import { sqlitePath } from "../db/migrate";
import { utcIso } from "../db/read-snapshot";
import { POSTGRES_SCHEMA, quoted, SQLITE_SCHEMA, tablesFrom, type ColumnKind, type TableInfo } from "./tables";

export type Row = Record<string, string | number | boolean | null>;

export type SnapshotSource = {
  provider: "sqlite" | "postgresql";
  tables: TableInfo[];
  /** The newest migration applied to the database (its schema's version). */
  migration: string | null;
  rows(table: TableInfo): AsyncIterable<Row>;
};

const CURSOR_BATCH = 1000;

/** A stored value in the snapshot's form. */
export function portableValue(kind: ColumnKind, v: unknown): string | number | boolean | null {
  if (v === null || v === undefined) return null;
  switch (kind) {
    case "timestamp":
      return utcIso(v);
    case "boolean":
      return v === true || v === 1 || v === 1n || v === "1" || v === "t" || v === "true";
    case "integer":
    case "number":
      return Number(v);
    default:
      return typeof v === "string" ? v : String(v);
  }
}

function portableRow(table: TableInfo, raw: Record<string, unknown>): Row {
  const row: Row = {};
  for (const c of table.columns) row[c.name] = portableValue(c.kind, raw[c.name]);
  return row;
}

function selectAll(table: TableInfo): string {
  const order = table.primaryKey.length ? table.primaryKey : table.columns.map((c) => c.name);
  return `SELECT ${table.columns.map((c) => quoted(c.name)).join(", ")} FROM ${quoted(table.name)} ORDER BY ${order.map(quoted).join(", ")}`;
}

const NEWEST_MIGRATION = `SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name DESC LIMIT 1`;

/**
 * Runs `fn` over a consistent snapshot of the database at `url`. `workDir`:
 * where SQLite's copy is made (removed afterwards); the output file's folder
 * keeps it on the same disk as the backup.
 */
export async function withSnapshot<T>(url: string, workDir: string, fn: (source: SnapshotSource) => Promise<T>): Promise<T> {
  return databaseProviderOf(url) === "postgresql" ? withPostgresSnapshot(url, fn) : withSqliteSnapshot(url, workDir, fn);
}

async function withSqliteSnapshot<T>(url: string, workDir: string, fn: (source: SnapshotSource) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(workDir, ".countersign-backup-"));
  const copyPath = join(dir, "snapshot.db");
  try {
    const live = new Database(sqlitePath(url), { readonly: true, fileMustExist: true, timeout: 5000 });
    try {
      // The online backup: the first step copies 100 pages, every later one
      // the rest at once, so a write by the app (which restarts a backup
      // between steps) can restart it at most once per step.
      await live.backup(copyPath, { progress: ({ totalPages }) => Math.max(totalPages, 100) });
    } finally {
      live.close();
    }
    const copy = new Database(copyPath, { readonly: true, fileMustExist: true });
    try {
      const tables = tablesFrom(
        (copy.prepare(SQLITE_SCHEMA.tables).all() as Array<{ name: string }>).map((r) => r.name),
        copy.prepare(SQLITE_SCHEMA.columns).all() as Array<{ table: string; name: string; type: string; pk: number }>,
        copy.prepare(SQLITE_SCHEMA.foreignKeys).all() as Array<{ table: string; parent: string }>,
      );
      const migration = (copy.prepare(NEWEST_MIGRATION).get() as { migration_name: string } | undefined)?.migration_name ?? null;
      return await fn({
        provider: "sqlite",
        tables,
        migration,
        async *rows(table) {
          for (const raw of copy.prepare(selectAll(table)).iterate() as Iterable<Record<string, unknown>>) yield portableRow(table, raw);
        },
      });
    } finally {
      copy.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const TIMESTAMP_OIDS = [1114, 1184]; // kept as text; utcIso() reads them as UTC

async function withPostgresSnapshot<T>(url: string, fn: (source: SnapshotSource) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    connectionString: url,
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        TIMESTAMP_OIDS.includes(oid) ? (v: string) => v : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  await client.connect();
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const tables = tablesFrom(
      (await client.query<{ name: string }>(POSTGRES_SCHEMA.tables)).rows.map((r) => r.name),
      (await client.query<{ table: string; name: string; type: string; pk: number }>(POSTGRES_SCHEMA.columns)).rows,
      (await client.query<{ table: string; parent: string }>(POSTGRES_SCHEMA.foreignKeys)).rows,
    );
    const migration = (await client.query<{ migration_name: string }>(NEWEST_MIGRATION)).rows[0]?.migration_name ?? null;
    const result = await fn({
      provider: "postgresql",
      tables,
      migration,
      async *rows(table) {
        await client.query(`DECLARE backup_rows NO SCROLL CURSOR FOR ${selectAll(table)}`);
        try {
          for (;;) {
            const { rows } = await client.query<Record<string, unknown>>(`FETCH ${CURSOR_BATCH} FROM backup_rows`);
            for (const raw of rows) yield portableRow(table, raw);
            if (rows.length < CURSOR_BATCH) break;
          }
        } finally {
          await client.query("CLOSE backup_rows");
        }
      },
    });
    await client.query("COMMIT");
    return result;
  } finally {
    await client.end();
  }
}
