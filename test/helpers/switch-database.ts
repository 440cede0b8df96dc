// Moves this test file's process from one database to another, for suites
// that take something out of one database and put it into another (a backup
// restored elsewhere): the process-wide client is closed, the configuration
// read again and every module loaded afresh, as in a new process. Import
// lib/ modules again after each switch (the earlier imports keep the old
// database).
import { vi } from "vitest";

export async function switchDatabase(url: string): Promise<void> {
  const { db } = await import("@/lib/db/client");
  await db()
    .$disconnect()
    .catch(() => undefined);
  delete (globalThis as { countersignDb?: unknown }).countersignDb;
  process.env.DATABASE_URL = url;
  vi.resetModules();
  const { prepareDatabase } = await import("@/lib/startup/prepare");
  await prepareDatabase();
}
