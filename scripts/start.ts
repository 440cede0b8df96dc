// `npm start`: prepare and run Countersign.
//
// Local mode (NODE_ENV not "production"): secrets missing from the
// environment are generated once into data/secrets.json, the credentials
// sign-in is on, and an empty database gets demo data. Production mode
// (NODE_ENV=production): every secret must be set, nothing is seeded.
// Either way: migrate, build if there is no build, then serve the build
// (scripts/server/serve.mjs: Next.js behind a custom server).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { whenParentGone } from "./server/when-parent-gone.mjs";
import { ConfigError, env } from "@/lib/env";
import { loadOrCreateLocalSecrets, SECRET_NAMES, VAPID_NAMES } from "@/lib/local-secrets";
import { prepareDatabase } from "@/lib/startup/prepare";
import { claimDataDir } from "@/lib/startup/data-dir";
import { db } from "@/lib/db/client";
import { DEMO_USERS, databaseIsEmpty, seedDemo, sendDemoRequests } from "@/lib/demo/seed";
import type { CreatedService } from "@/lib/services/manage-services";
import { readPolicyFile } from "@/lib/policies/policy-file";
import { policyFileNotes, syncPolicyFile } from "@/lib/policies/sync-policy-file";
import { syncFileGroupMappings } from "@/lib/groups/group-mappings";

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
    // Callbacks to a receiver on this machine (docs/security.md: local mode allows loopback).
    process.env.CALLBACK_ALLOW_LOOPBACK ??= "1";
    // Email without an SMTP server: kept in the local mailbox at /admin/outbox.
    process.env.NOTIFY_LOCAL_MAILBOX ??= "1";
    const secrets = loadOrCreateLocalSecrets(process.env.COUNTERSIGN_DATA_DIR ?? "./data");
    for (const n of SECRET_NAMES) process.env[n] ??= secrets[n];
    // Web Push's key pair too, unless the environment sets one (both or neither).
    if (VAPID_NAMES.every((n) => !process.env[n])) for (const n of VAPID_NAMES) process.env[n] = secrets[n];
  }
  const e = env();
  // Local mode keeps this instance's secrets and demo credentials in the
  // data directory: it must not be another database's (lib/startup/data-dir.ts).
  if (local) claimDataDir(e.COUNTERSIGN_DATA_DIR, e.DATABASE_URL, e.appUrl);
  // POLICY_FILE: validated before anything else (a bad entry stops start-up,
  // naming it), then made the policies table's only source.
  const policyFile = e.POLICY_FILE ? readPolicyFile(e.POLICY_FILE) : null;
  const migrated = await prepareDatabase();
  if (migrated.applied.length) console.log(`countersign: applied ${migrated.applied.length} migration(s)`);
  if (policyFile) {
    const sync = await syncPolicyFile(policyFile);
    console.log(
      `countersign: policies from ${policyFile.path}: ${policyFile.policies.length} in the file; ` +
        `${sync.created.length} created, ${sync.replaced.length} replaced, ${sync.deleted.length} deleted`,
    );
    // The file's group mappings replace the ones an earlier file made (an admin's own stay).
    const groups = await syncFileGroupMappings(policyFile.groups, policyFile.digest);
    if (groups.mapped.length || groups.unmapped.length)
      console.log(`countersign: group mappings from ${policyFile.path}: ${groups.mapped.length} mapped, ${groups.unmapped.length} unmapped`);
    // Mapped roles none of the file's policies uses: named, not refused (lib/policies/reachability.ts).
    for (const note of policyFileNotes(policyFile)) console.warn(`countersign: ${policyFile.path}: ${note}`);
  }

  const credentialsFile = join(e.COUNTERSIGN_DATA_DIR, "demo-credentials.json");
  let demoService: CreatedService | null = null;
  if (local && (await databaseIsEmpty())) {
    const seeded = await seedDemo();
    demoService = seeded.service;
    // Local-only convenience (git-ignored, mode 0600): the demo password and the
    // demo service's credentials, which `npm run demo:agent` uses.
    writeFileSync(credentialsFile, JSON.stringify({ password: seeded.password, service: seeded.service }, null, 2) + "\n", { mode: 0o600 });
    console.log("countersign: seeded demo users, service and policy");
  }
  await db().$disconnect();

  if (args.has("--build") || !existsSync(join(root, process.env.NEXT_DIST_DIR ?? ".next", "BUILD_ID"))) {
    console.log("countersign: building (first start only; takes a minute)…");
    const build = spawnSync(process.execPath, [nextBin, "build"], { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
    if (build.status !== 0) fail("build failed");
  }

  // Next's server behind a thin custom server that stamps each request with
  // the client's address (scripts/server/serve.mjs); plain Node, as `next start` runs.
  const child = spawn(
    process.execPath,
    [join(root, "scripts", "server", "serve.mjs"), String(e.PORT), String(e.TRUSTED_PROXY_HOPS), String(e.PAGE_RENDER_CONCURRENCY)],
    {
      stdio: "inherit",
      env: { ...process.env, ...serverMemoryEnv(e.HEAP_LIMIT_MIB), NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
    },
  );

  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  // Its own launcher gone (scripts/server/when-parent-gone.mjs): stop the server; its exit ends this process.
  whenParentGone(() => child.kill("SIGTERM"));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

  if (demoService) {
    const service = demoService;
    void waitUntilUp(`http://localhost:${e.PORT}`)
      .then(() => sendDemoRequests(`http://localhost:${e.PORT}`, service))
      .then((ids) => console.log(`countersign: sent ${ids.length} demo requests`))
      .catch((err: unknown) => console.error(`countersign: demo requests not sent: ${err instanceof Error ? err.message : String(err)}`));
  }

  console.log(`\ncountersign: listening on ${e.appUrl}`);
  if (local && existsSync(credentialsFile)) {
    const { password } = z.object({ password: z.string() }).parse(JSON.parse(readFileSync(credentialsFile, "utf8")));
    console.log(`countersign: sign in at ${e.appUrl}/signin`);
    console.log(`  admin:     ${DEMO_USERS.admin.email}`);
    console.log(`  reviewers: ${DEMO_USERS.reviewer1.email}, ${DEMO_USERS.reviewer2.email}`);
    console.log(`  requester: ${DEMO_USERS.requester.email}`);
    console.log(`  password (all demo users): ${password}   (stored in ${credentialsFile})\n`);
  }
}

/**
 * The server's memory settings. Its heap ceiling (HEAP_LIMIT_MIB), through
 * NODE_OPTIONS unless that already sets one: V8 sizes its heap from the
 * machine's memory, and under steady load it let garbage grow the process
 * past 800 MiB while its live objects stayed near 100 MiB (the soak,
 * docs/performance.md). And two malloc arenas unless MALLOC_ARENA_MAX is set:
 * glibc's default of eight per core keeps freed native memory (HTTP buffers,
 * crypto on the thread pool) resident.
 */
function serverMemoryEnv(heapLimitMib: number): Record<string, string> {
  const nodeOptions = process.env.NODE_OPTIONS ?? "";
  return {
    NODE_OPTIONS: /--max-old-space-size\b/.test(nodeOptions) ? nodeOptions : `${nodeOptions} --max-old-space-size=${heapLimitMib}`.trim(),
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? "2",
  };
}

async function waitUntilUp(baseUrl: string): Promise<void> {
  for (let i = 0; i < 120; i++) {
    try {
      if ((await fetch(`${baseUrl}/signin`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("server did not come up");
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) fail(err.message);
  fail(err instanceof Error ? err.message : String(err));
});
