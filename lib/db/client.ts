// The one Prisma client. DATABASE_URL alone picks the database: a client is
// generated per provider from the same models (prisma/models.prisma), so the
// two expose the same API and we type both as the SQLite one.
import "server-only";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient as PgClient } from "./generated/postgresql/client";
import { Prisma, PrismaClient as SqliteClient } from "./generated/sqlite/client";
import { SerializedSqliteAdapterFactory } from "./sqlite-adapter";
import { databaseProviderOf, env } from "../env";
import { registerDriver } from "./driver";
import { errorFields, log } from "../log";

// Secret columns stay out of every query unless a caller asks for them by name.
export const SECRET_COLUMNS = {
  user: { passwordHash: true },
  service: {
    apiTokenHash: true,
    apiTokenPrevHash: true,
    webhookSecretEnc: true,
    webhookSecretPrevEnc: true,
    callbackSecretEnc: true,
    callbackSecretPrevEnc: true,
  },
  signingKey: { privateJwkEnc: true },
  scimToken: { tokenHash: true },
} satisfies Prisma.GlobalOmitConfig;

export function createDb(url: string) {
  if (databaseProviderOf(url) === "postgresql") {
    // One pool for Prisma and the direct statements (lib/db/sql.ts); $disconnect ends it.
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    // An idle connection that drops is replaced on next use; unheard, the error would end the process.
    pool.on("error", (e) => log.warn("an idle database connection failed", errorFields(e)));
    const client = new PgClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }), omit: SECRET_COLUMNS });
    registerDriver(client, { kind: "postgresql", pool });
    // Same models, same generated API: only the SQL dialect differs.
    return client as unknown as SqliteClient<never, typeof SECRET_COLUMNS>;
  }
  const factory = new SerializedSqliteAdapterFactory(new PrismaBetterSqlite3({ url, timeout: 5000 }));
  const client = new SqliteClient({ adapter: factory, omit: SECRET_COLUMNS });
  registerDriver(client, { kind: "sqlite", factory });
  return client;
}

export type Db = ReturnType<typeof createDb>;
/** A transaction client, or the client itself: repositories accept either. */
export type Tx = Omit<Db, "$connect" | "$disconnect" | "$on" | "$use" | "$extends">;

const globalForDb = globalThis as unknown as { countersignDb?: Db };

/** The process-wide client, created on first use (so builds need no database). */
export function db(): Db {
  globalForDb.countersignDb ??= createDb(env().DATABASE_URL);
  return globalForDb.countersignDb;
}

export { Prisma };
