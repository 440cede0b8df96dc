// The people a decision counts, as the authority check needs them
// (authority.ts): email, disabled flag, roles and linked identities, read
// inside the caller's transaction so a role revoked or an account disabled
// a moment ago counts. Plain statements, so the ingest's driver transaction
// and Prisma's both use it.
import "server-only";
import { asDateOrNull, placeholders, type Sql } from "../db/sql";
import type { Person } from "./authority";

/** The people with these ids, by id; an id that names nobody is missing from the map. */
export async function loadPeople(sql: Sql, ids: readonly string[]): Promise<Map<string, Person>> {
  const unique = [...new Set(ids)];
  const people = new Map<string, Person>();
  if (unique.length === 0) return people;
  const marks = placeholders(unique.length);
  const users = await sql.all<{ id: string; email: string; disabled_at: unknown }>(
    `SELECT id, email, disabled_at FROM users WHERE id IN (${marks})`,
    unique,
  );
  for (const u of users) people.set(u.id, { id: u.id, email: u.email, disabledAt: asDateOrNull(u.disabled_at), roles: [], identities: [] });
  // Roles (with their ends: authority.ts decides at its own clock) and identities in one round trip.
  const facts = await sql.all<{ user_id: string; kind: string; a: string | null; b: string | null; until: unknown }>(
    `SELECT user_id, 'role' AS kind, role AS a, NULL AS b, expires_at AS until FROM user_roles WHERE user_id IN (${marks})
     UNION ALL
     SELECT user_id, 'identity' AS kind, email AS a, subject AS b, NULL AS until FROM identities WHERE user_id IN (${marks})`,
    [...unique, ...unique],
  );
  for (const f of facts) {
    const p = people.get(f.user_id);
    if (!p) continue;
    if (f.kind === "role") p.roles.push({ role: f.a!, expiresAt: asDateOrNull(f.until) });
    else p.identities.push({ email: f.a, subject: f.b! });
  }
  return people;
}

export async function loadPerson(sql: Sql, id: string): Promise<Person | null> {
  return (await loadPeople(sql, [id])).get(id) ?? null;
}
