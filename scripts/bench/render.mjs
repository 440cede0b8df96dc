// Bench scenario (scripts/bench.mjs, `npm run bench -- --render` alone or as
// part of a full run): the decision page of a 256 KiB request, a
// 128,000-element array, against a small request's page (docs/security.md,
// bounded rendering). Measures the page's server time (sequential GETs, body
// read) and size, and the health check's latency while three such pages
// render at once. Figures, not test assertions: wall-clock time on a shared
// machine is noise for a test.
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

async function pageOnce(base, cookie, id) {
  const t0 = performance.now();
  const res = await fetch(`${base}/approvals/${id}`, { headers: { cookie: cookie.header }, redirect: "manual" });
  const bytes = (await res.arrayBuffer()).byteLength;
  if (res.status !== 200) throw new Error(`render bench: GET /approvals/${id} answered ${res.status}`);
  return { ms: performance.now() - t0, bytes };
}

async function pageTimes(base, cookie, id, samples) {
  for (let i = 0; i < 2; i++) await pageOnce(base, cookie, id); // warm-up
  const runs = [];
  for (let i = 0; i < samples; i++) runs.push(await pageOnce(base, cookie, id));
  const ms = runs.map((r) => r.ms);
  return { samples, median: round1(quantile(ms, 0.5)), p95: round1(quantile(ms, 0.95)), max: round1(Math.max(...ms)), bytes: runs[0].bytes };
}

/** Three renders at once; the health check polled one request at a time until they are done. */
async function healthDuringRenders(base, cookie, id) {
  const t0 = performance.now();
  let done = false;
  const pages = Promise.all([0, 1, 2].map(() => pageOnce(base, cookie, id))).finally(() => (done = true));
  const health = [];
  while (!done || health.length === 0) {
    const h0 = performance.now();
    const r = await fetch(`${base}/api/health`);
    await r.arrayBuffer();
    health.push(performance.now() - h0);
  }
  await pages;
  return {
    wall_ms: round1(performance.now() - t0),
    health_samples: health.length,
    health_max_ms: round1(Math.max(...health)),
    health_p50_ms: round1(quantile(health, 0.5)),
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

/** The scenario's rows for the bench table. */
export function renderFigures(r) {
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
      detail: `${r.concurrent.health_samples} checks, p50 ${r.concurrent.health_p50_ms} ms; the 3 pages took ${r.concurrent.wall_ms} ms`,
      unit: " ms",
      target: "< 1,000 ms",
      met: (v) => v < 1000,
    },
  ];
}
