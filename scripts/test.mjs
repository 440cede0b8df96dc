// `npm test`: every test, in order: the workspace packages compiled, then
// lint (including the layer rules in eslint.config.mjs) and the format check,
// as they are the quickest to fail; then type check, a production build (the integration tests run
// against it), Vitest (unit, and integration over real HTTP on real SQLite,
// and PostgreSQL when PG_TEST_URL is set), then Playwright in Debian's
// Chromium against the built app. `npm test -- lint format` runs only those.
import { spawnSync } from "node:child_process";
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
for (const [name, args] of steps) {
  if (only.length && !only.includes(name)) continue;
  console.log(`\n=== npm test: ${name} ===`);
  const started = Date.now();
  const r = spawnSync(process.execPath, args, { stdio: "inherit", env });
  console.log(`=== ${name}: ${r.status === 0 ? "ok" : "FAILED"} in ${((Date.now() - started) / 1000).toFixed(1)} s ===`);
  if (r.status !== 0) process.exit(r.status ?? 1);
}
