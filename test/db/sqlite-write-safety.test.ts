// Regression test for the Prisma better-sqlite3 adapter hazard (STACK.md): a
// write issued while another request's interactive transaction is open must
// never be acknowledged and then rolled back with that transaction, and must
// never read its uncommitted rows.
import { beforeAll, describe, expect, it } from "vitest";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "@/lib/db/generated/sqlite/client";
import { createDb, SECRET_COLUMNS, type Db } from "@/lib/db/client";
import { migrate } from "@/lib/db/migrate";
import { freshSqliteUrl } from "../helpers/databases";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Opens a transaction that creates a role row, waits, and then fails (so it
 * rolls back), while `writers` plain writes run concurrently. Returns how
 * many of the acknowledged plain writes are still there afterwards, and
 * whether any concurrent read saw the transaction's uncommitted row.
 */
async function raceWritesAgainstRollback(client: Db, writers: number) {
  await client.user.create({ data: { id: "usr_tx", email: "tx@example.com" } });
  const tx = client
    .$transaction(async (t) => {
      await t.userRole.create({ data: { userId: "usr_tx", role: "uncommitted" } });
      await sleep(150);
      throw new Error("roll back on purpose");
    })
    .catch((e: Error) => e.message);

  await sleep(20); // the transaction is open now
  let sawUncommitted = false;
  const acknowledged = await Promise.all(
    Array.from({ length: writers }, async (_, i) => {
      const seen = await client.userRole.count({ where: { role: "uncommitted" } });
      if (seen > 0) sawUncommitted = true;
      await client.user.create({ data: { id: `usr_w${i}`, email: `w${i}@example.com` } });
      return `usr_w${i}`;
    }),
  );
  expect(await tx).toBe("roll back on purpose");
  const kept = await client.user.count({ where: { id: { in: acknowledged } } });
  return { acknowledged: acknowledged.length, kept, sawUncommitted };
}

describe("SQLite write safety", () => {
  let url: string;
  beforeAll(async () => {
    url = freshSqliteUrl();
    await migrate(url);
  });

  it("the hazard is real with the bare adapter (control: proves the test can fail)", async () => {
    const controlUrl = freshSqliteUrl();
    await migrate(controlUrl);
    const bare = new PrismaClient({ adapter: new PrismaBetterSqlite3({ url: controlUrl }), omit: SECRET_COLUMNS });
    try {
      const r = await raceWritesAgainstRollback(bare, 20);
      expect(r.kept < r.acknowledged || r.sawUncommitted).toBe(true);
    } finally {
      await bare.$disconnect();
    }
  });

  it("keeps every acknowledged write and hides uncommitted rows with our client", async () => {
    const client = createDb(url);
    try {
      const r = await raceWritesAgainstRollback(client, 50);
      expect(r).toEqual({ acknowledged: 50, kept: 50, sawUncommitted: false });
      expect(await client.userRole.count()).toBe(0);
    } finally {
      await client.$disconnect();
    }
  });

  it("serializes concurrent interactive transactions without losing increments", async () => {
    const client = createDb(url);
    try {
      await client.user.create({ data: { id: "usr_counter", email: "counter@example.com", name: "0" } });
      await Promise.all(
        Array.from({ length: 30 }, () =>
          client.$transaction(async (t) => {
            const u = await t.user.findUniqueOrThrow({ where: { id: "usr_counter" } });
            await sleep(1);
            await t.user.update({ where: { id: "usr_counter" }, data: { name: String(Number(u.name) + 1) } });
          }),
        ),
      );
      expect((await client.user.findUniqueOrThrow({ where: { id: "usr_counter" } })).name).toBe("30");
    } finally {
      await client.$disconnect();
    }
  });
});

describe("transaction misuse on SQLite", () => {
  it("fails at once, instead of deadlocking, when the plain client is used inside a transaction", async () => {
    const { transactionScope } = await import("@/lib/db/sqlite-adapter");
    const url = freshSqliteUrl();
    await migrate(url);
    const client = createDb(url);
    try {
      const started = Date.now();
      const outcome = await transactionScope
        .run(true, () => client.$transaction(async () => client.user.count()))
        .then(
          () => "completed",
          (e: Error) => e.message,
        );
      expect(outcome).toMatch(/use the transaction client/);
      // A deadlock would end only at Prisma's transaction timeout, with Prisma's
      // own error: the message above is what tells them apart; this bounds the rest.
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(await client.user.count()).toBe(0); // the client still works afterwards
    } finally {
      await client.$disconnect();
    }
  });
});

describe("a statement arriving after its transaction ended", () => {
  it("fails and is not committed on its own (Prisma's transaction timeout fired first)", async () => {
    const url = freshSqliteUrl();
    await migrate(url);
    const client = createDb(url);
    try {
      const outcome = await client
        .$transaction(
          async (t) => {
            await t.user.create({ data: { id: "usr_a", email: "a@example.com" } });
            await sleep(400); // the 150 ms timeout rolls the transaction back meanwhile
            await t.user.create({ data: { id: "usr_late", email: "late@example.com" } });
          },
          { timeout: 150 },
        )
        .then(
          () => "committed",
          () => "refused",
        );
      expect(outcome).toBe("refused");
      await sleep(100);
      expect(await client.user.count()).toBe(0);
    } finally {
      await client.$disconnect();
    }
  });
});
