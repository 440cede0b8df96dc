// `npm run bench [-- --db sqlite|postgres] [--quick] [--rebuild] [--profile] [--render] [--soak [--minutes N] [--heap-snapshots]]` (issue: benchmark).
//
// Builds into .tmp/next-bench if there is no build there or the sources are
// newer than it (--rebuild forces it), starts the built app
// (scripts/start.ts, production mode, fresh secrets) on a fresh database with
// COUNTERSIGN_BENCH=1, drives it from this process (autocannon, fetch and
// Playwright in Debian's Chromium), and writes bench/results/<YYYY-MM-DD>.json
// (one entry per database and mode) plus a Markdown table on stdout. Every figure is a ratio to a baseline
// measured in the same run (or a latency with an absolute target), because
// absolute numbers on a shared 2-core machine are noise.
//
// Phases, in order:
//   1. the app (the product as shipped) on a fresh database; set-up through
//      the domain functions (scripts/bench/helper.ts)
//   2. A: warm-up, idle memory, the trivial route, signed webhook ingest,
//      consume at 16 concurrent executors, memory after the load; during
//      the ingest, each request's notifications: accepted (2xx) → the mail
//      accepted by a real SMTP server, and → the push endpoint hit
//      (scripts/bench/notify.mjs), drained before the consume starts
//      then the auto-approved round trip: 16 executors, each sending a signed
//      webhook that a standing approval answers "approved", then consuming it
//   (3. was "ingest with the audit chain ÷ without", dropped: it needed a
//      switch inside the ingestion transaction; see docs/performance.md)
//   4. Playwright: an open /approvals page, webhooks sent one at a time,
//      accepted (201) → the row is in the page's DOM
//   5. queue page server time with 100 and with 100,000 pending requests
//   6. the app stopped; the audit chain seeded to 100,000 events; `audit verify`
//
// Phase 5 also measures the decision page of a 256 KiB request (its server
// time, its size, and the health check while three render at once) and the
// run page of 100 requests of ~145 KB of look-alike arguments (its server
// time and size, the health check while eight render at once, the queue
// filtered to the run; scripts/bench/render.mjs). --render runs only those:
// app A, set-up, the scenarios, a table (bench/results/<date>.json under
// "<db>-render").
//
// --soak runs only the soak (scripts/bench/soak.mjs): app A, set-up, N minutes
// (default 10) of steady mixed traffic, RSS growth and peak
// (bench/results/<date>.json under "<db>-soak").
//
// --profile writes a V8 CPU profile of app A's `next start` process (the
// preload scripts/bench/cpu-profile.cjs, through NODE_OPTIONS) to
// bench/tmp/profiles/<run>/ and prints the hottest functions
// (scripts/bench/profile-summary.mjs). Not part of `npm test`.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import { chromiumLaunchOptions } from "../e2e/chromium.mjs";
import { renderBench, renderFigures, runPageBench } from "./bench/render.mjs";
import { soak, soakFigures } from "./bench/soak.mjs";
import { notifyFigures, notifyLatencies, startPushEndpoint, startSmtpSink, vapidEnv, waitForDrain } from "./bench/notify.mjs";
import { createTemporaryDatabase } from "./db/temporary-database.mjs";
import { credentialsSignIn } from "./http/credentials-sign-in.mjs";

const root = process.cwd();
const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
const rebuild = argv.includes("--rebuild");
const profile = argv.includes("--profile");
const renderOnly = argv.includes("--render");
const soakMode = argv.includes("--soak");
const heapSnapshots = argv.includes("--heap-snapshots");
const soakMinutes = argv.includes("--minutes") ? Number(argv[argv.indexOf("--minutes") + 1]) : 10;
if (!(soakMinutes >= 1)) fail("--minutes must be a number of minutes, at least 1");
if (heapSnapshots && (!soakMode || profile)) fail("--heap-snapshots goes with --soak, and not with --profile");
const dbArg = argv.includes("--db") ? argv[argv.indexOf("--db") + 1] : "sqlite";
if (!["sqlite", "postgres", "postgresql"].includes(dbArg)) fail(`--db must be sqlite or postgres, not ${dbArg}`);
const provider = dbArg === "sqlite" ? "sqlite" : "postgresql";

const DIST = ".tmp/next-bench";
/** The run-page scenario's run, as the log says it (scripts/bench/render.mjs). */
const RUN_SCENARIO = "100 × ~145 KB";
const tsx = join(root, "node_modules", "tsx", "dist", "cli.mjs");
const nextBin = join(root, "node_modules", "next", "dist", "bin", "next");
const runId = `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(3).toString("hex")}`;
const tmp = join(root, "bench", "tmp", runId);
const profileDir = join(root, "bench", "tmp", "profiles", runId); // kept after the run (git-ignored)
const heapDir = join(root, "bench", "tmp", "heap", runId); // the soak's heap snapshots (--heap-snapshots), kept after the run

/** The steady phase's pace: ten webhooks a second, a busy team's agents rather than a burst. */
const STEADY_INTERVAL_MS = 100;
const P = quick
  ? {
      noopSeconds: 5,
      ingestN: 600,
      steadyN: 100,
      consumeN: 800,
      autoN: 800,
      auto1N: 200,
      liveSamples: 20,
      pageSamples: 12,
      queuePending: [100, 100_000],
      auditEvents: 100_000,
      connections: 16,
    }
  : {
      noopSeconds: 10,
      ingestN: 3000,
      steadyN: 300,
      consumeN: 2000,
      autoN: 2000,
      auto1N: 400,
      liveSamples: 20,
      pageSamples: 30,
      queuePending: [100, 100_000],
      auditEvents: 100_000,
      connections: 16,
    };

