// What a backup holds, learnt from the database itself rather than listed by
// hand: its tables, their columns and kinds, their primary keys and foreign
// keys (for the order rows are restored in, parents first). A table added by
// a migration is backed up without a change here; only the tables below,
// which hold nothing the product needs back, are left out.
import "server-only";

/**
 * Tables a snapshot leaves out: Prisma's migration history (the restoring
 * database has its own), per-minute rate-limit counters and the metrics
 * lease (both rebuilt within a minute; lib/rate-limit.ts, lib/metrics/lease.ts).
 */
export const NOT_BACKED_UP = ["_prisma_migrations", "rate_limit_buckets", "metrics_leases"] as const;

/**
 * How a column's values are written in a snapshot, whichever database they
 * came from: timestamps as ISO 8601 UTC text with milliseconds, booleans as
 * true/false, numbers as JSON numbers, text as text.
 */
export type ColumnKind = "timestamp" | "boolean" | "integer" | "number" | "text";

export type TableInfo = {
  name: string;
  columns: Array<{ name: string; kind: ColumnKind }>;
  primaryKey: string[];
  /** Tables this one's foreign keys point at. */
  parents: string[];
};

/** A declared SQLite type or a PostgreSQL data_type, as a kind. */
export function columnKind(declared: string): ColumnKind {
  const t = declared.toLowerCase();
  if (t.startsWith("timestamp") || t === "datetime" || t === "date") return "timestamp";
  if (t === "boolean" || t === "bool") return "boolean";
  if (/^(integer|int|bigint|smallint|int[248])$/.test(t)) return "integer";
  if (/^(real|double precision|double|float|numeric|decimal)/.test(t)) return "number";
  return "text";
}

/** Tables in an order where every table comes after the tables it points at (ties by name). */
export function dependencyOrder(tables: TableInfo[]): TableInfo[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const ordered: TableInfo[] = [];
  const visit = (t: TableInfo) => {
    if (done.has(t.name)) return;
    if (visiting.has(t.name)) throw new Error(`the foreign keys of table ${t.name} form a cycle; a snapshot cannot order its rows`);
    visiting.add(t.name);
    for (const p of [...t.parents].sort()) {
      const parent = byName.get(p);
      if (parent && p !== t.name) visit(parent);
    }
    visiting.delete(t.name);
    done.add(t.name);
    ordered.push(t);
  };
  for (const t of [...tables].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) visit(t);
  return ordered;
}

/** The tables a snapshot holds, from rows describing the schema (one query per database, below). */
export function tablesFrom(
  names: string[],
  columns: Array<{ table: string; name: string; type: string; pk: number }>,
  foreignKeys: Array<{ table: string; parent: string }>,
): TableInfo[] {
  const skip = new Set<string>(NOT_BACKED_UP);
  const tables = names
    .filter((n) => !skip.has(n))
    .map((name) => {
      const cols = columns.filter((c) => c.table === name);
      return {
        name,
        columns: cols.map((c) => ({ name: c.name, kind: columnKind(c.type) })),
        primaryKey: cols
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => c.name),
        parents: [...new Set(foreignKeys.filter((f) => f.table === name).map((f) => f.parent))],
      };
    });
  return dependencyOrder(tables);
}

export const SQLITE_SCHEMA = {
  tables: `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`,
  columns: `SELECT m.name AS "table", c.name AS name, c.type AS type, c.pk AS pk
            FROM sqlite_master m JOIN pragma_table_info(m.name) c WHERE m.type = 'table' ORDER BY m.name, c.cid`,
  foreignKeys: `SELECT m.name AS "table", f."table" AS parent FROM sqlite_master m JOIN pragma_foreign_key_list(m.name) f WHERE m.type = 'table'`,
};

export const POSTGRES_SCHEMA = {
  tables: `SELECT table_name AS name FROM information_schema.tables
           WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  columns: `SELECT c.table_name AS "table", c.column_name AS name, c.data_type AS type,
                   COALESCE((SELECT k.ordinal_position FROM information_schema.table_constraints tc
                     JOIN information_schema.key_column_usage k ON k.constraint_name = tc.constraint_name AND k.table_schema = tc.table_schema
                     WHERE tc.table_schema = c.table_schema AND tc.table_name = c.table_name AND tc.constraint_type = 'PRIMARY KEY'
                       AND k.column_name = c.column_name), 0)::int AS pk
            FROM information_schema.columns c WHERE c.table_schema = current_schema() ORDER BY c.table_name, c.ordinal_position`,
  foreignKeys: `SELECT child.relname AS "table", parent.relname AS parent FROM pg_constraint k
                JOIN pg_class child ON child.oid = k.conrelid JOIN pg_class parent ON parent.oid = k.confrelid
                WHERE k.contype = 'f' AND k.connamespace = current_schema()::regnamespace`,
};

/** `"name"`: identifiers come from the database's own catalogue, quoted for both dialects. */
export function quoted(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
