// Integration tests talk to the real app over real HTTP: one instance on a
// fresh SQLite file, and one on a fresh PostgreSQL database when PG_TEST_URL
// is set. Tests learn where they are through inject("apps"). A TLS
// certificate for this machine is made first and trusted by every process
// of the run (test/helpers/test-tls.ts).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { generateSecrets } from "../lib/local-secrets";
import { freshDatabaseUrl, providers, type Provider } from "./helpers/databases";
import { startAppServer, type AppServer } from "./helpers/app-server";
import { freePort } from "./helpers/ports";
import { BUNDLES_ENV, bundleEntryPoints } from "./helpers/entry-points";
import { installTestCertificate } from "./helpers/test-tls";

/** On PostgreSQL a second instance shares the database (several stateless instances). */
export type AppUnderTest = { provider: Provider; baseUrl: string; secondBaseUrl: string | null; env: Record<string, string> };

declare module "vitest" {
  export interface ProvidedContext {
    apps: AppUnderTest[];
  }
}

export default async function setup(project: TestProject) {
  // Before any app starts or any test file runs: test processes inherit the variable.
  const bundles = `.tmp/test-bundles-${process.pid}`;
  await bundleEntryPoints(bundles);
  process.env[BUNDLES_ENV] = bundles;
  // Before any worker or app starts: they trust it from their start (test/helpers/test-tls.ts).
  const tlsDir = mkdtempSync(join(tmpdir(), "cs-tls-"));
  installTestCertificate(tlsDir);
  const secrets = generateSecrets();
  // GET /api/metrics is on in the test apps (test/metrics reads it with this token).
  const metricsToken = randomBytes(32).toString("hex");
  const started: Array<{ server: AppServer; drop: () => Promise<void> }> = [];
  const apps: AppUnderTest[] = [];
  for (const provider of providers()) {
    const db = await freshDatabaseUrl(provider);
    const env = {
      ...secrets,
      DATABASE_URL: db.url,
      // Per process: `npm test` runs several Vitest processes at once.
      COUNTERSIGN_DATA_DIR: `.tmp/it-${provider}-${process.pid}`,
      AUTH_CREDENTIALS: "1",
      LOG_LEVEL: "warn",
      CALLBACK_RETRY_BASE_MS: "300",
      METRICS_TOKEN: metricsToken,
    };
    const server = await startAppServer({ port: await freePort(), env });
    const second = provider === "postgresql" ? await startAppServer({ port: await freePort(), env }) : null;
    started.push({ server, drop: db.drop });
    if (second) started.unshift({ server: second, drop: async () => undefined });
    apps.push({
      provider,
      baseUrl: server.baseUrl,
      secondBaseUrl: second?.baseUrl ?? null,
      env: { ...secrets, DATABASE_URL: db.url, APP_URL: server.baseUrl, METRICS_TOKEN: metricsToken },
    });
  }
  project.provide("apps", apps);
  return async () => {
    for (const { server, drop } of started) {
      await server.stop();
      await drop();
    }
    rmSync(bundles, { recursive: true, force: true });
    rmSync(tlsDir, { recursive: true, force: true });
  };
}
