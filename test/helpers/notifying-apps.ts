// The built app as the notification suites run it: one instance on SQLite,
// two sharing the database on PostgreSQL (each message must still go out
// once), behind one public address, with this process pointed at the same
// database for fixtures and direct checks. Call inside a describe; the
// suite's own receivers (SMTP server, push service, webhook receiver) are
// started in an earlier beforeAll, so `env` may read their addresses.
import { afterAll, beforeAll } from "vitest";
import { generateSecrets } from "@/lib/local-secrets";
import { startAppServer, type AppServer } from "./app-server";
import { freshDatabaseUrl, type Provider } from "./databases";
import { freePort } from "./ports";

export type NotifyingApps = {
  /** The deployment's secrets (VAPID keys included), known before the apps start. */
  secrets: ReturnType<typeof generateSecrets>;
  servers: AppServer[];
  appUrl: string;
  f: typeof import("./fixtures");
  db: import("@/lib/db/client").Db;
  recordReview: typeof import("@/lib/reviews/record-review").recordReview;
};

export function useNotifyingApps(
  provider: Provider,
  options: {
    /** Names the instances' data directory under .tmp/. */
    name: string;
    /** The apps' environment beyond the database and secrets. */
    env: () => Record<string, string>;
    /** What this process needs beyond the database, secrets and APP_URL. */
    processEnv?: () => Record<string, string>;
  },
): NotifyingApps {
  const apps = { secrets: generateSecrets(), servers: [] as AppServer[], appUrl: "" } as NotifyingApps;
  let dropDatabase = async () => undefined as void;

  beforeAll(async () => {
    const database = await freshDatabaseUrl(provider);
    dropDatabase = database.drop;
    const env = {
      ...apps.secrets,
      DATABASE_URL: database.url,
      COUNTERSIGN_DATA_DIR: `.tmp/${options.name}-${provider}`,
      LOG_LEVEL: "warn",
      NOTIFY_RETRY_BASE_MS: "300",
      ...options.env(),
    };
    const port = await freePort();
    // One public address (APP_URL), as behind a load balancer: links in messages use it.
    const publicUrl = `http://localhost:${port}`;
    apps.servers.push(await startAppServer({ port, env, publicUrl }));
    if (provider === "postgresql") apps.servers.push(await startAppServer({ port: await freePort(), env, publicUrl }));
    apps.appUrl = apps.servers[0]!.baseUrl;
    Object.assign(process.env, { ...apps.secrets, DATABASE_URL: database.url, APP_URL: apps.appUrl, ...options.processEnv?.() });
    apps.f = await import("./fixtures");
    apps.db = (await import("@/lib/db/client")).db();
    apps.recordReview = (await import("@/lib/reviews/record-review")).recordReview;
  }, 240_000);

  afterAll(async () => {
    await Promise.all(apps.servers.map((s) => s.stop()));
    await apps.db?.$disconnect();
    await dropDatabase();
  });

  return apps;
}
