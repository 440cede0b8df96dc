// Stand-in for Prisma's native `schema-engine` executable, which is downloaded
// from Prisma's own server and so cannot be had on machines without internet.
// The Prisma CLI (7.10.0) runs it through PRISMA_SCHEMA_ENGINE_BINARY either as
//   schema-engine --datamodels <schema file>… --datasource '{"url":…}'
// speaking JSON-RPC 2.0 (one object per line on stdin/stdout, JSON log lines on
// stderr), or as `schema-engine --datasource … cli <command>` for one-shot
// database checks. The requests are served by the same engine compiled to
// WebAssembly (@prisma/schema-engine-wasm, which must match prisma's engine
// hash), reaching the database through Prisma's driver adapters.
//
// This file reads the arguments, loads the WASM engine and speaks JSON-RPC;
// sqlite.mjs and postgresql.mjs hold the driver adapters, cli-commands.mjs
// the one-shot database checks.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import * as wasmGlue from "@prisma/schema-engine-wasm/schema_engine_bg";
import { runCliCommand } from "./cli-commands.mjs";
import { pgFactory } from "./postgresql.mjs";
import { SQLITE_HISTORY_USERS, closeSqlite, resetSqlite, sqliteFactory, withSqliteHistoryTable } from "./sqlite.mjs";

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
  factory = bindMigrationAwareSqlAdapterFactory(provider === "sqlite" ? sqliteFactory(url, shadowUrl) : pgFactory(url, shadowUrl));
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
    await closeSqlite();
    process.exit(0);
  };
  process.on("SIGTERM", shutdown);
  lines.on("close", () => queue.then(shutdown));
}

if (args.version) {
  await loadWasm();
  console.log(`schema-engine-cli ${wasmGlue.version()}`);
} else if (args.cli) {
  if (unsupported) fail(unsupported);
  await runCliCommand(args.cli, { provider, url, fail });
} else {
  await serve();
}
