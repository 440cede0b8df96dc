// `npm test`: every test, in four stages, each stage's steps at the same time:
//   1. packages  the workspace packages compiled (skipped when dist/ is newer than their sources)
//   2. lint, format, types   (types: Next's route types generated, then tsc), and
//      the container image (built and run with podman; skipped, saying why, without podman)
//   3. build     the production build the integration and browser tests run against
//                (without Next's own type check: stage 2 has just done it)
//   4. vitest on SQLite in two processes (each: unit files in parallel,
//      integration files one at a time), vitest on PostgreSQL when PG_TEST_URL
//      is set, and playwright in Chromium
// Output lines of parallel steps carry the step's tag. At the end: each step's
// time and the number of test cases run by Vitest, Playwright and the Python
// client's unittest suite. `npm test -- lint format` runs only the steps named;
// docs/testing.md says more.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { chromiumLaunchOptions } from "../e2e/chromium.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const results = join(root, ".tmp", "test-results");

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

const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", COUNTERSIGN_TEST_RESULTS: results };
const node = (script, ...args) => [process.execPath, [script, ...args]];
const vitest = "node_modules/vitest/vitest.mjs";
const vitestJson = (name) => ["--reporter=default", "--reporter=json", `--outputFile.json=${join(results, `vitest-${name}.json`)}`];

const stages = [
  [{ name: "packages", run: () => (packagesFresh() ? null : node("scripts/build-packages.mjs")) }],
  [
    { name: "lint", run: () => node("node_modules/eslint/bin/eslint.js", "--max-warnings", "0", ".") },
    { name: "format", run: () => node("node_modules/prettier/bin/prettier.cjs", "--check", "--log-level", "warn", ".") },
    {
      name: "types",
      // Route types first, so tsc checks pages and routes as `next build` would.
      run: () => [node("node_modules/next/dist/bin/next", "typegen"), node("node_modules/typescript/bin/tsc", "--noEmit", "-p", ".")],
    },
    // The container image, built and run with podman (test/container/): a
    // lane of its own, without the apps of the global set-up. It builds its
    // own production image, so it needs nothing of stage 3; here its waits on
    // podman overlap the checks' CPU, where beside stage 4's lanes it slowed
    // every one of them (a full run: 1,489 s against 1,115 s without it).
    {
      name: "container",
      run: () => node(vitest, "run", ...vitestJson("container")),
      env: { COUNTERSIGN_TEST_LANE: "container" },
    },
  ],
  [{ name: "build", run: () => node("node_modules/next/dist/bin/next", "build"), env: { COUNTERSIGN_BUILD_TYPECHECKED: "1" } }],
  [
    // The SQLite lane has most of the files: two processes, each with its
    // own apps, share them (Vitest's --shard splits the files between them).
    // PostgreSQL's files run in the other lane, also two processes: the
    // hardening and database files, and the rest (vitest.config.ts).
    ...[1, 2].map((shard) => ({
      name: "vitest",
      tag: `sqlite ${shard}/2`,
      run: () => node(vitest, "run", `--shard=${shard}/2`, ...vitestJson(`sqlite-${shard}`)),
      env: { PG_TEST_URL: "", COUNTERSIGN_TEST_LANE: "sqlite" },
    })),
    ...(process.env.PG_TEST_URL
      ? [1, 2].map((part) => ({
          name: "vitest",
          tag: `postgresql ${part}/2`,
          run: () => node(vitest, "run", ...vitestJson(`postgresql-${part}`)),
          env: { COUNTERSIGN_TEST_PROVIDERS: "postgresql", COUNTERSIGN_TEST_LANE: "postgresql", COUNTERSIGN_TEST_PG_PART: String(part) },
        }))
      : []),
    {
      name: "playwright",
      tag: "browser",
      run: () => node("node_modules/@playwright/test/cli.js", "test", "--reporter=list,json"),
      env: { PLAYWRIGHT_JSON_OUTPUT_NAME: join(results, "playwright.json") },
    },
  ],
];

/** True when every package's dist/ is newer than its sources and build settings (postinstall built them). */
function packagesFresh() {
  const newest = (path) => {
    if (!existsSync(path)) return Infinity;
    const s = statSync(path);
    if (!s.isDirectory()) return s.mtimeMs;
    return Math.max(0, ...readdirSync(path).map((entry) => newest(join(path, entry))));
  };
  const oldest = (path) => {
    if (!existsSync(path)) return -Infinity;
    const s = statSync(path);
    if (!s.isDirectory()) return s.mtimeMs;
    return Math.min(Infinity, ...readdirSync(path).map((entry) => oldest(join(path, entry))));
  };
  return readdirSync(join(root, "packages")).every((name) => {
    const dir = join(root, "packages", name);
    if (!existsSync(join(dir, "tsconfig.build.json"))) return true;
    const sources = Math.max(newest(join(dir, "src")), newest(join(dir, "tsconfig.build.json")), newest(join(dir, "package.json")));
    return oldest(join(dir, "dist")) > sources;
  });
}

