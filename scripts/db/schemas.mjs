// Writes the per-provider Prisma schemas from the one source, prisma/models.prisma.
// A Prisma client is generated for one provider, so each database gets its own
// schema file, client and migrations; the models are shared text.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const PROVIDERS = ["sqlite", "postgresql"];

export function renderSchema(provider) {
  const models = readFileSync(join(root, "prisma", "models.prisma"), "utf8");
  return [
    "// GENERATED from prisma/models.prisma by scripts/db/schemas.mjs. Do not edit.",
    "",
    "generator client {",
    '  provider = "prisma-client"',
    `  output   = "../../lib/db/generated/${provider}"`,
    '  moduleFormat = "esm"',
    "}",
    "",
    "datasource db {",
    `  provider = "${provider}"`,
    "}",
    "",
    models,
  ].join("\n");
}

export function schemaPath(provider) {
  return join(root, "prisma", provider, "schema.prisma");
}

const SCALARS = new Set(["String", "Int", "BigInt", "Float", "Boolean", "DateTime"]);

/**
 * Each model's table and its scalar fields' columns and types, read from
 * prisma/models.prisma: what statements on the driver (lib/db/rows.ts)
 * select and read back, so no column list repeats the schema by hand.
 */
export function readTables(models = readFileSync(join(root, "prisma", "models.prisma"), "utf8")) {
  const tables = {};
  for (const [, model, body] of models.matchAll(/^model (\w+) \{\n([\s\S]*?)^\}/gm)) {
    const columns = {};
    let table = model;
    for (const raw of body.split("\n")) {
      const line = raw.replace(/\/\/.*$/, "").trim();
      const tableMap = /^@@map\("([^"]+)"\)/.exec(line);
      if (tableMap) table = tableMap[1];
      const field = /^(\w+)\s+(\w+)(\?)?(?:\s|$)/.exec(line);
      if (!field || !SCALARS.has(field[2])) continue;
      const column = /@map\("([^"]+)"\)/.exec(line)?.[1] ?? field[1];
      columns[field[1]] = [column, `${field[2]}${field[3] ?? ""}`];
    }
    tables[model] = { table, columns };
  }
  return tables;
}

export function renderTables() {
  return [
    "// GENERATED from prisma/models.prisma by scripts/db/schemas.mjs. Do not edit.",
    "// Each model's table, and each scalar field's column and type.",
    `export const TABLES = ${JSON.stringify(readTables(), null, 2)} as const;`,
    "",
  ].join("\n");
}

export function writeSchemas() {
  for (const provider of PROVIDERS) {
    const path = schemaPath(provider);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, renderSchema(provider));
  }
  const tables = join(root, "lib", "db", "generated", "tables.ts");
  mkdirSync(dirname(tables), { recursive: true });
  writeFileSync(tables, renderTables());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeSchemas();