const cleanups = [];
function fail(msg) {
  process.stderr.write(`bench: ${msg}\n`);
  process.exitCode = 1;
  throw Object.assign(new Error(msg), { reported: true });
}
const started = performance.now();
const log = (m) => process.stderr.write(`bench: [${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${m}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const phases = {};
/** With --profile: ends app A's current CPU-profile segment, naming it. */
let profileMark = async () => {};
async function phase(name, fn) {
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    phases[name] = Math.round((performance.now() - t0) / 100) / 10;
  }
}

// ---------- build ----------
/** The newest modification time (ms) of the sources a build is made from. */
function newestSource() {
  let newest = 0;
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === "node_modules" || e.name === "generated" || e.name.startsWith(".")) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  for (const d of ["app", "lib", "components", "prisma"]) if (existsSync(join(root, d))) walk(join(root, d));
  for (const f of ["next.config.ts", "proxy.ts", "instrumentation.ts", "package.json"])
    if (existsSync(join(root, f))) newest = Math.max(newest, statSync(join(root, f)).mtimeMs);
  return newest;
}

function buildIfNeeded() {
  const buildId = join(root, DIST, "BUILD_ID");
  const stale = existsSync(buildId) && newestSource() > statSync(buildId).mtimeMs;
  if (!rebuild && !stale && existsSync(buildId)) return { built: false };
  log(`building into ${DIST}${stale ? " (sources changed since the last build)" : ""} (takes a minute)…`);
  // `next build` rewrites tsconfig.json's include list: put it back byte for byte.
  const tsconfig = readFileSync(join(root, "tsconfig.json"));
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [nextBin, "build"], {
    cwd: root,
    stdio: ["ignore", 2, 2], // keep stdout for the table
    env: { ...process.env, NEXT_DIST_DIR: DIST, NEXT_TELEMETRY_DISABLED: "1" },
  });
  writeFileSync(join(root, "tsconfig.json"), tsconfig);
  if (r.status !== 0) fail("next build failed");
  return { built: true, seconds: (Date.now() - t0) / 1000 };
}

// ---------- helpers ----------
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ([3100, 3101].includes(port) ? resolve(freePort()) : resolve(port)));
    });
  });
}

function runHelper(args, env) {
  const r = spawnSync(process.execPath, [tsx, "--conditions=react-server", "scripts/bench/helper.ts", ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) fail(`helper ${args[0]} failed:\n${r.stderr}`);
  const lines = r.stdout.trim().split("\n").filter(Boolean);
  return lines.length ? JSON.parse(lines[lines.length - 1]) : null;
}

async function freshDatabase() {
  if (provider === "sqlite") return { url: `file:${join(tmp, "bench.db")}`, drop: async () => undefined };
  return createTemporaryDatabase(process.env.PG_TEST_URL ?? "postgresql://postgres@127.0.0.1:5432/test", "cs_bench_");
}

// Process tree from /proc: the `next start` process is a grandchild of ours.
function childrenOf(pid) {
  const out = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(d));
    } catch {
      // process gone
    }
  }
  return out;
}
function descendants(pid) {
  const all = [];
  const stack = [pid];
  while (stack.length) {
    for (const c of childrenOf(stack.pop())) {
      all.push(c);
      stack.push(c);
    }
  }
  return all;
}
const cmdline = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
};
function rssKiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}
const CLK_TCK = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;
/** CPU time (user + system) the process has used so far, in ms. */
function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
  } catch {
    return null;
  }
}
/** The app's CPU time so far, in ms (the server process, every thread). */
function appCpu(app) {
  const pid = appRss(app.child.pid)?.pid;
  return (pid && cpuMs(pid)) || 0;
}

/** Waits until the app has been idle (under 2 % of a core) for a second, or 30 s have passed. */
async function untilIdle(app) {
  const deadline = performance.now() + 30_000;
  let quiet = 0;
  let last = appCpu(app);
  while (quiet < 2 && performance.now() < deadline) {
    await sleep(500);
    const now = appCpu(app);
    quiet = now - last < 10 ? quiet + 1 : 0;
    last = now;
  }
}

/** Runs `fn` and adds the app's CPU time per request (ms) to its result. */
async function withCpu(app, fn) {
  const pid = appRss(app.child.pid)?.pid;
  const before = pid ? cpuMs(pid) : null;
  const res = await fn();
  const after = pid ? cpuMs(pid) : null;
  return {
    ...res,
    cpu_ms: before != null && after != null ? after - before : null,
    cpu_ms_per_request: before != null && after != null && res.total ? round1((after - before) / res.total) : null,
  };
}
const memoryOf = async (app, gc = false) => {
  try {
    return await (await fetch(`${app.baseUrl}/api/bench/memory${gc ? "?gc=1" : ""}`, { signal: AbortSignal.timeout(30_000) })).json();
  } catch {
    return null;
  }
};

/** RSS of the `next start` process plus anything it spawned (KiB). */
function appRss(launcherPid) {
  const next = descendants(launcherPid).find((p) => /next-server|next\/dist\/bin\/next start/.test(cmdline(p)));
  if (!next) return null;
  return { pid: next, kib: [next, ...descendants(next)].reduce((s, p) => s + rssKiB(p), 0) };
}

async function startApp(name, port, env) {
  const baseUrl = `http://127.0.0.1:${port}`;
  const appEnv = { ...env, NODE_ENV: "production", PORT: String(port), APP_URL: baseUrl, AUTH_URL: baseUrl, NEXT_TELEMETRY_DISABLED: "1" };
  let out = "";
  const child = spawn(process.execPath, [tsx, "--conditions=react-server", "scripts/start.ts"], {
    cwd: root,
    env: { ...process.env, ...appEnv },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  let stopped = false;
  const stop = () =>
    new Promise((resolve) => {
      stopped = true;
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 15_000).unref();
    });
  cleanups.push(stop);
  const ready = (async () => {
    const deadline = Date.now() + 180_000;
    for (;;) {
      if (child.exitCode !== null) fail(`app ${name} exited early (${child.exitCode}):\n${out}`);
      try {
        const r = await fetch(`${baseUrl}/api/bench/noop`);
        if (r.status === 200) break;
        if (r.status === 404) fail(`/api/bench/noop answered 404: the build in ${DIST} predates it; run with --rebuild`);
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) fail(`app ${name} did not start in time:\n${out}`);
      await sleep(250);
    }
  })();
  child.once("exit", (code) => {
    if (!stopped) log(`app ${name} exited unexpectedly (${code}):\n${out.slice(-4000)}`);
  });
  return { name, baseUrl, child, stop, ready, output: () => out };
}

/**
 * autocannon run; `list` (optional) supplies one distinct request per call;
 * `onResponse` (optional) sees each answer's status and body as it completes.
 */
function cannon(opts, list, onResponse) {
  let i = 0;
  const requests = list
    ? [
        {
          setupRequest: (req) => {
            const r = list[Math.min(i++, list.length - 1)];
            return { ...req, method: r.method ?? "POST", path: r.path, headers: r.headers, body: r.body };
          },
          // autocannon calls the template's onResponse, not the set-up request's.
          ...(onResponse ? { onResponse } : {}),
        },
      ]
    : undefined;
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let last = t0;
    const instance = autocannon({ ...opts, requests }, (err, res) => {
      if (err) return reject(err);
      // From the start to the last response: autocannon's own duration, and
      // its end with `amount`, are rounded up to whole seconds.
      const seconds = (last - t0) / 1000;
      resolve({
        total: res.requests.total,
        seconds,
        rps: res.requests.total / seconds,
        p50: res.latency.p50,
        p99: res.latency.p99,
        max: res.latency.max,
        non2xx: res.non2xx,
        errors: res.errors,
        timeouts: res.timeouts,
        statusCodes: res.statusCodeStats,
      });
    });
    instance.on("response", () => (last = performance.now()));
  });
}

