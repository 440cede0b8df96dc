// Bench scenario (scripts/bench.mjs, `npm run bench -- --render` alone or as
// part of a full run): the decision page of a 256 KiB request, a
// 128,000-element array, against a small request's page (docs/security.md,
// bounded rendering). Measures the page's server time (sequential GETs, body
// read) and size, and the health check's latency while three such pages
// render at once. Figures, not test assertions: wall-clock time on a shared
// machine is noise for a test.
//
// Then the run page (docs/revisions.md): one run of 100 requests of about
// 145 KB of look-alike arguments each (Cyrillic letters in Latin words,
// zero-width characters, direction overrides and isolates; look-alike
// requested_by, summary and environment too), seeded through
// scripts/bench/helper.ts (lookalike-run), against a run of 100 requests of
// about 1 KB of the same text: the run page's server time and size (its
// first page: 25 requests, as the queue shows), the health check while 8
// such run pages render at once, and the queue page filtered to each run
// (25 of its requests shown).
import { createHmac, randomUUID } from "node:crypto";

const round1 = (x) => (x == null ? null : Math.round(x * 10) / 10);
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] : null;
};

/** Sends one approval request as a signed Standard Webhook; returns its id. */
async function requestApproval(base, service, data) {
  const body = JSON.stringify({ type: "approval.requested", timestamp: new Date().toISOString(), data });
  const id = `msg_bench_${randomUUID()}`;
  const timestamp = Math.floor(Date.now() / 1000);
  const key = Buffer.from(service.webhook_secret.slice("whsec_".length), "base64");
  const signature = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
  const res = await fetch(`${base}/api/v1/webhooks/${service.slug}`, {
    method: "POST",
    headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": `v1,${signature}` },
    body,
  });
  if (res.status !== 201) throw new Error(`render bench: webhook answered ${res.status}: ${await res.text()}`);
  return { id: (await res.json()).approval_id, bodyBytes: Buffer.byteLength(body) };
}

/** One GET of a page (a request's page by default), body read; `check` says whether the body is the page meant. */
async function pageOnce(base, cookie, id, path = `/approvals/${id}`, check = () => true) {
  const t0 = performance.now();
  const res = await fetch(`${base}${path}`, { headers: { cookie: cookie.header }, redirect: "manual" });
  const body = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`render bench: GET ${path} answered ${res.status}`);
  if (!check(body)) throw new Error(`render bench: GET ${path} is not the page expected`);
  return { ms, bytes: Buffer.byteLength(body) };
}

async function pageTimes(base, cookie, id, samples, path, check) {
  for (let i = 0; i < 2; i++) await pageOnce(base, cookie, id, path, check); // warm-up
  const runs = [];
  for (let i = 0; i < samples; i++) runs.push(await pageOnce(base, cookie, id, path, check));
  const ms = runs.map((r) => r.ms);
  return { samples, median: round1(quantile(ms, 0.5)), p95: round1(quantile(ms, 0.95)), max: round1(Math.max(...ms)), bytes: runs[0].bytes };
}

/** `n` renders at once (three by default); the health check polled one request at a time until they are done. */
async function healthDuringRenders(base, cookie, id, n = 3, path, check) {
  const t0 = performance.now();
  let done = false;
  const pages = Promise.allSettled(Array.from({ length: n }, () => pageOnce(base, cookie, id, path, check))).finally(() => (done = true));
  const health = [];
  while (!done || health.length === 0) {
    const h0 = performance.now();
    const r = await fetch(`${base}/api/health`);
    await r.arrayBuffer();
    health.push(performance.now() - h0);
  }
  const failed = (await pages).filter((p) => p.status === "rejected");
  return {
    wall_ms: round1(performance.now() - t0),
    health_samples: health.length,
    health_max_ms: round1(Math.max(...health)),
    health_p50_ms: round1(quantile(health, 0.5)),
    // A page that failed (the app closed the connection, or answered something else) is said, not hidden.
    ...(failed.length
      ? { error: `${failed.length} of ${n} pages failed: ${String(failed[0].reason?.cause?.message ?? failed[0].reason?.message)}` }
      : {}),
  };
}

