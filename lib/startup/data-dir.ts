// One data directory, one instance (local mode). `npm start` keeps its
// secrets and the demo's credentials in COUNTERSIGN_DATA_DIR, and writes
// there which database it serves (instance.json). The admin command line and
// the demo agent read it to find that same database and server; an
// environment that names another database is refused, naming both, rather
// than quietly creating a new empty one whose secrets the server never sees.
// A second `npm start` on another database refuses a data directory that
// already belongs to an instance. Production keeps nothing of an instance's
// in the directory (every secret comes from the environment), so none of
// this applies there.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { ConfigError } from "../env";
import { sqlitePath } from "../db/migrate";

export const INSTANCE_FILE = "instance.json";
export const DEFAULT_DATABASE_URL = "file:./data/countersign.db";

const instanceSchema = z.object({
  /** What identifies the database: the SQLite file's absolute path, or PostgreSQL's URL without its password. */
  database: z.string().min(1),
  /** The URL itself when it holds no password, so the command line can use it as it is. */
  database_url: z.string().min(1).optional(),
  app_url: z.string().min(1),
});
export type Instance = z.infer<typeof instanceSchema>;

const isPostgres = (url: string) => /^postgres(ql)?:\/\//.test(url);
// Query parameters that hold secrets: never part of an identity, and a URL with one is never stored.
const SECRET_PARAMS = new Set(["password", "sslpassword"]);

/**
 * The database a URL names, as something two spellings of the same one
 * share; never a password. SQLite: the file the app opens (the text after
 * `file:`, as lib/db/migrate.ts reads it), made absolute. PostgreSQL: user,
 * host, port and database, and every other query parameter, sorted (one such
 * as `host=` changes where node-postgres connects).
 */
export function databaseIdentity(url: string, cwd = process.cwd()): string {
  if (!isPostgres(url)) return `sqlite:${resolve(cwd, sqlitePath(url))}`;
  const u = new URL(url);
  const params = [...u.searchParams]
    .filter(([k]) => !SECRET_PARAMS.has(k.toLowerCase()))
    .map(([k, v]) => `${k}=${v}`)
    .sort();
  const user = u.username ? `${decodeURIComponent(u.username)}@` : "";
  return `postgresql://${user}${u.hostname}:${u.port || "5432"}${u.pathname}${params.length ? `?${params.join("&")}` : ""}`;
}

const hasPassword = (url: string) => {
  if (!isPostgres(url)) return false;
  const u = new URL(url);
  return u.password !== "" || [...u.searchParams.keys()].some((k) => SECRET_PARAMS.has(k.toLowerCase()));
};

/** The URL the command line can use from anywhere: a SQLite file by its absolute path; PostgreSQL's as it is. */
const storableUrl = (url: string, cwd = process.cwd()) => (isPostgres(url) ? url : `file:${resolve(cwd, sqlitePath(url))}`);

/** The instance this data directory belongs to, or null when none has claimed it. */
export function readInstance(dataDir: string): Instance | null {
  const path = join(dataDir, INSTANCE_FILE);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
  try {
    return instanceSchema.parse(JSON.parse(text));
  } catch {
    throw new ConfigError(`${path} is not an instance file Countersign wrote; move it away and start again`);
  }
}

/**
 * For `npm start`: claims the data directory for this database, or refuses
 * when it belongs to an instance on another one. The same database (another
 * instance sharing it, a restart) takes it over, with its current address.
 */
export function claimDataDir(dataDir: string, databaseUrl: string, appUrl: string): void {
  const database = databaseIdentity(databaseUrl);
  const current = readInstance(dataDir);
  if (current && current.database !== database) {
    throw new ConfigError(
      `the data directory ${dataDir} belongs to the instance on ${current.database}, and this one is configured for ${database}. ` +
        `Give this instance a data directory of its own (COUNTERSIGN_DATA_DIR), or, if that instance is gone for good, delete ${join(dataDir, INSTANCE_FILE)}.`,
    );
  }
  const next: Instance = { database, ...(hasPassword(databaseUrl) ? {} : { database_url: storableUrl(databaseUrl) }), app_url: appUrl };
  if (current && JSON.stringify(current) === JSON.stringify(next)) return;
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, INSTANCE_FILE);
  writeFileSync(`${path}.tmp`, JSON.stringify(next, null, 2) + "\n", { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}

/**
 * For the admin command line: the DATABASE_URL to use. The environment's,
 * when it names the instance's database (or no instance claimed the
 * directory); the instance's, when the environment names none; a refusal
 * naming both when they differ, before anything is opened or created.
 */
export function databaseForDataDir(dataDir: string, envUrl: string | undefined): string | undefined {
  const instance = readInstance(dataDir);
  if (!instance) return envUrl;
  const wanted = databaseIdentity(envUrl ?? DEFAULT_DATABASE_URL);
  if (wanted === instance.database) return envUrl;
  if (envUrl === undefined) {
    // Checked again: a file edited by hand must still name the instance's own database.
    if (instance.database_url && databaseIdentity(instance.database_url) === instance.database) return instance.database_url;
    throw new ConfigError(
      `the server whose data directory is ${dataDir} uses ${instance.database}: set DATABASE_URL to that database (with its password) to manage it`,
    );
  }
  throw new ConfigError(
    `DATABASE_URL names ${wanted}, but the server whose data directory is ${dataDir} uses ${instance.database}. ` +
      `Run with that server's DATABASE_URL (or none), or point COUNTERSIGN_DATA_DIR at the data directory of the instance you mean.`,
  );
}