/**
 * `n` GETs one after another with fetch, as one executor's client sends them
 * (autocannon's latencies are whole milliseconds, too coarse at one
 * connection): p50 and p99 in ms.
 */
async function sequentialGets(url, n) {
  const latencies = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await fetch(url);
    await res.arrayBuffer();
    if (res.ok) latencies.push(performance.now() - t0);
  }
  return { total: n, completed: latencies.length, p50: round1(quantile(latencies, 0.5)), p99: round1(quantile(latencies, 0.99)) };
}

/**
 * Executors as an agent's would run them: each sends a signed webhook, and
 * when a standing approval answers it "approved", consumes the decision.
 * One latency per round trip (webhook sent → consume answered), in ms.
 */
async function roundTrips(base, calls, connections) {
  const latencies = [];
  const failures = new Map();
  const fault = (why) => failures.set(why, (failures.get(why) ?? 0) + 1);
  let next = 0;
  const executor = async () => {
    while (next < calls.length) {
      const c = calls[next++];
      const t0 = performance.now();
      try {
        const hook = await fetch(`${base}${c.path}`, { method: "POST", headers: c.headers, body: c.body });
        const answer = await hook.json();
        if (hook.status !== 201 || answer.status !== "approved") {
          fault(`webhook ${hook.status} ${answer.status ?? answer.error ?? ""}`.trim());
          continue;
        }
        const res = await fetch(`${base}/api/v1/approvals/${answer.approval_id}/consume`, {
          method: "POST",
          headers: { authorization: `Bearer ${c.token}`, "content-type": "application/json" },
          body: JSON.stringify({ ...c.binding, args_digest: answer.args_digest }),
        });
        const consumed = await res.json();
        if (res.status !== 200 || consumed.decision !== "approved") {
          fault(`consume ${res.status} ${consumed.decision ?? consumed.error ?? ""}`.trim());
          continue;
        }
        latencies.push(performance.now() - t0);
      } catch (e) {
        fault(e instanceof Error ? e.message : String(e));
      }
    }
  };
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(Array.from({ length: connections }, executor));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    // This process's own CPU (the executors' HTTP clients): if it nears one core, the figure measures the client.
    client_cpu_share: Math.round(((cpu.user + cpu.system) / 1000 / (seconds * 1000)) * 100) / 100,
    total: calls.length,
    completed: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    p50: round1(quantile(latencies, 0.5)),
    p99: round1(quantile(latencies, 0.99)),
    max: round1(Math.max(...latencies)),
    failures: [...failures].map(([why, n]) => `${n} × ${why}`),
  };
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return null;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
};
const round1 = (x) => (x == null ? null : Math.round(x * 10) / 10);

function webhooksFor(setupFile, n, helperEnv) {
  const file = join(tmp, `webhooks-${randomBytes(3).toString("hex")}.json`);
  const stats = runHelper(["webhooks", setupFile, String(n), file], helperEnv);
  const list = JSON.parse(readFileSync(file, "utf8"));
  rmSync(file);
  return { list, stats };
}

/** Signs in through Auth.js's credentials endpoint, as the sign-in form does; returns the session cookie. */
async function signIn(base, email, password) {
  const { session: pair, location } = await credentialsSignIn(base, email, password);
  if (!pair) fail(`sign-in as ${email} failed (redirected to ${location || "nowhere"})`);
  const eq = pair.indexOf("=");
  return { header: pair, name: pair.slice(0, eq), value: pair.slice(eq + 1) };
}

/** Server time of GET /approvals as the reviewer: sequential requests, full body read. */
async function queuePageTimes(base, cookie, samples) {
  const once = async () => {
    const t0 = performance.now();
    const res = await fetch(`${base}/approvals`, { headers: { cookie: cookie.header }, redirect: "manual" });
    const html = await res.text();
    const ms = performance.now() - t0;
    if (res.status !== 200 || !html.includes("Needs your review")) fail(`GET /approvals answered ${res.status} without the queue`);
    return ms;
  };
  for (let i = 0; i < 3; i++) await once(); // warm-up
  const times = [];
  for (let i = 0; i < samples; i++) times.push(await once());
  return { samples: times.length, median: round1(quantile(times, 0.5)), p95: round1(quantile(times, 0.95)), min: round1(Math.min(...times)) };
}

