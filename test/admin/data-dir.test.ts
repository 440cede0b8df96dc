// One data directory, one instance (lib/startup/data-dir.ts), as a user meets
// it: the admin command line without DATABASE_URL manages the database of the
// server whose data directory it is given; one naming another database is
// refused before anything is opened (no new empty database appears); a
// second `npm start` on another database refuses a data directory that
// belongs to an instance; and the same database takes its own directory back.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFile } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSecrets } from "@/lib/local-secrets";
import { claimDataDir, databaseForDataDir, databaseIdentity, readInstance } from "@/lib/startup/data-dir";
import { useFreshDatabase } from "../helpers/databases";
import { runAdminCli } from "../helpers/admin-cli";
import { entryPointArgs } from "../helpers/entry-points";

const fresh = (name: string) => mkdtempSync(join(tmpdir(), `cs-${name}-`));

describe("the data directory names its instance's database", () => {
  it("tells databases apart by what they are, never by a password", () => {
    expect(databaseIdentity("file:./data/x.db", "/srv/app")).toBe("sqlite:/srv/app/data/x.db");
    expect(databaseIdentity("file:/srv/app/data/x.db", "/elsewhere")).toBe("sqlite:/srv/app/data/x.db");
    // The file the app opens: the whole text after "file:".
    expect(databaseIdentity("file:x.db?mode=rwc", "/srv")).toBe("sqlite:/srv/x.db?mode=rwc");
    expect(databaseIdentity("postgresql://app:s3cret@db.internal/countersign")).toBe("postgresql://app@db.internal:5432/countersign");
    expect(databaseIdentity("postgres://app@db.internal:6432/countersign")).toBe("postgresql://app@db.internal:6432/countersign");
    // A parameter that changes where node-postgres connects is part of it; a password in the query is not.
    expect(databaseIdentity("postgresql://app@localhost/cs?sslmode=require&host=prod.internal&password=s3cret")).toBe(
      "postgresql://app@localhost:5432/cs?host=prod.internal&sslmode=require",
    );
    expect(databaseIdentity("postgresql://app@localhost/cs?host=prod.internal")).not.toBe(databaseIdentity("postgresql://app@localhost/cs"));
  });

  it("is claimed by the first instance, kept by the same database, refused to another, and never holds a password", () => {
    const dir = fresh("claim");
    claimDataDir(dir, "postgresql://app:s3cret@db.internal/cs", "http://localhost:3000");
    expect(readInstance(dir)).toEqual({ database: "postgresql://app@db.internal:5432/cs", app_url: "http://localhost:3000" });
    expect(readFileSync(join(dir, "instance.json"), "utf8")).not.toContain("s3cret");
    // The same database (a restart, on another port): taken over, with its new address.
    claimDataDir(dir, "postgresql://app:other@db.internal:5432/cs", "http://localhost:4000");
    expect(readInstance(dir)?.app_url).toBe("http://localhost:4000");
    // A password in the query is not written either.
    const query = fresh("claim-query");
    claimDataDir(query, "postgresql://app@db.internal/cs?password=s3cret", "http://localhost:3000");
    expect(readFileSync(join(query, "instance.json"), "utf8")).not.toContain("s3cret");
    expect(readInstance(query)).toEqual({ database: "postgresql://app@db.internal:5432/cs", app_url: "http://localhost:3000" });
    expect(() => claimDataDir(dir, "file:./other.db", "http://localhost:3001")).toThrow(
      /the data directory .* belongs to the instance on postgresql:\/\/app@db\.internal:5432\/cs, and this one is configured for sqlite:/,
    );
    // A file Countersign did not write is named, not trusted.
    writeFileSync(join(dir, "instance.json"), "{not json");
    expect(() => readInstance(dir)).toThrow(/instance\.json is not an instance file Countersign wrote/);
  });

  it("gives the command line the instance's database, its own when they agree, and refuses when they differ", () => {
    const dir = fresh("cli");
    expect(databaseForDataDir(dir, undefined)).toBeUndefined();
    expect(databaseForDataDir(dir, "file:./a.db")).toBe("file:./a.db");
    claimDataDir(dir, `file:${join(dir, "server.db")}`, "http://localhost:3000");
    expect(databaseForDataDir(dir, undefined)).toBe(`file:${join(dir, "server.db")}`);
    expect(databaseForDataDir(dir, `file:${join(dir, "server.db")}`)).toBe(`file:${join(dir, "server.db")}`);
    // A relative SQLite URL is stored by its absolute path: the command line finds it from any directory.
    const relative = fresh("cli-relative");
    claimDataDir(relative, "file:./elsewhere/countersign.db", "http://localhost:3000");
    expect(databaseForDataDir(relative, undefined)).toBe(`file:${join(process.cwd(), "elsewhere", "countersign.db")}`);
    // A file edited to name another database than its own is not followed.
    writeFileSync(
      join(relative, "instance.json"),
      JSON.stringify({ database: "sqlite:/srv/a.db", database_url: "file:/srv/b.db", app_url: "http://x" }),
    );
    expect(() => databaseForDataDir(relative, undefined)).toThrow("uses sqlite:/srv/a.db: set DATABASE_URL");
    expect(() => databaseForDataDir(dir, "file:./somewhere-else.db")).toThrow(
      /DATABASE_URL names sqlite:.*somewhere-else\.db, but the server whose data directory is/,
    );
    // A server on PostgreSQL with a password: the command line is told to bring it.
    const pg = fresh("cli-pg");
    claimDataDir(pg, "postgresql://app:s3cret@db.internal/cs", "http://localhost:3000");
    expect(() => databaseForDataDir(pg, undefined)).toThrow(
      "uses postgresql://app@db.internal:5432/cs: set DATABASE_URL to that database (with its password)",
    );
    expect(databaseForDataDir(pg, "postgresql://app:s3cret@db.internal/cs")).toBe("postgresql://app:s3cret@db.internal/cs");
  });
});

