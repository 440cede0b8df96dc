// Prisma Migrate's history table, `_prisma_migrations`, as Prisma's own schema
// engine creates it. One definition for the start-up migrator (migrate.ts) and
// the stand-in schema engine (scripts/prisma-engine/sqlite.mjs), so
// both keep the history where `prisma migrate status/deploy` looks for it.
// Plain JavaScript without "server-only": the engine stand-in runs under plain
// Node; this module holds SQL text only, no secret and no connection.

const SQLITE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;

const POSTGRESQL = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

/** The statement that creates the history table unless it exists. */
export function createMigrationsTableSql(provider) {
  return provider === "postgresql" ? POSTGRESQL : SQLITE;
}
