// Bring a database to a usable state: create the SQLite directory, apply the
// committed migrations, ensure the baseline rows. Run by `npm start` and by
// the admin command line before anything else; idempotent.
import "server-only";
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { env } from "../env";
import { db } from "./client";
import { ensureBaseline } from "./baseline";
import { migrate, sqlitePath, type MigrateResult } from "./migrate";
import { ensureSigningKey } from "../receipts/signing-keys";
import { backfillRequesterKeys } from "../identity/backfill-requester-keys";

export async function prepareDatabase(): Promise<MigrateResult> {
  const { DATABASE_URL, databaseProvider } = env();
  if (databaseProvider === "sqlite") mkdirSync(dirname(resolve(sqlitePath(DATABASE_URL))), { recursive: true });
  const result = await migrate(DATABASE_URL);
  await ensureBaseline(db());
  await ensureSigningKey();
  await backfillRequesterKeys();
  return result;
}