/** Accepted (201 received) → the row is in the open page's DOM, one webhook at a time. */
async function liveQueue(base, cookie, hooks) {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch(chromiumLaunchOptions);
  cleanups.push(() => browser.close());
  try {
    const context = await browser.newContext();
    await context.addCookies([{ name: cookie.name, value: cookie.value, url: base }]);
    const page = await context.newPage();
    // Newest first: where a reviewer watching for new requests looks.
    await page.goto(`${base}/approvals?order=newest`);
    await page.waitForSelector('[data-testid="live-status"][data-state="live"]', { timeout: 30_000 });
    const samples = [];
    for (const h of hooks) {
      // Arrivals a second or two apart, as from agents at work (the page
      // refreshes at most once a second by design).
      await sleep(1000 + Math.floor(Math.random() * 1000));
      const res = await fetch(`${base}${h.path}`, { method: "POST", headers: h.headers, body: h.body });
      const accepted = performance.now();
      if (res.status !== 201) fail(`live sample: webhook answered ${res.status}`);
      const { approval_id } = await res.json();
      await page.waitForSelector(`[data-approval-id="${approval_id}"]`, { state: "attached", timeout: 20_000 });
      samples.push(performance.now() - accepted);
    }
    return {
      samples: samples.map(round1),
      p50: round1(quantile(samples, 0.5)),
      p95: round1(quantile(samples, 0.95)),
      max: round1(Math.max(...samples)),
    };
  } finally {
    await browser.close();
  }
}

