// Throwaway PostgreSQL databases: a new database with a random name on the
// server a URL points at, and how to drop it again (WITH (FORCE): open
// connections do not keep it alive). Used by the tests, the bench, `npm run
// db:migration` and the schema engine stand-in's shadow database. Plain
// JavaScript, so plain-Node scripts can import it.
import { randomBytes } from "node:crypto";
import pg from "pg";

export const quoteIdent = (name) => `"${name.replaceAll('"', '""')}"`;

/** Runs one query on a connection of its own. */
export async function pgQuery(connectionString, sql) {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The same server and credentials, another database. */
export function pgUrlForDatabase(connectionUrl, database) {
  const parsed = new URL(connectionUrl);
  parsed.pathname = "/" + encodeURIComponent(database);
  return parsed.toString();
}

/** Creates `<prefix><random>` on the server of `serverUrl`. */
export async function createTemporaryDatabase(serverUrl, prefix) {
  const name = `${prefix}${randomBytes(6).toString("hex")}`;
  await pgQuery(serverUrl, `CREATE DATABASE ${quoteIdent(name)}`);
  return {
    name,
    url: pgUrlForDatabase(serverUrl, name),
    drop: async () => {
      await pgQuery(serverUrl, `DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    },
  };
}
