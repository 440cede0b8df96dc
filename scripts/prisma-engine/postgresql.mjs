// PostgreSQL side of the stand-in schema engine: the driver adapter handed to
// the WASM engine (with fixes for adapter-pg's gaps) and the mapping of
// connection errors to Prisma's error codes.
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { createTemporaryDatabase, pgQuery } from "../db/temporary-database.mjs";

// pg reads the catalog's internal "char" type (OID 18, e.g. pg_class.relkind)
// as text, but adapter-pg rejects the OID as unsupported: call it text (25).
const addFields = pg.Result.prototype.addFields;
pg.Result.prototype.addFields = function (fields) {
  for (const field of fields) if (field.dataTypeID === 18) field.dataTypeID = 25;
  return addFields.call(this, fields);
};

export function pgFactory(url, shadowUrl) {
  const connect = async (connectionString) => {
    const adapter = await new PrismaPg({ connectionString }).connect();
    // adapter-pg splits scripts at every ";", even inside string literals and
    // function bodies: send a migration whole, as one simple-protocol query.
    adapter.executeScript = async (script) => {
      try {
        await adapter.underlyingDriver().query(script);
      } catch (error) {
        adapter.onError(error);
      }
    };
    return adapter;
  };
  return {
    provider: "postgres",
    adapterName: "@prisma/adapter-pg",
    connect: () => connect(url),
    // adapter-pg's own shadow database is unusable: its connection string
    // overrides the shadow database name (so it would replay into the main
    // database), and it drops the database before closing its pool ("is being
    // accessed by other users"). Create and drop it here instead.
    connectToShadowDb: async () => {
      if (shadowUrl) {
        // A configured shadow database is emptied first, as the native engine does.
        await pgQuery(shadowUrl, "DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public");
        return connect(shadowUrl);
      }
      const shadow = await createTemporaryDatabase(url, "prisma_migrate_shadow_db_");
      const adapter = await connect(shadow.url);
      const dispose = adapter.dispose.bind(adapter);
      adapter.dispose = async () => {
        await dispose();
        await shadow.drop();
      };
      return adapter;
    },
  };
}

export function pgErrorCode(error) {
  if (error.code === "3D000") return "P1003";
  if (error.code === "28P01" || error.code === "28000") return "P1000";
  if (["ECONNREFUSED", "ENOTFOUND", "ETIMEDOUT", "EHOSTUNREACH"].includes(error.code)) return "P1001";
  return undefined;
}