/**
 * @param {{ base: string, cookie: { header: string }, service: { slug: string, webhook_secret: string }, samples: number }} o
 */
export async function renderBench({ base, cookie, service, samples }) {
  const run = () => `run_${randomUUID()}`;
  const big = await requestApproval(base, service, {
    run_id: run(),
    call_id: "c1",
    tool: "bulk.import",
    arguments: { items: Array.from({ length: 128_000 }, () => 0) },
  });
  const small = await requestApproval(base, service, { run_id: run(), call_id: "c1", tool: "bulk.import", arguments: { items: [0, 0, 0] } });
  const bigPage = await pageTimes(base, cookie, big.id, samples);
  const smallPage = await pageTimes(base, cookie, small.id, samples);
  const concurrent = await healthDuringRenders(base, cookie, big.id);
  return { webhook_body_bytes: big.bodyBytes, big: bigPage, small: smallPage, concurrent };
}

/** Requests per run in the run-page scenario (the most a run lists), and per page of it (RUN_PAGE_SIZE in lib/runs/run-review.ts). */
const RUN_REQUESTS = 100;
const RUN_PAGE_REQUESTS = 25;

/**
 * The run-page scenario. `seedRun(n, bytes)` makes one run of n look-alike
 * requests through scripts/bench/helper.ts and returns { service, run_id, ids, mean_arg_bytes }.
 * @param {{ base: string, cookie: { header: string }, seedRun: (n: number, bytes: number) => { service: string, run_id: string, ids: string[], mean_arg_bytes: number }, samples: number, log?: (m: string) => void, mark?: (label: string) => Promise<void> }} o
 */
export async function runPageBench({ base, cookie, seedRun, samples, log, mark }) {
  const big = seedRun(RUN_REQUESTS, 145_000);
  const small = seedRun(RUN_REQUESTS, 1_000);
  const runPath = (r) => `/runs/${encodeURIComponent(r.service)}/${encodeURIComponent(r.run_id)}`;
  const queuePath = (r) => `/approvals?${new URLSearchParams({ service: r.service, run: r.run_id })}`;
  // The page meant: the run page's first page of requests, and the queue's.
  const lists = (n) => (html) => (html.match(/data-testid="run-request"/g) ?? []).length === n;
  const queued = (r) => (html) => html.includes("Needs your review") && r.ids.some((id) => html.includes(id));
  const step = async (name, fn) => {
    const r = await fn();
    log?.(`run page scenario: ${name}: ${JSON.stringify(r)}`);
    return r;
  };
  const bigRun = await step("run page, large", () => pageTimes(base, cookie, null, samples, runPath(big), lists(RUN_PAGE_REQUESTS)));
  const smallRun = await step("run page, small", () => pageTimes(base, cookie, null, samples, runPath(small), lists(RUN_PAGE_REQUESTS)));
  const bigQueue = await step("queue, large", () => pageTimes(base, cookie, null, samples, queuePath(big), queued(big)));
  const smallQueue = await step("queue, small", () => pageTimes(base, cookie, null, samples, queuePath(small), queued(small)));
  // Last: before the bound, eight of these at once could take the app down.
  // With --profile, this stretch is a CPU-profile segment of its own.
  await mark?.("run-page-seed-and-single-renders");
  const concurrent = await step("8 at once", () =>
    healthDuringRenders(base, cookie, null, 8, runPath(big), lists(RUN_PAGE_REQUESTS)).catch((e) => ({
      // The health check itself failed: the app is down.
      error: `the health check failed: ${String(e?.cause?.message ?? e?.message ?? e)}`,
      health_max_ms: null,
    })),
  );
  return {
    requests: RUN_REQUESTS,
    per_page: RUN_PAGE_REQUESTS,
    mean_arg_bytes: { big: big.mean_arg_bytes, small: small.mean_arg_bytes },
    run: { big: bigRun, small: smallRun },
    concurrent,
    queue: { big: bigQueue, small: smallQueue },
  };
}

