// Applies the committed Prisma migrations (prisma/<provider>/migrations) at
// start-up, without Prisma's native schema engine, which cannot be downloaded
// on every machine. It records them in Prisma's own `_prisma_migrations`
// table with Prisma's checksum, so `prisma migrate status/deploy` (the
// standard CLI, where its engine exists) sees the same history.
//
// Several instances may start at once: PostgreSQL serializes them with the
// same advisory lock key Prisma Migrate uses; SQLite with BEGIN IMMEDIATE.
import "server-only";
import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { databaseProviderOf } from "../env";
import { createMigrationsTableSql } from "./migrations-table.mjs";

const PRISMA_MIGRATE_LOCK_KEY = 72707369;

export type Migration = { name: string; sql: string; checksum: string };

export function migrationsDir(provider: "sqlite" | "postgresql", root = process.cwd()): string {
  return join(root, "prisma", provider, "migrations");
}

export function readMigrations(dir: string): Migration[] {
  if (!existsSync(dir)) throw new Error(`No migrations directory at ${dir}`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

export type MigrateResult = { applied: string[]; total: number };

export async function migrate(url: string, root = process.cwd()): Promise<MigrateResult> {
  const provider = databaseProviderOf(url);
  const migrations = readMigrations(migrationsDir(provider, root));
  return provider === "postgresql" ? migratePostgres(url, migrations) : migrateSqlite(url, migrations);
}

/** Names of committed migrations not yet applied (for the readiness check). */
export function pendingMigrations(applied: string[], all: Migration[]): string[] {
  const done = new Set(applied);
  return all.filter((m) => !done.has(m.name)).map((m) => m.name);
}

function assertNoFailed(rows: Array<{ migration_name: string; finished_at: unknown; rolled_back_at: unknown }>) {
  const failed = rows.find((r) => r.finished_at == null && r.rolled_back_at == null);
  if (failed) {
    throw new Error(`Migration ${failed.migration_name} failed earlier and needs attention (see prisma migrate resolve).`);
  }
}

function checkApplied(rows: Array<{ migration_name: string; checksum: string }>, migrations: Migration[]) {
  const byName = new Map(migrations.map((m) => [m.name, m]));
  for (const row of rows) {
    const m = byName.get(row.migration_name);
    if (m && m.checksum !== row.checksum) {
      throw new Error(`Migration ${row.migration_name} was edited after it was applied (checksum differs).`);
    }
  }
}

export function sqlitePath(url: string): string {
  return url.replace(/^file:/, "");
}

function migrateSqlite(url: string, migrations: Migration[]): MigrateResult {
  const conn = new Database(sqlitePath(url), { timeout: 15_000 });
  try {
    conn.pragma("journal_mode = WAL");
    conn.exec("BEGIN IMMEDIATE");
    try {
      conn.exec(createMigrationsTableSql("sqlite"));
      const rows = conn.prepare(`SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"`).all() as Array<{
        migration_name: string;
        checksum: string;
        finished_at: unknown;
        rolled_back_at: unknown;
      }>;
      assertNoFailed(rows);
      checkApplied(rows, migrations);
      const pending = pendingMigrations(
        rows.filter((r) => r.rolled_back_at == null).map((r) => r.migration_name),
        migrations,
      );
      const record = conn.prepare(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
         VALUES (?, ?, ?, ?, ?, 1)`,
      );
      for (const name of pending) {
        const m = migrations.find((x) => x.name === name)!;
        const started = Date.now();
        conn.exec(m.sql); // SQLite DDL is transactional: all or nothing with the rest.
        record.run(randomUUID(), m.checksum, Date.now(), m.name, started);
      }
      conn.exec("COMMIT");
      return { applied: pending, total: migrations.length };
    } catch (e) {
      if (conn.inTransaction) conn.exec("ROLLBACK");
      throw e;
    }
  } finally {
    conn.close();
  }
}

async function migratePostgres(url: string, migrations: Migration[]): Promise<MigrateResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [PRISMA_MIGRATE_LOCK_KEY]);
    await client.query(createMigrationsTableSql("postgresql"));
    const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: unknown; rolled_back_at: unknown }>(
      `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"`,
    );
    assertNoFailed(rows);
    checkApplied(rows, migrations);
    const pending = pendingMigrations(
      rows.filter((r) => r.rolled_back_at == null).map((r) => r.migration_name),
      migrations,
    );
    for (const name of pending) {
      const m = migrations.find((x) => x.name === name)!;
      await client.query("BEGIN");
      try {
        const started = new Date();
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
           VALUES ($1, $2, now(), $3, $4, 1)`,
          [randomUUID(), m.checksum, m.name, started],
        );
        await client.query("COMMIT");
      } catch (e) {
        await client.query("ROLLBACK");
        throw e;
      }
    }
    return { applied: pending, total: migrations.length };
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [PRISMA_MIGRATE_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}