// ---------- main ----------
async function main() {
  mkdirSync(tmp, { recursive: true });
  mkdirSync(join(root, "bench", "results"), { recursive: true });
  const build = buildIfNeeded();

  const database = await freshDatabase();
  cleanups.push(database.drop);
  const secrets = runHelper(["secrets"], {});
  // Where the app's notifications go: a real SMTP server and a push endpoint, both local.
  const smtp = await startSmtpSink();
  cleanups.push(smtp.stop);
  const push = await startPushEndpoint(tmp);
  cleanups.push(push.stop);
  const env = {
    ...secrets,
    ...vapidEnv(),
    SMTP_URL: smtp.url,
    NOTIFY_RETRY_BASE_MS: "1000",
    // The push endpoint's self-signed certificate, its loopback address (production refuses loopback
    // otherwise) and its random port (push endpoints are on 443 otherwise).
    NODE_EXTRA_CA_CERTS: push.caFile,
    CALLBACK_ALLOW_LOOPBACK: "1",
    PUSH_ALLOW_ANY_PORT: "1",
    DATABASE_URL: database.url,
    COUNTERSIGN_DATA_DIR: join(tmp, "data"),
    COUNTERSIGN_BENCH: "1",
    AUTH_CREDENTIALS: "1", // the reviewer signs in with a password
    NEXT_DIST_DIR: DIST,
    LOG_LEVEL: "warn",
  };
  const helperEnv = { ...env, NODE_ENV: "production" };

  // ---- 1. apps and set-up
  const portA = await freePort();
  log(`starting app A on ${provider}, port ${portA}${profile ? " (CPU profile)" : ""}…`);
  // Node refuses --cpu-prof in NODE_OPTIONS: a preload starts the profiler in `next start` only.
  const profileEnv = profile
    ? {
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --require ${join(root, "scripts", "bench", "cpu-profile.cjs")}`.trim(),
        BENCH_PROFILE_DIR: profileDir,
      }
    : {};
  if (profile) mkdirSync(profileDir, { recursive: true });
  // The soak's heap snapshots: Node writes one to heapDir on each SIGUSR2.
  const heapEnv = heapSnapshots
    ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${heapDir}`.trim() }
    : {};
  if (heapSnapshots) mkdirSync(heapDir, { recursive: true });
  const app = await phase("start_a", async () => {
    const a = await startApp("A", portA, { ...env, ...profileEnv, ...heapEnv });
    await a.ready;
    return a;
  });
  const base = app.baseUrl;
  if (profile) {
    profileMark = async (label) => {
      const next = appRss(app.child.pid);
      if (!next) return;
      writeFileSync(join(profileDir, "label"), label);
      process.kill(next.pid, "SIGUSR2");
      await sleep(300);
    };
  }
  if (renderOnly) return renderOnlyRun(app, helperEnv, build);
  if (soakMode) return soakOnlyRun(app, helperEnv, build);

  const setupFile = join(tmp, "setup.json");
  const autoFile = join(tmp, "auto-approved.json");
  const quietFile = join(tmp, "quiet-webhooks.json");
  let consumes;
  await phase("setup", async () => {
    log("set-up: services, policies, reviewers");
    runHelper(["setup", setupFile], helperEnv);
    log(`preparing ${P.consumeN + 40} decided requests to consume…`);
    const consumeFile = join(tmp, "consumes.json");
    runHelper(["consumes", setupFile, String(P.consumeN + 40), consumeFile], helperEnv);
    consumes = JSON.parse(readFileSync(consumeFile, "utf8")).map((c) => ({
      path: `/api/v1/approvals/${c.id}/consume`,
      headers: { authorization: `Bearer ${c.token}`, "content-type": "application/json" },
      body: JSON.stringify(c.binding),
    }));
    log(`preparing a standing approval and ${P.autoN + 40 + P.auto1N} webhooks it matches…`);
    runHelper(["auto-approved", setupFile, String(P.autoN + 40 + P.auto1N), autoFile], helperEnv);
    log(`preparing ${P.ingestN} webhooks under a policy whose reviewers turned every channel off…`);
    runHelper(["quiet-webhooks", setupFile, String(P.ingestN), quietFile], helperEnv);
  });
  const quietHooks = JSON.parse(readFileSync(quietFile, "utf8"));
  const autoCalls = JSON.parse(readFileSync(autoFile, "utf8"));
  const setup = JSON.parse(readFileSync(setupFile, "utf8"));
  // The signed-in reviewer's browser subscribed to push (the row a browser's subscription makes).
  runHelper(["push-subscribe", setup.signIn.email, push.endpoint, push.keys.p256dh, push.keys.auth], helperEnv);

  // ---- 2. load on A
  log(`signing ${P.ingestN + 50 + P.steadyN} realistic webhooks…`);
  const { list: allHooks, stats: hookStats } = await phase("webhooks", () => webhooksFor(setupFile, P.ingestN + 50 + P.steadyN, helperEnv));
  const hooks = allHooks.slice(0, P.ingestN + 50);
  const steadyHooks = allHooks.slice(P.ingestN + 50);
  const load = await phase("load", async () => {
    log("warm-up");
    await cannon({ url: `${base}/api/bench/noop`, connections: 4, duration: 1 });
    await cannon({ url: base, connections: 4, amount: 50 }, hooks.slice(0, 50));
    await cannon({ url: base, connections: 4, amount: 40 }, consumes.slice(0, 40));
    await roundTrips(base, autoCalls.slice(0, 40), 4);
    await sleep(1000);
    const idle = appRss(app.child.pid);
    const idleMemory = await memoryOf(app);
    await profileMark("start-setup-warmup");

    log(`trivial route: ${P.noopSeconds} s at ${P.connections} connections`);
    const noop = await withCpu(app, () => cannon({ url: `${base}/api/bench/noop`, connections: P.connections, duration: P.noopSeconds }));
    await profileMark("noop");
    log(`ingest: ${P.ingestN} signed webhooks at ${P.connections} connections`);
    const accepted = new Map(); // approval id → when its 2xx answer arrived
    const noteAccepted = (status, body) => {
      if (status >= 200 && status < 300) accepted.set(JSON.parse(body).approval_id, performance.now());
    };
    const [mails0, pushes0] = [smtp.mails.length, push.pushes.length];
    const ingestCpu0 = appCpu(app);
    const ingest = await withCpu(app, () =>
      cannon({ url: base, connections: P.connections, amount: P.ingestN, timeout: 30 }, hooks.slice(50), noteAccepted),
    );
    await profileMark("ingest");
    log(`notifications: waiting for the mails and pushes of ${accepted.size} requests…`);
    const drainSeconds = await waitForDrain(smtp, push);
    // The app's CPU for the ingest and everything it led to (fan-out, composing, sending), once it is idle again.
    await untilIdle(app);
    const withNotify = appCpu(app) - ingestCpu0;
    // The same requests with nothing to notify (their reviewers turned every channel off).
    log(`ingest without notifications: ${quietHooks.length} signed webhooks at ${P.connections} connections`);
    const quietCpu0 = appCpu(app);
    const quiet = await withCpu(app, () => cannon({ url: base, connections: P.connections, amount: quietHooks.length, timeout: 30 }, quietHooks));
    await untilIdle(app);
    const withoutNotify = appCpu(app) - quietCpu0;
    const ingestCpu = {
      with_notifications_ms: round1(withNotify / ingest.total),
      without_notifications_ms: round1(withoutNotify / quiet.total),
      quiet_non2xx: quiet.non2xx,
      quiet_errors: quiet.errors,
    };
    log(
      `app CPU per ingest, until idle: ${ingestCpu.with_notifications_ms} ms with its notifications, ${ingestCpu.without_notifications_ms} ms without`,
    );
    const notify = {
      drain_seconds: drainSeconds,
      email: notifyLatencies(accepted, smtp.mails.slice(mails0)),
      push: { ...notifyLatencies(accepted, push.pushes.slice(pushes0)), refused: push.refused.count },
    };
    log(
      `notifications: ${notify.email.messages} mails (p95 ${notify.email.p95} ms), ${notify.push.messages} pushes (p95 ${notify.push.p95} ms), drained ${drainSeconds} s after the load`,
    );
    // The same at a steady rate the app is not saturated by: one webhook every
    // STEADY_INTERVAL_MS (open loop: each is sent on time, whatever the answers do).
    log(`notifications at a steady rate: ${P.steadyN} webhooks, one every ${STEADY_INTERVAL_MS} ms`);
    const steadyAccepted = new Map();
    const [mails1, pushes1] = [smtp.mails.length, push.pushes.length];
    const sends = [];
    for (const h of steadyHooks) {
      sends.push(
        fetch(`${base}${h.path}`, { method: "POST", headers: h.headers, body: h.body }).then(async (res) => {
          const body = await res.text();
          if (res.ok) steadyAccepted.set(JSON.parse(body).approval_id, performance.now());
        }),
      );
      await sleep(STEADY_INTERVAL_MS);
    }
    await Promise.all(sends);
    const steadyDrain = await waitForDrain(smtp, push, { quietMs: 3000 });
    notify.steady = {
      rate_per_second: 1000 / STEADY_INTERVAL_MS,
      drain_seconds: steadyDrain,
      email: notifyLatencies(steadyAccepted, smtp.mails.slice(mails1)),
      push: notifyLatencies(steadyAccepted, push.pushes.slice(pushes1)),
    };
    log(
      `steady: ${notify.steady.email.messages} mails (p95 ${notify.steady.email.p95} ms), ${notify.steady.push.messages} pushes (p95 ${notify.steady.push.p95} ms)`,
    );
    log(`consume: ${P.consumeN} consumes at ${P.connections} concurrent executors`);
    const consume = await withCpu(app, () => cannon({ url: base, connections: P.connections, amount: P.consumeN, timeout: 30 }, consumes.slice(40)));
    await profileMark("consume");
    await sleep(2000);
    const loaded = appRss(app.child.pid);
    const loadedMemory = await memoryOf(app);
    // And once V8 has had time to give back what the load left behind (its
    // memory reducer works a few seconds after allocation slows down).
    await sleep(13_000);
    const settled = appRss(app.child.pid);
    const settledMemory = await memoryOf(app);
    // Diagnostics only (after the figure is taken): what is still live after a full GC.
    const afterGcMemory = await memoryOf(app, true);
    // After the memory figures, which keep measuring what they always did.
    log(`auto-approved round trip: ${P.autoN} at ${P.connections} concurrent executors`);
    const auto = await withCpu(app, () => roundTrips(base, autoCalls.slice(40, 40 + P.autoN), P.connections));
    await profileMark("auto-approved");
    // One executor alone: the latency a pre-approved call adds when nothing else runs.
    log(`one executor: ${P.auto1N * 5} sequential GETs of the trivial route, then ${P.auto1N} auto-approved round trips`);
    const noop1 = await sequentialGets(`${base}/api/bench/noop`, P.auto1N * 5);
    const auto1 = await roundTrips(base, autoCalls.slice(40 + P.autoN), 1);
    return {
      auto,
      auto1,
      noop1,
      ingestCpu,
      idle,
      noop,
      ingest,
      notify,
      consume,
      loaded,
      settled,
      memory: { idle: idleMemory, loaded: loadedMemory, settled: settledMemory, after_gc: afterGcMemory },
    };
  });

  // ---- 4. live queue page (Playwright)
  const cookie = await signIn(base, setup.signIn.email, setup.signIn.password);
  const pendingNow = runHelper(["queue-seed", "0"], helperEnv).pending;
  const live = await phase("live", async () => {
    log(`live queue: ${P.liveSamples} webhooks into an open /approvals page (${pendingNow} pending)`);
    const { list } = webhooksFor(setupFile, P.liveSamples, helperEnv);
    const result = await liveQueue(base, cookie, list);
    await profileMark("live");
    return { ...result, pending: pendingNow };
  });

  // ---- 5. queue page server time at 100 and at 100,000 pending
  const queue = await phase("queue", async () => {
    const out = [];
    for (const [i, pending] of P.queuePending.entries()) {
      log(`queue page: seeding to ${pending.toLocaleString("en-US")} pending${i === 0 ? " (earlier pending requests cancelled)" : ""}…`);
      const seeded = runHelper(["queue-seed", String(pending), ...(i === 0 ? ["--reset"] : [])], helperEnv);
      await sleep(1000);
      log(`queue page: ${P.pageSamples} sequential GET /approvals at ${seeded.pending.toLocaleString("en-US")} pending`);
      await profileMark(`queue-seed-${pending}`);
      out.push({ ...seeded, ...(await queuePageTimes(base, cookie, P.pageSamples)) });
      await profileMark(`queue-page-${pending}`);
    }
    return out;
  });

  const render = await phase("render", async () => {
    log("decision page of a 256 KiB request: server time, size, health check during 3 renders");
    return renderBench({ base, cookie, service: setup.services[0], samples: P.pageSamples });
  });
  const runPage = await phase("run_page", async () => {
    log(`run page of ${RUN_SCENARIO} look-alike requests: server time, size, health check during 8 renders, the queue filtered to the run`);
    return runPageBench({
      base,
      cookie,
      seedRun: (n, bytes) => runHelper(["lookalike-run", setupFile, String(n), String(bytes)], helperEnv),
      samples: P.pageSamples,
      log,
    });
  });

  await phase("stop_a", () => app.stop());

  // ---- 6. audit verify over 100,000 events
  const { seeded, verify } = await phase("audit_verify", async () => {
    log(`audit: seeding the chain to ${P.auditEvents.toLocaleString("en-US")} events, then verify`);
    const s = runHelper(["seed-audit", String(P.auditEvents)], helperEnv);
    // Three runs, the median reported: one 2-second run is at the mercy of a busy neighbour.
    const runs = [0, 1, 2].map(() => runHelper(["verify-audit"], helperEnv));
    const v = [...runs].sort((a, b) => a.ms - b.ms)[1];
    return { seeded: s, verify: { ...v, runs_ms: runs.map((r) => Math.round(r.ms)) } };
  });

  const { idle, noop, ingest, notify, consume, auto, auto1, noop1, ingestCpu, loaded, settled, memory } = load;
  const [q100, qBig] = queue;
  const ratio = (a, b) => (a != null && b ? a / b : null);
  const figures = [
    {
      key: "ingest_throughput_ratio",
      figure: "Signed webhook ingest throughput ÷ trivial route throughput",
      value: ratio(ingest.rps, noop.rps),
      detail: `${ingest.rps.toFixed(0)} ÷ ${noop.rps.toFixed(0)} req/s`,
      target: "≥ 0.6",
      met: (v) => v >= 0.6,
    },
    {
      key: "consume_p99_ratio",
      figure: "Consume p99 ÷ trivial route p99 (16 concurrent)",
      value: ratio(consume.p99, noop.p99),
      detail: `${consume.p99} ms ÷ ${noop.p99} ms`,
      target: "≤ 2",
      met: (v) => v <= 2,
    },
    {
      key: "auto_approved_p99_ratio",
      figure: "Auto-approved round trip p99 ÷ trivial route p99 (16 concurrent)",
      value: auto.completed === auto.total ? ratio(auto.p99, noop.p99) : null,
      detail:
        auto.completed === auto.total
          ? `${auto.p99} ms ÷ ${noop.p99} ms (webhook answered approved by a standing approval, then consume; p50 ${auto.p50} ms)`
          : `${auto.total - auto.completed} of ${auto.total} round trips failed (${auto.failures.join("; ")})`,
      target: "≤ 3",
      met: (v) => v <= 3,
    },
    {
      key: "auto_approved_p50_ratio_one",
      figure: "Auto-approved round trip p50 ÷ trivial route p50 (one executor)",
      value: auto1.completed === auto1.total ? ratio(auto1.p50, noop1.p50) : null,
      detail:
        auto1.completed === auto1.total
          ? `${auto1.p50} ms ÷ ${noop1.p50} ms; p99 ${auto1.p99} ms ÷ ${noop1.p99} ms (${round1(ratio(auto1.p99, noop1.p99))}), ${auto1.total} round trips`
          : `${auto1.total - auto1.completed} of ${auto1.total} round trips failed (${auto1.failures.join("; ")})`,
      target: "≤ 3",
      met: (v) => v <= 3,
    },
    {
      key: "ingest_cpu_notify_ratio",
      figure: "App CPU per ingest with its notifications ÷ without (until idle)",
      value: ratio(ingestCpu.with_notifications_ms, ingestCpu.without_notifications_ms),
      detail: `${ingestCpu.with_notifications_ms} ms ÷ ${ingestCpu.without_notifications_ms} ms (without: the same requests under a policy whose reviewers turned every channel off${ingestCpu.quiet_non2xx || ingestCpu.quiet_errors ? `; ${ingestCpu.quiet_non2xx} non-2xx, ${ingestCpu.quiet_errors} errors` : ""})`,
      target: "≤ 1.5",
      met: (v) => v <= 1.5,
    },
    {
      key: "queue_page_ratio",
      figure: "Queue page server time, 100,000 pending ÷ 100 pending",
      value: ratio(qBig.median, q100.median),
      detail: `median ${qBig.median} ms ÷ ${q100.median} ms (${qBig.pending.toLocaleString("en-US")} ÷ ${q100.pending} pending)`,
      target: "≤ 1.5",
      met: (v) => v <= 1.5,
    },
    {
      key: "live_queue_p95",
      figure: `Webhook accepted → row visible in open queue page, p95 (Playwright, ${live.samples.length})`,
      value: live.p95 / 1000,
      detail: `p50 ${(live.p50 / 1000).toFixed(2)} s, max ${(live.max / 1000).toFixed(2)} s`,
      unit: " s",
      target: "≤ 2 s",
      met: (v) => v <= 2,
    },
    ...notifyFigures(notify),
    ...notifyFigures(notify.steady, { when: `at a steady ${notify.steady.rate_per_second} webhooks/s`, keySuffix: "_steady" }),
    {
      key: "audit_verify_eps",
      figure: `audit verify events/s (${verify.events.toLocaleString("en-US")} events)`,
      value: verify.ok ? verify.events / (verify.ms / 1000) : null,
      detail: verify.ok
        ? `${verify.events.toLocaleString("en-US")} in ${(verify.ms / 1000).toFixed(2)} s (median of 3: ${verify.runs_ms.map((ms) => (ms / 1000).toFixed(2)).join(", ")} s)`
        : `chain broken: ${verify.reason}`,
      target: "≥ 50,000",
      met: (v) => v >= 50_000,
    },
    {
      key: "rss_ratio",
      figure: "App resident memory after load ÷ idle",
      value: ratio(loaded?.kib, idle?.kib),
      detail:
        idle && loaded
          ? `${(loaded.kib / 1024).toFixed(0)} MiB ÷ ${(idle.kib / 1024).toFixed(0)} MiB, 2 s after the load${settled ? `; ${(settled.kib / idle.kib).toFixed(2)} (${(settled.kib / 1024).toFixed(0)} MiB) 15 s after` : ""}`
          : "next start process not found",
      target: "≤ 1.5",
      met: (v) => v <= 1.5,
    },
    ...renderFigures(render, runPage),
  ].map((f) => ({ ...f, met: f.value == null ? null : f.met(f.value) }));

  const fmt = (v, unit = "") => (v == null ? "—" : (v >= 100 ? Math.round(v).toLocaleString("en-US") : v.toFixed(2)) + unit);
  const failed = [ingest, consume].some((r) => r.non2xx || r.errors);
  const lines = [
    `### Countersign bench — ${provider}${quick ? " (quick)" : ""}, ${new Date().toISOString()}`,
    "",
    "| Figure | Value | Detail | Target | Met? |",
    "|---|---|---|---|---|",
    ...figures.map(
      (f) => `| ${f.figure} | ${fmt(f.value, f.unit)} | ${f.detail} | ${f.target} | ${f.met == null ? "not measured" : f.met ? "yes" : "**no**"} |`,
    ),
    "",
    `Requests: trivial ${noop.total} (non-2xx ${noop.non2xx}, errors ${noop.errors}); ingest ${ingest.total} (non-2xx ${ingest.non2xx}, errors ${ingest.errors}, mean body ${hookStats.mean_body_bytes} B); consume ${consume.total} (non-2xx ${consume.non2xx}, errors ${consume.errors}); auto-approved round trips ${auto.completed} of ${auto.total} in ${auto.seconds.toFixed(1)} s (the executors' own CPU: ${auto.client_cpu_share} of a core).`,
    `App CPU ms per request: trivial ${noop.cpu_ms_per_request}, ingest ${ingest.cpu_ms_per_request}, consume ${consume.cpu_ms_per_request}, auto-approved round trip ${auto.cpu_ms_per_request}. V8 heap used/total MiB idle ${memory.idle?.heapUsed}/${memory.idle?.heapTotal}, 2 s after load ${memory.loaded?.heapUsed}/${memory.loaded?.heapTotal}, 15 s after ${memory.settled?.heapUsed}/${memory.settled?.heapTotal}, after a forced full GC ${memory.after_gc?.heapUsed}/${memory.after_gc?.heapTotal} (RSS ${memory.after_gc?.rss}).`,
    `Latency p50/p99 ms: trivial ${noop.p50}/${noop.p99}; ingest ${ingest.p50}/${ingest.p99}; consume ${consume.p50}/${consume.p99}; auto-approved round trip ${auto.p50}/${auto.p99}. Queue page median/p95 ms: ${q100.median}/${q100.p95} at ${q100.pending} pending, ${qBig.median}/${qBig.p95} at ${qBig.pending.toLocaleString("en-US")}. Live rows seen with ${live.pending} pending.`,
    `Notifications during the ingest: ${notify.email.messages} mails and ${notify.push.messages} pushes about ${notify.email.requests} requests (and ${notify.email.other_messages + notify.push.other_messages} about the warm-up's requests), the last ${notify.drain_seconds} s after the load ended; pushes that did not decrypt: ${notify.push.refused}.`,
    `Phases (s): ${Object.entries(phases)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}; total ${((performance.now() - started) / 1000).toFixed(0)}.`,
  ];
  if (failed) lines.push("", "**Warning:** some measured requests failed; the ratios above include them.");
  process.stdout.write(lines.join("\n") + "\n");

  // One file per day (bench/results/<date>.json), one entry per database and mode, so
  // a day's SQLite and PostgreSQL runs sit side by side.
  const date = new Date().toISOString().slice(0, 10);
  const resultFile = join(root, "bench", "results", `${date}.json`);
  let day = {};
  try {
    day = JSON.parse(readFileSync(resultFile, "utf8"));
    if (day.provider) day = {}; // the single-run format of earlier versions
  } catch {
    // first run of the day
  }
  day[`${provider}${quick ? "-quick" : ""}`] = {
    at: new Date().toISOString(),
    provider,
    quick,
    node: process.version,
    build,
    params: P,
    phases_seconds: phases,
    table: lines.join("\n"),
    figures: figures.map(({ key, figure, value, detail, target, met }) => ({ key, figure, value, detail, target, met })),
    raw: {
      noop,
      ingest,
      consume,
      webhook_bodies: hookStats,
      rss_kib: { idle, loaded, settled },
      memory_mib: memory,
      live,
      notify,
      queue_page: queue,
      render,
      run_page: runPage,
      audit: { seeded, verify },
    },
  };
  writeFileSync(resultFile, JSON.stringify(day, null, 2) + "\n");
  log(`wrote ${resultFile}`);
  if (profile) {
    for (const seg of ["ingest", "consume", "auto-approved"]) {
      const r = spawnSync(process.execPath, [join(root, "scripts", "bench", "profile-summary.mjs"), profileDir, "--segment", seg, "--top", "15"], {
        encoding: "utf8",
      });
      process.stderr.write(r.stdout + r.stderr);
    }
    log(`profiles: ${profileDir} (node scripts/bench/profile-summary.mjs <dir> --segment NAME --match TEXT)`);
  }
}

