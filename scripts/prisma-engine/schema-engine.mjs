// Stand-in for Prisma's native `schema-engine` executable, which is downloaded
// from Prisma's own server and so cannot be had on machines without internet.
// The Prisma CLI (7.10.0) runs it through PRISMA_SCHEMA_ENGINE_BINARY either as
//   schema-engine --datamodels <schema file>… --datasource '{"url":…}'
// speaking JSON-RPC 2.0 (one object per line on stdin/stdout, JSON log lines on
// stderr), or as `schema-engine --datasource … cli <command>` for one-shot
// database checks. The requests are served by the same engine compiled to
// WebAssembly (@prisma/schema-engine-wasm, which must match prisma's engine
// hash), reaching the database through Prisma's driver adapters.
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import Database from "better-sqlite3";
import pg from "pg";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import * as wasmGlue from "@prisma/schema-engine-wasm/schema_engine_bg";
// The engine's own DDL for its history table (as found in the WASM binary).
import { createMigrationsTableSql } from "../../lib/db/migrations-table.mjs";
import { createTemporaryDatabase, pgQuery, pgUrlForDatabase, quoteIdent } from "../db/temporary-database.mjs";

// ---------------------------------------------------------------- arguments

const args = { datamodels: [], datasource: {}, cli: null, version: false };
for (let i = 2; i < process.argv.length; i++) {
  const arg = process.argv[i];
  if (arg === "--datamodels") args.datamodels.push(process.argv[++i]);
  else if (arg === "--datasource") args.datasource = JSON.parse(process.argv[++i]);
  // Accepted for compatibility; the WASM engine takes neither.
  else if (arg === "--enabled-preview-features" || arg === "--extension-types") i++;
  else if (arg === "--version" || arg === "-V") args.version = true;
  else if (arg === "cli") args.cli = process.argv[++i];
  else fail(`schema-engine: unknown argument ${arg}`);
}

// The CLI skips the first stderr line of a `cli` run before looking for errors.
if (args.cli) log("INFO", `Starting schema engine CLI (${args.cli})`);

