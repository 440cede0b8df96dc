// The 503-versus-500 decision rests on recognising "the database is away" in
// every shape a real client reports it. A real Prisma client on a real
// PostgreSQL, through a TCP proxy that is cut again and again while eight
// workers run interactive transactions (model and raw statements), plain
// queries and raw queries: every error they see must be classified as
// unavailable, and once the proxy is back every worker succeeds again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "@/lib/db/unavailable";
import { PG_TEST_URL, useFreshDatabase } from "../helpers/databases";
import { databaseProxy, targetOf, urlThroughProxy, type DatabaseProxy } from "../helpers/database-proxy";

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(PG_TEST_URL)("database errors while the connection is cut (postgresql)", () => {
  let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
  let proxy: DatabaseProxy;
  let port: number;

  beforeAll(async () => {
    ctx = await useFreshDatabase("postgresql");
    proxy = databaseProxy(targetOf(ctx.url));
    port = await proxy.start();
  }, 60_000);

  afterAll(async () => {
    await proxy?.stop();
    await ctx?.close();
  });

  it("classifies every error a real client reports as unavailable, and recovers", async () => {
    const { createDb } = await import("@/lib/db/client");
    const client = createDb(urlThroughProxy(ctx.url, port));
    const errors: unknown[] = [];
    let successes = 0;
    let stop = false;
    const attempt = async (op: () => Promise<unknown>) => {
      try {
        await op();
        successes++;
      } catch (e) {
        errors.push(e);
      }
    };
    const workers = Array.from({ length: 8 }, async () => {
      while (!stop) {
        await attempt(() =>
          client.$transaction(async (tx) => {
            await tx.user.count();
            await tx.$executeRawUnsafe("select 1");
            await tx.$queryRawUnsafe("select 1 as one from pg_sleep(0.01)");
            await tx.user.findMany({ take: 1 });
          }),
        );
        await attempt(() => client.user.count());
        await attempt(() => client.$queryRawUnsafe("select 1"));
        await pause(5);
      }
    });

    for (let i = 0; i < 30; i++) {
      await pause(100 + Math.random() * 250);
      await proxy.cut();
      await pause(50 + Math.random() * 150);
      await proxy.start();
    }
    stop = true;
    await Promise.all(workers);

    const shapeOf = (e: unknown) => {
      const x = e as { name?: string; code?: string; cause?: { kind?: string }; meta?: { driverAdapterError?: { cause?: { kind?: string } } } };
      return [x.name, x.code, x.cause?.kind ?? x.meta?.driverAdapterError?.cause?.kind].filter(Boolean).join(" ");
    };
    const counts = new Map<string, number>();
    for (const e of errors) counts.set(shapeOf(e), (counts.get(shapeOf(e)) ?? 0) + 1);
    console.log(`${successes} operations succeeded, ${errors.length} failed: ${JSON.stringify(Object.fromEntries(counts))}`);

    expect(errors.length).toBeGreaterThan(30);
    const unclassified = errors.filter((e) => !isDatabaseUnavailable(e));
    expect(unclassified.map((e) => `${shapeOf(e)}: ${String((e as Error).message).slice(0, 120)}`)).toEqual([]);

    // Back for good: the same client serves every kind of statement again.
    const back = await Promise.all([
      client.$transaction(async (tx) => tx.user.count()),
      client.user.count(),
      client.$queryRawUnsafe<{ one: number }[]>("select 1 as one"),
    ]);
    expect(back[2]).toEqual([{ one: 1 }]);
    await client.$disconnect();
  }, 120_000);

  it("does not take a bug for an outage", () => {
    expect(isDatabaseUnavailable(new TypeError("Cannot read properties of undefined"))).toBe(false);
    expect(isDatabaseUnavailable({ code: "P2002", meta: { target: ["email"] } })).toBe(false);
    expect(isDatabaseUnavailable({ name: "DriverAdapterError", cause: { kind: "UniqueConstraintViolation" } })).toBe(false);
    expect(isDatabaseUnavailable({ name: "DriverAdapterError", cause: { kind: "postgres", code: "42P01" } })).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});
