// Readiness: the database answers and every committed migration is applied.
import "server-only";
import { db } from "./client";
import { env } from "../env";
import { isShuttingDown } from "../shutdown";
import { migrationsDir, pendingMigrations, readMigrations } from "./migrate";

export type Readiness =
  { ready: true } | { ready: false; reason: "shutting-down" | "database-unreachable" | "migrations-pending"; pending?: string[] };

export async function checkReadiness(): Promise<Readiness> {
  // A stopping instance says so, so a load balancer sends new work elsewhere.
  if (isShuttingDown()) return { ready: false, reason: "shutting-down" };
  let applied: string[];
  try {
    const rows = await db().$queryRaw<Array<{ migration_name: string }>>`
      SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
    applied = rows.map((r) => r.migration_name);
  } catch {
    return { ready: false, reason: "database-unreachable" };
  }
  const pending = pendingMigrations(applied, readMigrations(migrationsDir(env().databaseProvider)));
  return pending.length ? { ready: false, reason: "migrations-pending", pending } : { ready: true };
}
