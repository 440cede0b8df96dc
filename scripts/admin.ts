// Admin command line (docs/operations.md): `npm run admin -- <command> [--flag value]…`.
// Every command prints one JSON object on stdout and exits 0, or prints an
// error to stderr and exits non-zero. Flags are parsed here and validated by
// the lib/ functions they call, which hold every rule. Commands live in
// scripts/admin/*-commands.ts, one table per area.
//
// Outside production the command line manages the database of the server
// whose data directory it is given (COUNTERSIGN_DATA_DIR, ./data by default):
// without DATABASE_URL it uses that server's, and one naming another
// database is refused before anything is opened (lib/startup/data-dir.ts).
import { once } from "node:events";
import { ConfigError } from "@/lib/env";
import { databaseForDataDir } from "@/lib/startup/data-dir";
import { asksForHelp } from "./admin/flags";
import { runAdmin } from "./admin/run";

function useTheServersDatabase(): boolean {
  if (process.env.NODE_ENV === "production") return true;
  try {
    const url = databaseForDataDir(process.env.COUNTERSIGN_DATA_DIR ?? "./data", process.env.DATABASE_URL);
    if (url !== undefined) process.env.DATABASE_URL = url;
    return true;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`error: ${e.message}\n`);
    return false;
  }
}

// Help runs nothing (runAdmin prints the usage): no database to check.
const argv = process.argv.slice(2);
process.exitCode =
  asksForHelp(argv) || useTheServersDatabase()
    ? await runAdmin(argv, {
        // A full pipe (audit export into a slow reader): wait for it to drain.
        stdout: (text) => (process.stdout.write(text) ? undefined : once(process.stdout, "drain").then(() => undefined)),
        stderr: (text) => process.stderr.write(text),
      })
    : 1;
