// GET /api/metrics is off unless METRICS_TOKEN is set (docs/operations.md,
// "Metrics"): an instance without it answers 404 to every scrape, with any
// token. METRICS_TOKEN is validated with the rest of the configuration: a
// bearer token of 32 to 512 characters; anything else stops start-up with a
// message that names the variable and never repeats the value.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, parseEnv } from "@/lib/env";
import { generateSecrets } from "@/lib/local-secrets";
import { startAppServer, type AppServer } from "../helpers/app-server";
import { freshSqliteUrl } from "../helpers/databases";
import { freePort } from "../helpers/ports";

describe("METRICS_TOKEN", () => {
  const base = () => ({ ...generateSecrets(), NODE_ENV: "production" as const });

  it("is optional, and takes a bearer token of 32 to 512 characters", () => {
    expect(parseEnv(base()).METRICS_TOKEN).toBeUndefined();
    for (const token of [randomBytes(16).toString("hex"), randomBytes(64).toString("base64"), "a".repeat(512), `${"A1._~+/-".repeat(4)}==`]) {
      expect(parseEnv({ ...base(), METRICS_TOKEN: token }).METRICS_TOKEN).toBe(token);
    }
  });

  it("refuses anything else, naming the variable and not the value", () => {
    for (const token of ["", "short-token", "x".repeat(31), "a".repeat(513), `${"a".repeat(40)} b`, `${"a".repeat(40)}"`, `${"é".repeat(40)}`]) {
      let error: unknown;
      try {
        parseEnv({ ...base(), METRICS_TOKEN: token });
      } catch (e) {
        error = e;
      }
      expect(error, token).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/METRICS_TOKEN/);
      if (token.length > 0) expect((error as Error).message).not.toContain(token);
    }
  });
});

describe("GET /api/metrics without METRICS_TOKEN", () => {
  let app: AppServer;

  beforeAll(async () => {
    // The app inherits this process's environment: nothing may turn metrics on.
    delete process.env.METRICS_TOKEN;
    const env: Record<string, string> = {
      ...generateSecrets(),
      DATABASE_URL: freshSqliteUrl(),
      COUNTERSIGN_DATA_DIR: `.tmp/metrics-off`,
      LOG_LEVEL: "warn",
    };
    app = await startAppServer({ port: await freePort(), env });
  }, 180_000);

  afterAll(async () => app?.stop());

  it("answers 404 with the API's error body, whatever the credentials", async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: `Bearer ${randomBytes(32).toString("hex")}` },
      { authorization: "Bearer " },
    ];
    for (const headers of attempts) {
      const r = await fetch(`${app.baseUrl}/api/metrics`, { headers });
      expect(r.status).toBe(404);
      expect(await r.json()).toEqual({ error: "not-found" });
    }
  });
});
