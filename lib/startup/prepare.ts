// Start-up: bring a database to a usable state before anything serves from
// it. Creates the SQLite directory, applies the committed migrations, then the
// rows and keys every instance needs: the audit chain's head, the default
// policy, the receipt signing key, and requester keys of older rows. Run by
// `npm start` and by the admin command line before anything else; idempotent.
import "server-only";
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { env } from "../env";
import { db } from "../db/client";
import { migrate, sqlitePath, type MigrateResult } from "../db/migrate";
import { ensureAuditHead } from "../audit/audit-head";
import { ensureDefaultPolicy } from "../policies/default-policy";
import { ensureSigningKey } from "../receipts/signing-keys";
import { backfillRequesterKeys } from "../identity/backfill-requester-keys";

export async function prepareDatabase(): Promise<MigrateResult> {
  const { DATABASE_URL, databaseProvider } = env();
  if (databaseProvider === "sqlite") mkdirSync(dirname(resolve(sqlitePath(DATABASE_URL))), { recursive: true });
  const result = await migrate(DATABASE_URL);
  await ensureAuditHead(db());
  await ensureDefaultPolicy();
  await ensureSigningKey();
  await backfillRequesterKeys();
  return result;
}
