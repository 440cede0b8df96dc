// The queue's SQL that SQLite and PostgreSQL spell differently. Every
// fragment reads the request row under the alias `a` (FROM approvals a).
// Raw SQL at all because the required roles are a JSON array in a text
// column, which has no portable Prisma filter.
import "server-only";
import { Prisma } from "../db/client";
import { env } from "../env";

export type Dialect = {
  /** True when a.required_roles (a JSON array) holds any of `roles` (never NULL). */
  holdsAnyRole(roles: readonly string[]): Prisma.Sql;
  /** Pending and not yet expired, phrased so the planner walks (status, created_at, id) in order. */
  pendingAt(now: Date): Prisma.Sql;
};

/**
 * A cheap substring test that lets most non-matching rows skip the JSON
 * parse. Only for role names that every JSON writer spells the same way
 * (roleSchema allows no others); the JSON test after it decides exactly.
 */
function substringPrefilter(roles: readonly string[], fn: "instr" | "strpos"): Prisma.Sql | null {
  if (!roles.every((r) => /^[A-Za-z0-9_.:-]+$/.test(r))) return null;
  const tests = roles.map((r) => Prisma.sql`${Prisma.raw(fn)}(a.required_roles, ${JSON.stringify(r)}) > 0`);
  return Prisma.sql`(${Prisma.join(tests, " OR ")})`;
}

const POSTGRESQL: Dialect = {
  holdsAnyRole(roles) {
    const exact = Prisma.sql`(a.required_roles::jsonb ?| ARRAY[${Prisma.join(roles)}]::text[])`;
    const pre = substringPrefilter(roles, "strpos");
    return pre ? Prisma.sql`(${pre} AND ${exact})` : exact;
  },
  // The expression keeps the (status, expires_at) index out of it, as on SQLite.
  pendingAt: (now) => Prisma.sql`a.status = 'pending' AND (a.expires_at + interval '0 seconds') > ${now}`,
};

const SQLITE: Dialect = {
  holdsAnyRole(roles) {
    const exact = Prisma.sql`EXISTS (SELECT 1 FROM json_each(a.required_roles) r WHERE r.type = 'text' AND r.value IN (${Prisma.join(roles)}))`;
    const pre = substringPrefilter(roles, "instr");
    return pre ? Prisma.sql`(${pre} AND ${exact})` : exact;
  },
  // Unary + keeps SQLite (which has no statistics unless someone runs
  // ANALYZE) from picking the (status, expires_at) index and then sorting
  // every pending row for a page of 25.
  pendingAt: (now) => Prisma.sql`a.status = 'pending' AND +a.expires_at > ${now}`,
};

/** The fragments for the configured database. */
export function dialect(): Dialect {
  return env().databaseProvider === "postgresql" ? POSTGRESQL : SQLITE;
}
