// `npm run bench [-- --db sqlite|postgres] [--quick] [--rebuild]` (issue: benchmark).
//
// Builds into .tmp/next-bench if there is no build there, starts the built app
// (scripts/start.ts, production mode, fresh secrets) on a fresh database with
// COUNTERSIGN_BENCH=1, drives it with autocannon from this process, and writes
// bench/results/<YYYY-MM-DD>.json plus a Markdown table on stdout.
// Data generation, signing and domain set-up run in a TypeScript helper
// (scripts/bench/helper.ts) against the same database. Not part of `npm test`.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import pg from "pg";

const root = process.cwd();
const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
const rebuild = argv.includes("--rebuild");
const dbArg = argv.includes("--db") ? argv[argv.indexOf("--db") + 1] : "sqlite";
if (!["sqlite", "postgres", "postgresql"].includes(dbArg)) fail(`--db must be sqlite or postgres, not ${dbArg}`);
const provider = dbArg === "sqlite" ? "sqlite" : "postgresql";

const DIST = ".tmp/next-bench";
const tsx = join(root, "node_modules", "tsx", "dist", "cli.mjs");
const nextBin = join(root, "node_modules", "next", "dist", "bin", "next");
const runId = `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(3).toString("hex")}`;
const tmp = join(root, "bench", "tmp", runId);

const P = quick
  ? { noopSeconds: 3, ingestN: 600, consumeN: 400, auditEvents: 100_000, connections: 16 }
  : { noopSeconds: 10, ingestN: 3000, consumeN: 2000, auditEvents: 100_000, connections: 16 };

const cleanups = [];
function fail(msg) {
  process.stderr.write(`bench: ${msg}\n`);
  process.exitCode = 1;
  throw Object.assign(new Error(msg), { reported: true });
}
const log = (m) => process.stderr.write(`bench: ${m}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------- build ----------
function buildIfNeeded() {
  if (!rebuild && existsSync(join(root, DIST, "BUILD_ID"))) return { built: false };
  log(`building into ${DIST} (takes a minute)…`);
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
  const base = process.env.PG_TEST_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
  const name = `cs_bench_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
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
  while (stack.length) for (const c of childrenOf(stack.pop())) (all.push(c), stack.push(c));
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
/** RSS of the `next start` process plus anything it spawned (KiB). */
function appRss(launcherPid) {
  const next = descendants(launcherPid).find((p) => /next-server|next\/dist\/bin\/next start/.test(cmdline(p)));
  if (!next) return null;
  return { pid: next, kib: [next, ...descendants(next)].reduce((s, p) => s + rssKiB(p), 0) };
}

async function startApp(port, env) {
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
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
    });
  cleanups.push(stop);
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) fail(`app exited early (${child.exitCode}):\n${out}`);
    try {
      const r = await fetch(`${baseUrl}/api/bench/noop`);
      if (r.status === 200) break;
      if (r.status === 404) fail(`/api/bench/noop answered 404: the build in ${DIST} predates it; run with --rebuild`);
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) fail(`app did not start in time:\n${out}`);
    await sleep(250);
  }
  return { baseUrl, child, stop, output: () => out };
}

/** autocannon run; `list` (optional) supplies one distinct request per call. */
function cannon(opts, list) {
  let i = 0;
  const requests = list
    ? [
        {
          setupRequest: (req) => {
            const r = list[Math.min(i++, list.length - 1)];
            return { ...req, method: r.method ?? "POST", path: r.path, headers: r.headers, body: r.body };
          },
        },
      ]
    : undefined;
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    autocannon({ ...opts, requests }, (err, res) => {
      if (err) return reject(err);
      const seconds = (performance.now() - t0) / 1000;
      resolve({
        total: res.requests.total,
        seconds,
        rps: res.requests.total / (res.duration || seconds),
        p50: res.latency.p50,
        p99: res.latency.p99,
        max: res.latency.max,
        non2xx: res.non2xx,
        errors: res.errors,
        timeouts: res.timeouts,
        statusCodes: res.statusCodeStats,
      });
    });
  });
}