const url = args.datasource.url ?? "";
const shadowUrl = args.datasource.shadowDatabaseUrl || undefined;
// The WASM engine would still create the tables in `public` (nothing sets the
// search_path), so refuse another PostgreSQL schema rather than misplace them.
const otherSchema = [url, shadowUrl]
  .map((u) => (/^postgres(ql)?:\/\//.test(u ?? "") ? new URL(u).searchParams.get("schema") : null))
  .find((schema) => schema && schema !== "public");
const unsupported = otherSchema && `schema-engine: only the "public" PostgreSQL schema is supported, not "${otherSchema}"`;
const schemaText = args.datamodels.map((path) => readFileSync(path, "utf8")).join("\n");
const provider = /^postgres(ql)?:\/\//.test(url)
  ? "postgresql"
  : url
    ? "sqlite"
    : (/provider\s*=\s*"(postgresql|postgres|sqlite)"/.exec(schemaText)?.[1]?.replace(/^postgres$/, "postgresql") ?? "sqlite");

// ---------------------------------------------------------------- logging

// The CLI reads stderr as JSON lines; errors it shows come from `fields`.
function log(level, message, fields = {}) {
  const line = { timestamp: new Date().toISOString(), level, fields: { ...fields, message: redact(message) }, target: "schema_engine::logger" };
  process.stderr.write(JSON.stringify(line) + "\n");
}

// Connection URLs may hold passwords: never echo them.
function redact(text) {
  let out = String(text);
  for (const secret of [args.datasource.url, args.datasource.shadowDatabaseUrl]) if (secret) out = out.split(secret).join("<REDACTED>");
  return out;
}

function fail(message, errorCode) {
  log("ERROR", message, errorCode ? { error_code: errorCode } : {});
  process.exit(1);
}

// ---------------------------------------------------------------- SQLite

function sqliteFile(fileUrl) {
  const path = fileUrl.replace(/^file:/, "").replace(/\?.*$/, "");
  return path === ":memory:" ? path : resolve(path);
}

// On SQLite the WASM engine reports a missing history table as an error
// (P1014) where the native engine sees an empty history. Create the table for
// these calls, and drop it again after a read so that the database is left as
// the native engine would leave it (e.g. `migrate deploy` then still refuses a
// non-empty database that has no history, P3005).
const SQLITE_HISTORY_USERS = { devDiagnostic: "read", diagnoseMigrationHistory: "read", markMigrationApplied: "write" };
async function withSqliteHistoryTable(method, run) {
  const found = await sqliteRows("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'");
  if (found.length === 0) await sqliteMain.executeScript(createMigrationsTableSql("sqlite"));
  try {
    return await run();
  } finally {
    if (found.length === 0 && SQLITE_HISTORY_USERS[method] === "read") await sqliteMain.executeScript('DROP TABLE IF EXISTS "_prisma_migrations"');
  }
}

// The WASM engine's reset leaves SQLite tables in place: drop them here.
async function resetSqlite(filter) {
  const keep = new Set(filter?.externalTables ?? []);
  const objects = await sqliteRows(
    "SELECT type, name FROM sqlite_master WHERE type IN ('view', 'table') AND name NOT LIKE 'sqlite_%' ORDER BY type = 'table'",
  );
  const drops = objects.filter(([, name]) => !keep.has(name)).map(([type, name]) => `DROP ${type.toUpperCase()} ${quoteIdent(name)};`);
  await sqliteMain.executeScript(["PRAGMA foreign_keys = OFF;", ...drops, "PRAGMA foreign_keys = ON;", "VACUUM;"].join("\n"));
  return null;
}

// The engine's first write takes SQLite's lock for good (locking_mode =
// EXCLUSIVE), so the helpers above must go through its own connection.
let sqliteMain;
async function sqliteRows(sql) {
  return (await sqliteMain.queryRaw({ sql, args: [], argTypes: [] })).rows;
}

function sqliteFactory() {
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

// ---------------------------------------------------------------- PostgreSQL

// pg reads the catalog's internal "char" type (OID 18, e.g. pg_class.relkind)
// as text, but adapter-pg rejects the OID as unsupported: call it text (25).
const addFields = pg.Result.prototype.addFields;
pg.Result.prototype.addFields = function (fields) {
  for (const field of fields) if (field.dataTypeID === 18) field.dataTypeID = 25;
  return addFields.call(this, fields);
};

function pgFactory() {
  const connect = async (connectionString) => {
    const adapter = await new PrismaPg({ connectionString }).connect();
    // adapter-pg splits scripts at every ";", even inside string literals and
    // function bodies: send a migration whole, as one simple-protocol query.
    adapter.executeScript = async (script) => {
      try {
        await adapter.underlyingDriver().query(script);
      } catch (error) {
        adapter.onError(error);
      }
    };
    return adapter;
  };
  return {
    provider: "postgres",
    adapterName: "@prisma/adapter-pg",
    connect: () => connect(url),
    // adapter-pg's own shadow database is unusable: its connection string
    // overrides the shadow database name (so it would replay into the main
    // database), and it drops the database before closing its pool ("is being
    // accessed by other users"). Create and drop it here instead.
    connectToShadowDb: async () => {
      if (shadowUrl) {
        // A configured shadow database is emptied first, as the native engine does.
        await pgQuery(shadowUrl, "DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public");
        return connect(shadowUrl);
      }
      const shadow = await createTemporaryDatabase(url, "prisma_migrate_shadow_db_");
      const adapter = await connect(shadow.url);
      const dispose = adapter.dispose.bind(adapter);
      adapter.dispose = async () => {
        await dispose();
        await shadow.drop();
      };
      return adapter;
    },
  };
}

function pgErrorCode(error) {
  if (error.code === "3D000") return "P1003";
  if (error.code === "28P01" || error.code === "28000") return "P1000";
  if (["ECONNREFUSED", "ENOTFOUND", "ETIMEDOUT", "EHOSTUNREACH"].includes(error.code)) return "P1001";
  return undefined;
}

// ---------------------------------------------------------------- `cli` subcommands

async function runCliCommand(command) {
  if (unsupported) fail(unsupported);
  if (provider === "sqlite") {
    const file = sqliteFile(url);
    if (command === "can-connect-to-database") {
      if (!existsSync(file)) fail(`Database ${basename(file)} does not exist at ${file}`, "P1003");
      new Database(file, { fileMustExist: true }).close();
    } else if (command === "create-database") {
      mkdirSync(dirname(file), { recursive: true });
      new Database(file).close();
    } else if (command === "drop-database") {
      rmSync(file, { force: true });
    } else fail(`schema-engine: unknown cli command ${command}`);
    return;
  }
  const parsed = new URL(url);
  const database = decodeURIComponent(parsed.pathname.slice(1)) || "postgres";
  const server = pgUrlForDatabase(url, "postgres");
  try {
    if (command === "can-connect-to-database") await pgQuery(url, "SELECT 1");
    else if (command === "create-database") await pgQuery(server, `CREATE DATABASE ${quoteIdent(database)}`);
    else if (command === "drop-database") await pgQuery(server, `DROP DATABASE ${quoteIdent(database)}`);
    else fail(`schema-engine: unknown cli command ${command}`);
  } catch (error) {
    const code = pgErrorCode(error);
    const where = `${parsed.hostname}:${parsed.port || 5432}`;
    if (code === "P1003") fail(`Database \`${database}\` does not exist on the database server at \`${where}\`.`, code);
    if (code === "P1001") fail(`Can't reach database server at \`${where}\``, code);
    fail(error.message, code);
  }
}

// ---------------------------------------------------------------- WASM engine

// A Rust panic inside the engine reports its message here before the WASM
// call traps with a RuntimeError; the glue expects this global to exist.
let panicMessage;
globalThis.PRISMA_WASM_PANIC_REGISTRY = { set_message: (message) => (panicMessage = message) };
// A panic often traps outside any promise; exit as the native engine does on
// a panic (code 101, the message logged), which the CLI reports as such.
process.on("uncaughtException", (error) => {
  log("ERROR", panicMessage ?? error?.stack ?? String(error), { is_panic: Boolean(panicMessage) });
  process.exit(panicMessage ? 101 : 1);
});

async function loadWasm() {
  const require = createRequire(import.meta.url);
  const wasmPath = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg").replace(/\.js$/, ".wasm");
  const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), { "./schema_engine_bg.js": wasmGlue });
  wasmGlue.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
}

let factory; // the bound adapter factory; its registry holds the JS errors
async function startEngine() {
  if (unsupported) throw new Error(unsupported);
  await loadWasm();
  factory = bindMigrationAwareSqlAdapterFactory(provider === "sqlite" ? sqliteFactory() : pgFactory());
  const datamodels = args.datamodels.map((path) => [path, readFileSync(path, "utf8")]);
  // The CLI omits --datamodels for `migrate diff`; the WASM engine panics
  // without one, so give it a bare datasource block for the provider.
  if (datamodels.length === 0) datamodels.push(["schema.prisma", `datasource db {\n  provider = "${provider}"\n}\n`]);
  const forwardLog = (json) => {
    const entry = JSON.parse(json);
    log(entry.level, entry.fields?.message ?? "", entry.fields);
  };
  return wasmGlue.SchemaEngine.new({ datamodels }, forwardLog, factory);
}

// WASM errors name adapter failures "External error id#N"; N indexes the registry.
function rpcError(error) {
  const id = /External error id#(\d+)/.exec(error?.message ?? "")?.[1];
  const cause = (id !== undefined && factory?.errorRegistry.consumeError(Number(id))?.error) || error;
  const isPanic = error instanceof WebAssembly.RuntimeError;
  const message = redact(isPanic && panicMessage ? panicMessage : (cause?.message ?? cause));
  const errorCode = /^P\d{4}$/.test(cause?.code ?? "") ? cause.code : undefined;
  return {
    code: 4466,
    // The CLI shows `message` for a panic, and data.message otherwise.
    message: isPanic ? message : "An error happened. Check the data field for details.",
    data: { is_panic: isPanic, message, meta: cause?.meta ?? null, error_code: errorCode },
  };
}

let enginePromise;
async function call(method, params) {
  const engine = await (enginePromise ??= startEngine());
  if (method === "getDatabaseVersion") return engine.version(params);
  if (method === "diff") {
    // The CLI prints what the engine sends back as a `print` request.
    const { exitCode, stdout } = await engine.diff(params);
    if (stdout) await requestCli("print", { content: stdout });
    return { exitCode };
  }
  if (method === "reset" && provider === "sqlite") return resetSqlite(params.filter);
  if (method === "evaluateDataLoss" || method === "createMigration") {
    // These two cannot open a shadow database in the WASM engine; they reuse
    // the schema that diagnoseMigrationHistory derives from the migrations
    // (cached per engine), so derive it first.
    const diagnose = { migrationsList: params.migrationsList, optInToShadowDatabase: true, filters: params.filters };
    await call("diagnoseMigrationHistory", diagnose);
  }
  if (provider === "sqlite" && method in SQLITE_HISTORY_USERS) return withSqliteHistoryTable(method, () => engine[method](params));
  if (method === "constructor" || method === "free" || typeof wasmGlue.SchemaEngine.prototype[method] !== "function") {
    throw Object.assign(new Error(`Method not found: ${method}`), { rpcCode: -32601 });
  }
  return engine[method](params);
}

// ---------------------------------------------------------------- JSON-RPC over stdio

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

let nextId = 1;
const awaitingCli = new Map();
function requestCli(method, params) {
  const id = nextId++;
  send({ jsonrpc: "2.0", id, method, params });
  return new Promise((resolvePromise) => awaitingCli.set(id, resolvePromise));
}

async function serve() {
  let queue = Promise.resolve();
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    if (!line.trim()) return;
    const message = JSON.parse(line);
    if (message.method === undefined) {
      // The CLI's answer to one of our own requests.
      awaitingCli.get(message.id)?.(message);
      awaitingCli.delete(message.id);
      return;
    }
    queue = queue.then(async () => {
      try {
        send({ jsonrpc: "2.0", id: message.id, result: (await call(message.method, message.params ?? {})) ?? null });
      } catch (error) {
        const rpc = error?.rpcCode ? { code: error.rpcCode, message: error.message } : rpcError(error);
        send({ jsonrpc: "2.0", id: message.id, error: rpc });
      }
    });
  });
  // The CLI ends stdin and kills the engine right away: close the database on
  // either, so that SQLite does not leave its journal file behind.
  const shutdown = async () => {
    await sqliteMain?.dispose();
    process.exit(0);
  };
  process.on("SIGTERM", shutdown);
  lines.on("close", () => queue.then(shutdown));
}

if (args.version) {
  await loadWasm();
  console.log(`schema-engine-cli ${wasmGlue.version()}`);
} else if (args.cli) {
  await runCliCommand(args.cli);
} else {
  await serve();
}