const kib = (bytes) => Math.round((bytes / 1024) * 100) / 100;

/** The scenario's rows for the bench table (the run page's when it ran). */
export function renderFigures(r, run) {
  return [
    {
      key: "render_256k_page_ms",
      figure: `Decision page of a 256 KiB request (128,000-element array), server time median (${r.big.samples} sequential)`,
      value: r.big.median,
      detail: `p95 ${r.big.p95} ms, max ${r.big.max} ms; small request's page ${r.small.median} ms (ratio ${(r.big.median / r.small.median).toFixed(2)})`,
      unit: " ms",
      target: "< 1,000 ms",
      met: (v) => v < 1000,
    },
    {
      key: "render_256k_page_bytes",
      figure: "Decision page size, 256 KiB request",
      value: r.big.bytes / 1024,
      detail: `${r.big.bytes.toLocaleString("en-US")} B (small request: ${r.small.bytes.toLocaleString("en-US")} B; webhook body ${r.webhook_body_bytes.toLocaleString("en-US")} B)`,
      unit: " KiB",
      target: "< 1,024 KiB",
      met: (v) => v < 1024,
    },
    {
      key: "render_health_max_ms",
      figure: "Health check, slowest answer while 3 such pages render at once",
      value: r.concurrent.health_max_ms,
      detail: `${r.concurrent.health_samples} checks, p50 ${r.concurrent.health_p50_ms} ms; the 3 pages took ${r.concurrent.wall_ms} ms${r.concurrent.error ? `; ${r.concurrent.error}` : ""}`,
      unit: " ms",
      target: "< 1,000 ms",
      met: (v) => v < 1000,
    },
    ...(run ? runPageFigures(run) : []),
  ];
}

function runPageFigures(r) {
  const args = `${r.requests} requests of ${r.mean_arg_bytes.big.toLocaleString("en-US")} B of look-alike arguments`;
  const small = `${r.mean_arg_bytes.small.toLocaleString("en-US")} B`;
  return [
    {
      key: "run_page_ms",
      figure: `Run page of a run of ${args} (${r.per_page} on a page), server time median (${r.run.big.samples} sequential)`,
      value: r.run.big.median,
      detail: `p95 ${r.run.big.p95} ms, max ${r.run.big.max} ms; a run of ${small} requests ${r.run.small.median} ms (ratio ${(r.run.big.median / r.run.small.median).toFixed(2)})`,
      unit: " ms",
      target: "< 100 ms",
      met: (v) => v < 100,
    },
    {
      key: "run_page_bytes",
      figure: "Run page size, same run",
      value: kib(r.run.big.bytes),
      detail: `${r.run.big.bytes.toLocaleString("en-US")} B (a run of ${small} requests: ${r.run.small.bytes.toLocaleString("en-US")} B)`,
      unit: " KiB",
      target: "< 1,024 KiB",
      met: (v) => v < 1024,
    },
    {
      key: "run_page_health_max_ms",
      figure: "Health check, slowest answer while 8 such run pages render at once",
      value: r.concurrent.health_max_ms,
      detail:
        r.concurrent.health_max_ms == null
          ? r.concurrent.error
          : `${r.concurrent.health_samples} checks, p50 ${r.concurrent.health_p50_ms} ms; the 8 pages took ${r.concurrent.wall_ms} ms${r.concurrent.error ? `; ${r.concurrent.error}` : ""}`,
      unit: " ms",
      target: "< 100 ms",
      met: (v) => v < 100,
    },
    {
      key: "run_queue_ms",
      figure: `Queue page filtered to that run, server time median (${r.queue.big.samples} sequential)`,
      value: r.queue.big.median,
      detail: `p95 ${r.queue.big.p95} ms; ${kib(r.queue.big.bytes)} KiB; filtered to the run of ${small} requests ${r.queue.small.median} ms, ${kib(r.queue.small.bytes)} KiB`,
      unit: " ms",
      target: "< 100 ms",
      met: (v) => v < 100,
    },
  ];
}
