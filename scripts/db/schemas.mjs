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

export function writeSchemas() {
  for (const provider of PROVIDERS) {
    const path = schemaPath(provider);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, renderSchema(provider));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeSchemas();
