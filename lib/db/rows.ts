// Rows of a model's table through statements on the driver (sql.ts), with
// the columns and types read from the schema (lib/db/generated/tables.ts,
// written from prisma/models.prisma at install): a statement selects
// `columnsOf(model)` and gets back, from readRow, the same object Prisma's
// model API would give, whichever database and route the row came by.
import "server-only";
import { TABLES } from "./generated/tables";
import { asBool, asDate, placeholders, type Sql, type SqlParam, type SqlRow } from "./sql";

export type ModelName = keyof typeof TABLES;
type Columns<M extends ModelName> = (typeof TABLES)[M]["columns"];
type ValueOf<T extends string> = T extends `${infer Base}?` ? ScalarOf<Base> | null : ScalarOf<T>;
type ScalarOf<T extends string> = T extends "String"
  ? string
  : T extends "Int" | "Float" | "BigInt"
    ? number
    : T extends "Boolean"
      ? boolean
      : T extends "DateTime"
        ? Date
        : never;
/** A row of the model, as Prisma's model API gives it (its scalar fields). */
export type RowOf<M extends ModelName> = {
  -readonly [F in keyof Columns<M>]: Columns<M>[F] extends readonly [string, infer T extends string] ? ValueOf<T> : never;
};

/** The model's table name. */
export const tableOf = (model: ModelName): string => TABLES[model].table;

/** The model's column name for a field. */
export function columnOf<M extends ModelName>(model: M, field: keyof Columns<M> & string): string {
  return (TABLES[model].columns as Record<string, readonly [string, string]>)[field]![0];
}

const selectLists = new Map<string, string>();
/** `column AS "field", …` for every scalar field of the model; `alias` qualifies the columns (`n.id`). */
export function columnsOf(model: ModelName, alias?: string): string {
  const key = `${model}.${alias ?? ""}`;
  let list = selectLists.get(key);
  if (list === undefined) {
    const prefix = alias ? `${alias}.` : "";
    list = Object.entries(TABLES[model].columns as Record<string, readonly [string, string]>)
      .map(([field, [column]]) => `${prefix}${column} AS "${field}"`)
      .join(", ");
    selectLists.set(key, list);
  }
  return list;
}

/** A row selected with columnsOf(model), its timestamps as Dates and its booleans as booleans. */
export function readRow<M extends ModelName>(model: M, row: SqlRow): RowOf<M> {
  const out: SqlRow = { ...row };
  for (const [field, [, type]] of Object.entries(TABLES[model].columns as Record<string, readonly [string, string]>)) {
    const value = row[field];
    if (value === null || value === undefined) {
      out[field] = null;
      continue;
    }
    if (type.startsWith("DateTime")) out[field] = asDate(value);
    else if (type.startsWith("Boolean")) out[field] = asBool(value);
    else if (type.startsWith("Int") || type.startsWith("BigInt") || type.startsWith("Float")) out[field] = Number(value);
  }
  return out as RowOf<M>;
}

/** Values per statement at most: well inside SQLite's and PostgreSQL's limits on parameters. */
const MAX_PARAMS = 10_000;

/**
 * Inserts rows of the model, many to a statement; every row names the same
 * fields (those the caller sets: a column default of the schema that only
 * Prisma's client fills, such as now(), must be given). With `skipDuplicatesOf`,
 * a row whose value of that unique field exists already is left out, as a
 * second fan-out of the same message must be. Returns how many were inserted.
 */
export async function insertRows<M extends ModelName>(
  sql: Sql,
  model: M,
  rows: ReadonlyArray<Partial<RowOf<M>>>,
  { skipDuplicatesOf }: { skipDuplicatesOf?: keyof Columns<M> & string } = {},
): Promise<number> {
  if (rows.length === 0) return 0;
  const fields = Object.keys(rows[0]!) as Array<keyof Columns<M> & string>;
  const columns = fields.map((field) => columnOf(model, field)).join(", ");
  const tuple = `(${placeholders(fields.length)})`;
  const conflict = skipDuplicatesOf ? ` ON CONFLICT (${columnOf(model, skipDuplicatesOf)}) DO NOTHING` : "";
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS / fields.length));
  let inserted = 0;
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    const values = chunk.flatMap((row) => fields.map((field) => (row[field] ?? null) as SqlParam));
    inserted += await sql.run(`INSERT INTO ${tableOf(model)} (${columns}) VALUES ${chunk.map(() => tuple).join(", ")}${conflict}`, values);
  }
  return inserted;
}
