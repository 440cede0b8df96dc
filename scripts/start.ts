// `npm start`: prepare and run Countersign.
//
// Local mode (NODE_ENV not "production"): secrets missing from the
// environment are generated once into data/secrets.json, the credentials
// sign-in is on, and an empty database gets demo data. Production mode
// (NODE_ENV=production): every secret must be set, nothing is seeded.
// Either way: migrate, build if there is no build, then `next start`.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, env } from "@/lib/env";
import { loadOrCreateLocalSecrets, SECRET_NAMES } from "@/lib/local-secrets";
import { prepareDatabase } from "@/lib/db/prepare";
import { db } from "@/lib/db/client";
import { DEMO_USERS, databaseIsEmpty, seedDemoUsers } from "@/lib/demo/seed";

const root = process.cwd();
const nextBin = join(root, "node_modules", "next", "dist", "bin", "next");
const local = process.env.NODE_ENV !== "production";
const args = new Set(process.argv.slice(2));

function fail(message: string): never {
  process.stderr.write(`countersign: ${message}\n`);
  process.exit(1);
}

async function main() {
  if (local) {
    process.env.AUTH_CREDENTIALS ??= "1";
    const secrets = loadOrCreateLocalSecrets(process.env.COUNTERSIGN_DATA_DIR ?? "./data");
    for (const n of SECRET_NAMES) process.env[n] ??= secrets[n];
  }
  const e = env();
  const migrated = await prepareDatabase();
  if (migrated.applied.length) console.log(`countersign: applied ${migrated.applied.length} migration(s)`);

  const credentialsFile = join(e.COUNTERSIGN_DATA_DIR, "demo-credentials.json");
  if (local && (await databaseIsEmpty())) {
    const { password } = await seedDemoUsers();
    writeFileSync(credentialsFile, JSON.stringify({ password }) + "\n", { mode: 0o600 });
    console.log("countersign: seeded demo users");
  }
  await db().$disconnect();

  if (args.has("--build") || !existsSync(join(root, ".next", "BUILD_ID"))) {
    console.log("countersign: building (first start only; takes a minute)…");
    const build = spawnSync(process.execPath, [nextBin, "build"], { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
    if (build.status !== 0) fail("build failed");
  }

  const child = spawn(process.execPath, [nextBin, "start", "-p", String(e.PORT)], {
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

  console.log(`\ncountersign: listening on ${e.appUrl}`);
  if (local && existsSync(credentialsFile)) {
    const { password } = JSON.parse(readFileSync(credentialsFile, "utf8")) as { password: string };
    console.log(`countersign: sign in at ${e.appUrl}/signin`);
    console.log(`  admin:     ${DEMO_USERS.admin.email}`);
    console.log(`  reviewers: ${DEMO_USERS.reviewer1.email}, ${DEMO_USERS.reviewer2.email}`);
    console.log(`  requester: ${DEMO_USERS.requester.email}`);
    console.log(`  password (all demo users): ${password}   (stored in ${credentialsFile})\n`);
  }
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) fail(err.message);
  fail(err instanceof Error ? err.message : String(err));
});