/** Asks app A's `next start` process for a heap snapshot and waits until it is written; returns its path. */
async function takeHeapSnapshot(app, label) {
  const next = appRss(app.child.pid);
  if (!next) return null;
  const before = new Set(readdirSync(heapDir));
  process.kill(next.pid, "SIGUSR2");
  // Written in place: done when the new file's size stops changing.
  for (let last = -1, deadline = Date.now() + 300_000; Date.now() < deadline;) {
    await sleep(2000);
    const file = readdirSync(heapDir).find((f) => !before.has(f) && f.endsWith(".heapsnapshot"));
    if (!file) continue;
    const size = statSync(join(heapDir, file)).size;
    if (size > 0 && size === last) {
      const named = join(heapDir, `${label}.heapsnapshot`);
      renameSync(join(heapDir, file), named);
      log(`heap snapshot ${label}: ${named} (${Math.round(size / 1048576)} MiB)`);
      return named;
    }
    last = size;
  }
  log(`heap snapshot ${label}: not written in 5 minutes`);
  return null;
}

/** --soak: only the steady mixed load, its memory sampled (scripts/bench/soak.mjs). */
async function soakOnlyRun(app, helperEnv, build) {
  const setupFile = join(tmp, "setup.json");
  runHelper(["setup", setupFile], helperEnv);
  const setup = JSON.parse(readFileSync(setupFile, "utf8"));
  const callsFile = join(tmp, "calls.json");
  runHelper(["events", setupFile, "3000", callsFile], helperEnv);
  const calls = JSON.parse(readFileSync(callsFile, "utf8"));
  const cookie = await signIn(app.baseUrl, setup.signIn.email, setup.signIn.password);
  log(`soak: ${soakMinutes} min of agents, a reviewer in Chromium and executors`);
  const result = await phase("soak", () =>
    soak({
      base: app.baseUrl,
      setup,
      calls,
      cookie,
      minutes: soakMinutes,
      rssKiB: () => appRss(app.child.pid)?.kib ?? null,
      heap: (gc) => memoryOf(app, gc),
      heapSnapshot: heapSnapshots ? (label) => takeHeapSnapshot(app, label) : null,
      chromiumLaunchOptions,
      log,
    }),
  );
  log("soak: load over; stopping the app");
  await app.stop();
  const figures = soakFigures(result).map((f) => ({ ...f, met: f.value == null ? null : f.met(f.value) }));
  writeModeResult("soak", build, figures, result);
}

