// SQLite side of the stand-in schema engine: the driver adapter handed to the
// WASM engine, and the places where the WASM engine differs from the native
// one on SQLite (history table, reset, empty database files).
import { resolve } from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
// The engine's own DDL for its history table (as found in the WASM binary).
import { createMigrationsTableSql } from "../../lib/db/migrations-table.mjs";
import { quoteIdent } from "../db/temporary-database.mjs";

export function sqliteFile(fileUrl) {
  const path = fileUrl.replace(/^file:/, "").replace(/\?.*$/, "");
  return path === ":memory:" ? path : resolve(path);
}

// On SQLite the WASM engine reports a missing history table as an error
// (P1014) where the native engine sees an empty history. Create the table for
// these calls, and drop it again after a read so that the database is left as
// the native engine would leave it (e.g. `migrate deploy` then still refuses a
// non-empty database that has no history, P3005).
export const SQLITE_HISTORY_USERS = { devDiagnostic: "read", diagnoseMigrationHistory: "read", markMigrationApplied: "write" };
export async function withSqliteHistoryTable(method, run) {
  const found = await sqliteRows("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'");
  if (found.length === 0) await sqliteMain.executeScript(createMigrationsTableSql("sqlite"));
  try {
    return await run();
  } finally {
    if (found.length === 0 && SQLITE_HISTORY_USERS[method] === "read") await sqliteMain.executeScript('DROP TABLE IF EXISTS "_prisma_migrations"');
  }
}

// The WASM engine's reset leaves SQLite tables in place: drop them here.
export async function resetSqlite(filter) {
  const keep = new Set(filter?.externalTables ?? []);
  const objects = await sqliteRows(
    "SELECT type, name FROM sqlite_master WHERE type IN ('view', 'table') AND name NOT LIKE 'sqlite_%' ORDER BY type = 'table'",
  );
  const drops = objects.filter(([, name]) => !keep.has(name)).map(([type, name]) => `DROP ${type.toUpperCase()} ${quoteIdent(name)};`);
  await sqliteMain.executeScript(["PRAGMA foreign_keys = OFF;", ...drops, "PRAGMA foreign_keys = ON;", "VACUUM;"].join("\n"));
  return null;
}

/** Closes the main connection, if one was opened (so no journal file is left). */
export async function closeSqlite() {
  await sqliteMain?.dispose();
}

// The engine's first write takes SQLite's lock for good (locking_mode =
// EXCLUSIVE), so the helpers above must go through its own connection.
let sqliteMain;
async function sqliteRows(sql) {
  return (await sqliteMain.queryRaw({ sql, args: [], argTypes: [] })).rows;
}

export function sqliteFactory(url, shadowUrl) {
  const file = url ? sqliteFile(url) : ":memory:";
  const factory = new PrismaBetterSqlite3({ url: file }, shadowUrl ? { shadowDatabaseUrl: sqliteFile(shadowUrl) } : undefined);
  return {
    provider: "sqlite",
    adapterName: factory.adapterName,
    connect: async () => (sqliteMain = lazySqliteAdapter(() => factory.connect())),
    connectToShadowDb: async () => lazySqliteAdapter(() => factory.connectToShadowDb()),
  };
}

// The WASM engine connects as soon as it starts, and better-sqlite3 creates
// the file on open: open it on first use instead, so that commands that never
// touch the database (`migrate diff --from-empty …`) leave no file behind.
function lazySqliteAdapter(open) {
  let opened;
  const get = async () => (opened ??= await open());
  return {
    provider: "sqlite",
    adapterName: "@prisma/adapter-better-sqlite3",
    queryRaw: async (query) => (await get()).queryRaw(query),
    // Shadow-database replay sends whole migration scripts through executeRaw,
    // but better-sqlite3 prepares one statement per call: run those as scripts.
    executeRaw: async (query) => {
      const adapter = await get();
      try {
        return await adapter.executeRaw(query);
      } catch (error) {
        if (!(error instanceof RangeError && /more than one statement/.test(error.message))) throw error;
        await adapter.executeScript(query.sql);
        return 0;
      }
    },
    executeScript: async (script) => (await get()).executeScript(script),
    startTransaction: async (isolationLevel) => (await get()).startTransaction(isolationLevel),
    dispose: async () => opened?.dispose(),
  };
}
