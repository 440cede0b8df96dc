// Prisma CLI configuration. DATABASE_URL alone selects the database: a
// postgresql:// URL uses the PostgreSQL schema and migrations, anything else
// the SQLite ones (the default, an embedded file under data/).
import { defineConfig } from "prisma/config";

const url = process.env.DATABASE_URL ?? "file:./data/countersign.db";
const provider = /^postgres(ql)?:\/\//.test(url) ? "postgresql" : "sqlite";

export default defineConfig({
  schema: `prisma/${provider}/schema.prisma`,
  migrations: { path: `prisma/${provider}/migrations` },
  datasource: { url, shadowDatabaseUrl: process.env.SHADOW_DATABASE_URL },
});