/** Prints a mode's table and keeps it in bench/results/<date>.json under "<db>-<mode>". */
function writeModeResult(mode, build, figures, raw) {
  const fmt = (v, unit = "") => (v == null ? "—" : (v >= 100 ? Math.round(v).toLocaleString("en-US") : v.toFixed(2)) + unit);
  const table = [
    `### Countersign bench — ${provider}, --${mode}, ${new Date().toISOString()}`,
    "",
    "| Figure | Value | Detail | Target | Met? |",
    "|---|---|---|---|---|",
    ...figures.map(
      (f) => `| ${f.figure} | ${fmt(f.value, f.unit)} | ${f.detail} | ${f.target} | ${f.met == null ? "not measured" : f.met ? "yes" : "**no**"} |`,
    ),
  ].join("\n");
  process.stdout.write(table + "\n");
  const resultFile = join(root, "bench", "results", `${new Date().toISOString().slice(0, 10)}.json`);
  let day = {};
  try {
    day = JSON.parse(readFileSync(resultFile, "utf8"));
  } catch {
    // first run of the day
  }
  day[`${provider}-${mode}`] = {
    at: new Date().toISOString(),
    provider,
    node: process.version,
    build,
    table,
    figures: figures.map(({ key, figure, value, detail, target, met }) => ({ key, figure, value, detail, target, met })),
    raw,
  };
  writeFileSync(resultFile, JSON.stringify(day, null, 2) + "\n");
  log(`wrote ${resultFile}`);
}

