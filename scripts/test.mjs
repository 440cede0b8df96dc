// `npm test`: every test, in order: the workspace packages compiled, then
// lint (including the layer rules in eslint.config.mjs) and the format check,
// as they are the quickest to fail; then type check, a production build (the
// integration tests run against it), Vitest (unit, and integration over real
// HTTP on real SQLite, and on PostgreSQL when PG_TEST_URL is set, in a second
// process beside the first), then Playwright in Debian's Chromium against the
// built app. `npm test -- lint format` runs only those.
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { existsSync } from "node:fs";
import { chromiumLaunchOptions } from "../e2e/chromium.mjs";

const chromium = chromiumLaunchOptions.executablePath;
if (!existsSync(chromium)) {
  console.error(
    `npm test: Chromium not found at ${chromium}. The browser tests need Debian's package: ` +
      "`apt-get install -y chromium` (or set CHROMIUM_PATH).",
  );
  process.exit(1);
}
if (!process.env.PG_TEST_URL) {
  console.warn("npm test: PG_TEST_URL is not set; PostgreSQL tests will not run (SQLite only).");
}

const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
const steps = [
  // The app and the tests import the workspace packages from their built dist/.
  ["packages", ["scripts/build-packages.mjs"]],
  ["lint", ["node_modules/eslint/bin/eslint.js", "--max-warnings", "0", "."]],
  ["format", ["node_modules/prettier/bin/prettier.cjs", "--check", "--log-level", "warn", "."]],
  ["type check", ["node_modules/typescript/bin/tsc", "--noEmit", "-p", "."]],
  ["build", ["node_modules/next/dist/bin/next", "build"]],
  ["vitest", ["node_modules/vitest/vitest.mjs", "run"]],
  ["playwright", ["node_modules/@playwright/test/cli.js", "test"]],
];
const only = process.argv.slice(2);
/**
 * Vitest files run one at a time within a process (they share a database and
 * an app). The PostgreSQL files share nothing with the others (their own
 * database and app instances), so with PG_TEST_URL set they run in a second
 * process at the same time; each line of output is tagged with its process.
 */
async function vitestInTwo(args) {
  const postgresFiles = ["postgresql.test.ts", "test/db/migrations-drift.test.ts"];
  const runs = [
    {
      tag: "sqlite",
      args: [...args, "--exclude", "**/*.postgresql.test.ts", "--exclude", "test/db/migrations-drift.test.ts"],
      env: { ...env, PG_TEST_URL: "" },
    },
    { tag: "postgresql", args: [...args, ...postgresFiles], env: { ...env, COUNTERSIGN_TEST_PROVIDERS: "postgresql" } },
  ];
  const codes = await Promise.all(
    runs.map(
      (run) =>
        new Promise((resolve) => {
          const child = spawn(process.execPath, run.args, { env: run.env, stdio: ["ignore", "pipe", "pipe"] });
          for (const stream of [child.stdout, child.stderr]) {
            createInterface({ input: stream }).on("line", (line) => console.log(`[${run.tag}] ${line}`));
          }
          child.on("close", (code) => resolve(code ?? 1));
        }),
    ),
  );
  return codes.find((c) => c !== 0) ?? 0;
}

for (const [name, args] of steps) {
  if (only.length && !only.includes(name)) continue;
  console.log(`\n=== npm test: ${name} ===`);
  const started = Date.now();
  const status =
    name === "vitest" && process.env.PG_TEST_URL ? await vitestInTwo(args) : spawnSync(process.execPath, args, { stdio: "inherit", env }).status;
  console.log(`=== ${name}: ${status === 0 ? "ok" : "FAILED"} in ${((Date.now() - started) / 1000).toFixed(1)} s ===`);
  if (status !== 0) process.exit(status ?? 1);
}