describe("the admin command line and npm start against a data directory", () => {
  let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
  const secrets = generateSecrets();
  const dir = fresh("instance");

  beforeAll(async () => {
    ctx = await useFreshDatabase("sqlite");
    // The instance npm start would have recorded for this database.
    claimDataDir(dir, ctx.url, "http://localhost:3999");
  });
  afterAll(async () => ctx?.close());

  // Local mode, as a user's shell has it: no NODE_ENV, the secrets from the environment.
  const localEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => {
    const { NODE_ENV: _mode, DATABASE_URL: _url, ...rest } = process.env;
    return { ...rest, ...secrets, COUNTERSIGN_DATA_DIR: dir, ...extra } as unknown as NodeJS.ProcessEnv;
  };

  it("without DATABASE_URL manages the server's database", async () => {
    const r = await runAdminCli(["service", "add", "--slug", "found-it"], localEnv({}));
    expect(r.code, r.stderr).toBe(0);
    expect(await ctx.db.service.count({ where: { slug: "found-it" } })).toBe(1);
  });

  it("refuses a DATABASE_URL naming another database, before opening it: no new database appears", async () => {
    const elsewhere = join(fresh("elsewhere"), "new.db");
    const r = await runAdminCli(["service", "add", "--slug", "lost"], localEnv({ DATABASE_URL: `file:${elsewhere}` }));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`error: DATABASE_URL names sqlite:${elsewhere}, but the server whose data directory is ${dir} uses sqlite:`);
    expect(existsSync(elsewhere)).toBe(false);
    expect(await ctx.db.service.count({ where: { slug: "lost" } })).toBe(0);
  });

  it("npm start on another database refuses the data directory, naming both, and creates nothing", async () => {
    const elsewhere = join(fresh("second"), "second.db");
    const r = await new Promise<{ code: number; out: string }>((resolve) =>
      execFile(
        process.execPath,
        entryPointArgs("start"),
        { env: localEnv({ DATABASE_URL: `file:${elsewhere}`, PORT: "3998" }), timeout: 60_000 },
        (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, out: stdout + stderr }),
      ),
    );
    expect(r.code).toBe(1);
    expect(r.out).toContain(`countersign: the data directory ${dir} belongs to the instance on sqlite:`);
    expect(r.out).toContain(
      `and this one is configured for sqlite:${elsewhere}. Give this instance a data directory of its own (COUNTERSIGN_DATA_DIR)`,
    );
    expect(existsSync(elsewhere)).toBe(false);
    expect(readInstance(dir)?.app_url).toBe("http://localhost:3999");
  });
});