/** Runs one command; with a tag, each output line is prefixed by it. Resolves to the exit code. */
function runCommand([command, args], stepEnv, tag) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: root,
      env: { ...env, ...stepEnv },
      stdio: ["ignore", tag ? "pipe" : "inherit", tag ? "pipe" : "inherit"],
    });
    if (tag)
      for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on("line", (line) => console.log(`[${tag}] ${line}`));
    child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function runStep(step, parallel) {
  const commands = step.run();
  const list = commands === null ? [] : Array.isArray(commands[0]) ? commands : [commands];
  const tag = parallel ? (step.tag ?? step.name) : null;
  const label = step.tag ? `${step.name} (${step.tag})` : step.name;
  const started = Date.now();
  let status = 0;
  for (const command of list) {
    status = await runCommand(command, step.env ?? {}, tag);
    if (status !== 0) break;
  }
  const seconds = (Date.now() - started) / 1000;
  const note = commands === null ? " (up to date)" : "";
  console.log(`=== ${label}: ${status === 0 ? "ok" : "FAILED"} in ${seconds.toFixed(1)} s${note} ===`);
  return { label, status, seconds };
}

/** Test cases run, from the reporters' JSON files and the Python suite's count (test/executor/python-unit.test.ts). */
function counts() {
  const read = (file) => {
    try {
      return JSON.parse(readFileSync(join(results, file), "utf8"));
    } catch {
      return null;
    }
  };
  const vitestRuns = readdirSync(results)
    .filter((f) => /^vitest-.*\.json$/.test(f))
    .map(read)
    .filter(Boolean);
  const playwright = read("playwright.json");
  const python = read("python.json");
  return {
    vitest: vitestRuns.length ? vitestRuns.reduce((n, r) => n + r.numTotalTests, 0) : null,
    playwright: playwright ? playwright.stats.expected + playwright.stats.unexpected + playwright.stats.flaky + playwright.stats.skipped : null,
    python: python?.ran ?? null,
  };
}

/** The first lines of an error, without colour codes, for the summary. */
function firstLines(text, lines = 3) {
  return String(text ?? "")
    .replace(/\x1b\[[0-9;]*m/g, "")
    .split("\n")
    .filter((l) => l.trim())
    .slice(0, lines)
    .map((l) => `      ${l.trim().slice(0, 200)}`)
    .join("\n");
}

/**
 * Every failed test, from the reporters' JSON files: the summary is the end of
 * the output, and the end is what a CI log shows when it is cut.
 */
function failures() {
  const found = [];
  const read = (file) => {
    try {
      return JSON.parse(readFileSync(join(results, file), "utf8"));
    } catch {
      return null;
    }
  };
  for (const file of readdirSync(results).filter((f) => /^vitest-.*\.json$/.test(f))) {
    const run = read(file);
    for (const suite of run?.testResults ?? []) {
      const name = relative(root, suite.name);
      const failedTests = (suite.assertionResults ?? []).filter((t) => t.status === "failed");
      for (const t of failedTests)
        found.push(`  ${name} > ${t.fullName} (${Math.round(t.duration ?? 0)} ms)\n${firstLines(t.failureMessages?.join("\n"))}`);
      if (suite.status === "failed" && !failedTests.length) found.push(`  ${name}\n${firstLines(suite.message)}`);
    }
  }
  const walk = (suite, path) => {
    for (const spec of suite.specs ?? [])
      for (const test of spec.tests ?? [])
        if (test.status === "unexpected" || test.status === "flaky") {
          const last = test.results?.[test.results.length - 1];
          found.push(`  ${spec.file}:${spec.line} > ${[...path, spec.title].join(" > ")} (${test.status})\n${firstLines(last?.error?.message)}`);
        }
    for (const child of suite.suites ?? []) walk(child, suite.title && !suite.title.endsWith(".ts") ? [...path, suite.title] : path);
  };
  for (const suite of read("playwright.json")?.suites ?? []) walk(suite, []);
  return found;
}

const only = process.argv.slice(2);
const known = new Set(stages.flat().map((s) => s.name));
const unknown = only.filter((name) => !known.has(name));
if (unknown.length) {
  console.error(`npm test: unknown step ${unknown.join(", ")}; the steps are ${[...known].join(", ")}`);
  process.exit(64);
}

rmSync(results, { recursive: true, force: true });
mkdirSync(results, { recursive: true });
const started = Date.now();
const done = [];
let failed = false;
for (const stage of stages) {
  const steps = stage.filter((s) => !only.length || only.includes(s.name));
  if (!steps.length) continue;
  console.log(`\n=== npm test: ${steps.map((s) => (s.tag ? `${s.name} (${s.tag})` : s.name)).join(", ")} ===`);
  const outcomes = await Promise.all(steps.map((s) => runStep(s, steps.length > 1)));
  done.push(...outcomes);
  if (outcomes.some((o) => o.status !== 0)) {
    failed = true;
    break;
  }
}

console.log("\n=== npm test: summary ===");
for (const o of done) console.log(`${o.status === 0 ? "ok    " : "FAILED"} ${o.label.padEnd(24)} ${o.seconds.toFixed(1).padStart(7)} s`);
console.log(`total ${((Date.now() - started) / 1000).toFixed(1)} s`);
const c = counts();
const show = (n) => (n === null ? "not run" : String(n));
console.log(`test cases: Vitest ${show(c.vitest)}, Playwright ${show(c.playwright)}, Python ${show(c.python)}`);
const failedTests = failures();
if (failedTests.length) console.log(`\nfailed or flaky (${failedTests.length}):\n${failedTests.join("\n")}`);
process.exit(failed ? 1 : 0);
