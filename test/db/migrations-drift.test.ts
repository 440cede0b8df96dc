// The committed migrations (prisma/<provider>/migrations) must build exactly
// the schema written in prisma/models.prisma, on each database. The real
// Prisma CLI proves it: `prisma migrate diff --from-migrations <dir>
// --to-schema <schema> --exit-code` replays the migrations in a shadow
// database and compares the result with the schema (exit 0: no difference,
// 2: drift). SQLite always; PostgreSQL when PG_TEST_URL is set, through a
// fresh database created and dropped here (Prisma creates its shadow database
// next to it and drops it too).
//
// Where Prisma's native schema engine cannot be downloaded, the CLI runs on
// scripts/prisma-engine/schema-engine (the same engine compiled to WASM).
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTemporaryDatabase } from "../../scripts/db/temporary-database.mjs";

type Provider = "sqlite" | "postgresql";

const root = process.cwd();
const prismaBin = join(root, "node_modules", "prisma", "build", "index.js");
const engineShim = join(root, "scripts", "prisma-engine", "schema-engine");
const migrationsDir = (provider: Provider) => join(root, "prisma", provider, "migrations");

// The schema as scripts/db/schemas.mjs renders it from prisma/models.prisma
// now (the generated prisma/<provider>/schema.prisma may be stale).
const { renderSchema } = (await import(pathToFileURL(join(root, "scripts", "db", "schemas.mjs")).href)) as {
  renderSchema: (provider: Provider) => string;
};

async function migrateDiffExitCode(provider: Provider, databaseUrl: string) {
  const work = mkdtempSync(join(tmpdir(), "cs-drift-"));
  const schemaFile = join(work, "schema.prisma");
  writeFileSync(schemaFile, renderSchema(provider));
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
  delete env.SHADOW_DATABASE_URL;
  if (!env.PRISMA_SCHEMA_ENGINE_BINARY && existsSync(engineShim)) env.PRISMA_SCHEMA_ENGINE_BINARY = engineShim;
  const args = [prismaBin, "migrate", "diff", "--from-migrations", migrationsDir(provider), "--to-schema", schemaFile, "--exit-code"];
  try {
    return await promisify(execFile)(process.execPath, args, { cwd: root, env }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code, stdout: error.stdout ?? "", stderr: error.stderr ?? "" }),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function describeMigrations(provider: Provider, databaseUrl: () => string) {
  it("has a lock file for the provider and a migration.sql in every migration", () => {
    const dir = migrationsDir(provider);
    expect(readFileSync(join(dir, "migration_lock.toml"), "utf8")).toContain(`provider = "${provider}"`);
    const migrations = readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory());
    expect(migrations.length).toBeGreaterThan(0);
    for (const m of migrations) {
      expect(m.name).toMatch(/^\d{14}_[a-z0-9_]+$/);
      expect(existsSync(join(dir, m.name, "migration.sql")), `${m.name}/migration.sql`).toBe(true);
    }
  });

  it("builds exactly prisma/models.prisma (no drift)", async () => {
    const { code, stdout, stderr } = await migrateDiffExitCode(provider, databaseUrl());
    const hint = "prisma/models.prisma and the committed migrations differ: run `npm run db:migration -- --name <change>`";
    expect(code, code === 2 ? `${hint}\n${stdout}` : `prisma migrate diff failed:\n${stderr}${stdout}`).toBe(0);
    expect(stdout).toContain("No difference detected.");
  });
}

describe("sqlite migrations", () => {
  // A file that is never created: the shadow database is in memory.
  const dir = mkdtempSync(join(tmpdir(), "cs-drift-db-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  describeMigrations("sqlite", () => `file:${join(dir, "unused.db")}`);
});

describe.skipIf(!process.env.PG_TEST_URL)("postgresql migrations", () => {
  let database: Awaited<ReturnType<typeof createTemporaryDatabase>> | undefined;
  beforeAll(async () => {
    database = await createTemporaryDatabase(process.env.PG_TEST_URL ?? "", "cs_shim_drift_");
  });
  afterAll(() => database?.drop());
  describeMigrations("postgresql", () => database!.url);
});
