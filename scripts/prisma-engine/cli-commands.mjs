// The one-shot `schema-engine --datasource … cli <command>` checks the Prisma
// CLI runs before some commands: can the database be reached, create it, drop it.
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { basename, dirname } from "node:path";
import Database from "better-sqlite3";
import { pgQuery, pgUrlForDatabase, quoteIdent } from "../db/temporary-database.mjs";
import { pgErrorCode } from "./postgresql.mjs";
import { sqliteFile } from "./sqlite.mjs";

/** Runs `command`; `fail(message, errorCode)` reports a failure and exits. */
export async function runCliCommand(command, { provider, url, fail }) {
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
