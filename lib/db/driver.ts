// Which driver a Prisma client runs on (the better-sqlite3 adapter's factory,
// or the pg pool), for the statements lib/db/sql.ts sends past Prisma. Its
// own module so that client.ts, which registers it, and sql.ts, which reads
// it, do not import each other.
import "server-only";
import type pg from "pg";
import type { SerializedSqliteAdapterFactory } from "./sqlite-adapter";

/** Where the direct statements of a Prisma client go (registered by createDb). */
export type Driver = { kind: "sqlite"; factory: SerializedSqliteAdapterFactory } | { kind: "postgresql"; pool: pg.Pool };

// On the client object itself: a Next.js build can hold two copies of this
// module (one per route bundle), and both must find the driver of the one client.
const DRIVER = Symbol.for("countersign.db.driver");

export function registerDriver(client: object, driver: Driver): void {
  Object.defineProperty(client, DRIVER, { value: driver, enumerable: false });
}

export function driverOf(client: object): Driver {
  const driver = (client as { [DRIVER]?: Driver })[DRIVER];
  if (!driver) throw new Error("this database client has no registered driver");
  return driver;
}