/** --render: only the 256 KiB decision-page and the run-page scenarios (scripts/bench/render.mjs). */
async function renderOnlyRun(app, helperEnv, build) {
  const setupFile = join(tmp, "setup.json");
  runHelper(["setup", setupFile], helperEnv);
  const setup = JSON.parse(readFileSync(setupFile, "utf8"));
  const cookie = await signIn(app.baseUrl, setup.signIn.email, setup.signIn.password);
  log("decision page of a 256 KiB request: server time, size, health check during 3 renders");
  const render = await phase("render", () => renderBench({ base: app.baseUrl, cookie, service: setup.services[0], samples: P.pageSamples }));
  log(`run page of ${RUN_SCENARIO} look-alike requests: server time, size, health check during 8 renders, the queue filtered to the run`);
  const seedRun = (n, bytes) => runHelper(["lookalike-run", setupFile, String(n), String(bytes)], helperEnv);
  await profileMark("render-decision-page");
  const runPage = await phase("run_page", () => runPageBench({ base: app.baseUrl, cookie, seedRun, samples: P.pageSamples, log, mark: profileMark }));
  await app.stop();
  const figures = renderFigures(render, runPage).map((f) => ({ ...f, met: f.value == null ? null : f.met(f.value) }));
  writeModeResult("render", build, figures, { ...render, run_page: runPage });
}

async function cleanup() {
  for (const c of cleanups.reverse()) {
    try {
      await c();
    } catch (e) {
      log(`cleanup: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  if (!process.env.BENCH_KEEP_TMP) rmSync(tmp, { recursive: true, force: true });
}

process.on("SIGINT", () => void cleanup().then(() => process.exit(130)));
main()
  .catch((e) => {
    process.exitCode = 1;
    if (!String(e?.message).length) log(String(e));
    else if (!e.reported) log(e.stack ?? e.message);
  })
  .finally(cleanup);
