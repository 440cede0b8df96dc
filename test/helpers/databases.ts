// Fresh, real databases for integration tests: a temporary SQLite file, or a
// new PostgreSQL database on the server named by PG_TEST_URL (dropped after).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTemporaryDatabase } from "../../scripts/db/temporary-database.mjs";

export type Provider = "sqlite" | "postgresql";

export const PG_TEST_URL = process.env.PG_TEST_URL;

/**
 * The providers to run a suite on: SQLite always, PostgreSQL when PG_TEST_URL
 * is set; COUNTERSIGN_TEST_PROVIDERS narrows it (`npm test` runs the
 * PostgreSQL files in a Vitest process of their own, beside the rest).
 */
export function providers(): Provider[] {
  const all: Provider[] = PG_TEST_URL ? ["sqlite", "postgresql"] : ["sqlite"];
  const only = process.env.COUNTERSIGN_TEST_PROVIDERS?.split(",");
  return only ? all.filter((p) => only.includes(p)) : all;
}

export function freshSqliteUrl(): string {
  return `file:${join(mkdtempSync(join(tmpdir(), "cs-db-")), "test.db")}`;
}

export async function freshPostgresUrl(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!PG_TEST_URL) throw new Error("PG_TEST_URL is not set");
  return createTemporaryDatabase(PG_TEST_URL, "cs_test_");
}

export async function freshDatabaseUrl(provider: Provider): Promise<{ url: string; drop: () => Promise<void> }> {
  if (provider === "postgresql") return freshPostgresUrl();
  return { url: freshSqliteUrl(), drop: async () => undefined };
}

/**
 * Points this test file's process-wide database at a fresh one, migrated and
 * with its baseline rows. Call before importing modules that use lib/db
 * (each Vitest file starts with an empty module registry and no process-wide
 * client, test/start-file-afresh.ts, so files do not interfere).
 */
export async function useFreshDatabase(provider: Provider) {
  const fresh = await freshDatabaseUrl(provider);
  process.env.DATABASE_URL = fresh.url;
  const { prepareDatabase } = await import("@/lib/startup/prepare");
  await prepareDatabase();
  const { db } = await import("@/lib/db/client");
  return {
    url: fresh.url,
    db: db(),
    async close() {
      await db().$disconnect();
      await fresh.drop();
    },
  };
}