// ---------- main ----------
async function main() {
  mkdirSync(tmp, { recursive: true });
  mkdirSync(join(root, "bench", "results"), { recursive: true });
  const build = buildIfNeeded();

  const database = await freshDatabase();
  cleanups.push(database.drop);
  const secrets = runHelper(["secrets"], {});
  const env = {
    ...secrets,
    DATABASE_URL: database.url,
    COUNTERSIGN_DATA_DIR: join(tmp, "data"),
    COUNTERSIGN_BENCH: "1",
    NEXT_DIST_DIR: DIST,
    LOG_LEVEL: "warn",
  };
  const helperEnv = { ...env, NODE_ENV: "production" };
  const port = await freePort();
  log(`starting the app on ${provider}, port ${port}…`);
  const app = await startApp(port, env);
  const base = app.baseUrl;

  log("set-up: services, reviewers");
  const setupFile = join(tmp, "setup.json");
  runHelper(["setup", setupFile], helperEnv);

  log(`preparing ${P.consumeN + 40} approved requests to consume…`);
  const consumeFile = join(tmp, "consumes.json");
  runHelper(["consumes", setupFile, String(P.consumeN + 40), consumeFile], helperEnv);
  const consumes = JSON.parse(readFileSync(consumeFile, "utf8")).map((c) => ({
    path: `/api/v1/approvals/${c.id}/consume`,
    headers: { authorization: `Bearer ${c.token}`, "content-type": "application/json" },
    body: JSON.stringify(c.binding),
  }));

  log(`generating ${P.ingestN + 50} signed webhooks…`);
  const hookFile = join(tmp, "webhooks.json");
  const hookStats = runHelper(["webhooks", setupFile, String(P.ingestN + 50), hookFile], helperEnv);
  const hooks = JSON.parse(readFileSync(hookFile, "utf8"));

  // Warm-up: every measured route once the JIT and lazy route loading have run.
  log("warm-up");
  await cannon({ url: `${base}/api/bench/noop`, connections: 4, duration: 1 });
  await cannon({ url: base, connections: 4, amount: 50 }, hooks.slice(0, 50));
  await cannon({ url: base, connections: 4, amount: 40 }, consumes.slice(0, 40));
  await sleep(1000);
  const idle = appRss(app.child.pid);

  log(`trivial route: ${P.noopSeconds} s at ${P.connections} connections`);
  const noop = await cannon({ url: `${base}/api/bench/noop`, connections: P.connections, duration: P.noopSeconds });

  log(`ingest: ${P.ingestN} signed webhooks at ${P.connections} connections`);
  const ingest = await cannon({ url: base, connections: P.connections, amount: P.ingestN, timeout: 30 }, hooks.slice(50));

  log(`consume: ${P.consumeN} consumes at ${P.connections} concurrent executors`);
  const consume = await cannon({ url: base, connections: P.connections, amount: P.consumeN, timeout: 30 }, consumes.slice(40));

  await sleep(2000);
  const loaded = appRss(app.child.pid);
  await app.stop();

  log(`audit: seeding the chain to ${P.auditEvents} events, then verify`);
  const seeded = runHelper(["seed-audit", String(P.auditEvents)], helperEnv);
  const verify = runHelper(["verify-audit"], helperEnv);

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
    { key: "queue_page_ratio", figure: "Queue page server time, 100,000 pending ÷ 100 pending", value: null, detail: "not measured", target: "≤ 1.5" },
    { key: "live_queue_p95", figure: "Webhook accepted → row visible in open queue page, p95 (Playwright, 20)", value: null, detail: "not measured", target: "≤ 2 s" },
    {
      key: "audit_verify_eps",
      figure: `audit verify events/s (${verify.events} events)`,
      value: verify.ok ? verify.events / (verify.ms / 1000) : null,
      detail: verify.ok ? `${verify.events} in ${(verify.ms / 1000).toFixed(2)} s` : `chain broken: ${verify.reason}`,
      target: "≥ 50,000",
      met: (v) => v >= 50_000,
    },
    { key: "audit_on_off_ratio", figure: "Ingest throughput with audit chain ÷ without", value: null, detail: "not measured (no bench-only switch)", target: "≥ 0.8" },
    {
      key: "rss_ratio",
      figure: "App resident memory after load ÷ idle",
      value: ratio(loaded?.kib, idle?.kib),
      detail: idle && loaded ? `${(loaded.kib / 1024).toFixed(0)} MiB ÷ ${(idle.kib / 1024).toFixed(0)} MiB` : "next start process not found",
      target: "≤ 1.5",
      met: (v) => v <= 1.5,
    },
  ].map((f) => ({ ...f, met: f.value == null ? null : f.met(f.value) }));

  const fmt = (v) => (v == null ? "—" : v >= 100 ? Math.round(v).toLocaleString("en-US") : v.toFixed(2));
  const lines = [
    `### Countersign bench — ${provider}${quick ? " (quick)" : ""}, ${new Date().toISOString()}`,
    "",
    "| Figure | Value | Detail | Target | Met? |",
    "|---|---|---|---|---|",
    ...figures.map((f) => `| ${f.figure} | ${fmt(f.value)} | ${f.detail} | ${f.target} | ${f.met == null ? "not measured" : f.met ? "yes" : "**no**"} |`),
    "",
    `Requests: trivial ${noop.total} (non-2xx ${noop.non2xx}, errors ${noop.errors}); ingest ${ingest.total} (non-2xx ${ingest.non2xx}, errors ${ingest.errors}, mean body ${hookStats.mean_body_bytes} B); consume ${consume.total} (non-2xx ${consume.non2xx}, errors ${consume.errors}).`,
    `Latency p50/p99 ms: trivial ${noop.p50}/${noop.p99}; ingest ${ingest.p50}/${ingest.p99}; consume ${consume.p50}/${consume.p99}.`,
  ];
  if (ingest.non2xx || consume.non2xx || ingest.errors || consume.errors) {
    lines.push("", "**Warning:** some measured requests failed; the ratios above include them.");
  }
  process.stdout.write(lines.join("\n") + "\n");

  const date = new Date().toISOString().slice(0, 10);
  const resultFile = join(root, "bench", "results", `${date}.json`);
  writeFileSync(
    resultFile,
    JSON.stringify(
      {
        at: new Date().toISOString(),
        provider,
        quick,
        node: process.version,
        build,
        params: P,
        figures: figures.map(({ key, figure, value, detail, target, met }) => ({ key, figure, value, detail, target, met })),
        raw: { noop, ingest, consume, webhook_bodies: hookStats, rss_kib: { idle, loaded }, audit: { seeded, verify } },
      },
      null,
      2,
    ) + "\n",
  );
  log(`wrote ${resultFile}`);
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
