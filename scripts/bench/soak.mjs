// `npm run bench -- --soak [--minutes N]`: minutes of steady, mixed traffic
// against app A, sampling its memory, to find what grows (issue: insight).
//
// The traffic, all through the product's own doors:
//   - agents: realistic calls (scripts/bench/traffic.ts) sent at a steady
//     pace through the TypeScript client, each signed as it is sent; every
//     request lives 45 seconds;
//   - one reviewer in Chromium, signed in, opening requests in arrival order
//     and approving them (every fifth denied, with a reason). Four-eyes
//     requests get one approval and expire: expiry is part of the mix;
//   - executors: each request's agent long-polls its state, consumes the
//     decision once it has one, and reports the run of an approved call.
// Every 5 s: the `next start` process tree's RSS and the V8 heap
// (/api/bench/memory). Figures: RSS at the end ÷ RSS after the first minute,
// and the peak RSS.
import { CountersignClient, resultDigest } from "@countersign/client";
import { randomBytes } from "node:crypto";
import { setMaxListeners } from "node:events";

const SEND_INTERVAL_MS = 250; // four calls a second
// Short enough that the open long-polls (the working set) reach their steady number within the first minute.
const REQUEST_TTL_SECONDS = 45;
const SAMPLE_MS = 5000;

/**
 * @param {object} o
 * @param {string} o.base the app's base URL
 * @param {{ services: Array<{ slug: string; webhook_secret: string; api_token: string }> }} o.setup
 * @param {Array<{ slug: string; data: Record<string, unknown> }>} o.calls unsigned calls, more than the soak sends
 * @param {{ name: string; value: string }} o.cookie the reviewer's session cookie
 * @param {number} o.minutes
 * @param {() => number | null} o.rssKiB the app's RSS now
 * @param {(gc?: boolean) => Promise<{ heapUsed?: number; heapTotal?: number } | null>} o.heap the app's V8 heap (MiB), after a full GC when asked
 * @param {((label: string) => Promise<string | null>) | null} [o.heapSnapshot] takes a heap snapshot of the app (`--heap-snapshots`)
 * @param {object} o.chromiumLaunchOptions
 * @param {(m: string) => void} o.log
 */
export async function soak({ base, setup, calls, cookie, minutes, rssKiB, heap, heapSnapshot = null, chromiumLaunchOptions, log }) {
  const clients = new Map(
    setup.services.map((s) => [
      s.slug,
      new CountersignClient({ baseUrl: base, serviceSlug: s.slug, webhookSecret: s.webhook_secret, apiToken: s.api_token, timeoutMs: 30_000 }),
    ]),
  );
  const stop = new AbortController();
  // Every waiting executor listens on it: hundreds at once, by design.
  setMaxListeners(0, stop.signal);
  const counts = { sent: 0, accepted: 0, approved: 0, denied: 0, expired: 0, revised: 0, reported: 0, votes: 0 };
  const failures = new Map();
  const fault = (why) => failures.set(why, (failures.get(why) ?? 0) + 1);
  const toReview = [];
  const executors = new Set();
  const samples = [];
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;

  /** The agent's side of one call: wait for the decision, consume it once, report an approved run. */
  const execute = async (client, created, data) => {
    try {
      const state = await client.waitForDecision(created.approval_id, { timeoutMs: (REQUEST_TTL_SECONDS + 60) * 1000, signal: stop.signal });
      if (state.status === "pending" || state.status === "cancelled") return;
      const taken = await client.consume(created.approval_id, {
        run_id: data.run_id,
        call_id: data.call_id,
        tool: data.tool,
        args_digest: created.args_digest,
      });
      counts[taken.decision] = (counts[taken.decision] ?? 0) + 1;
      if (taken.decision !== "approved") return;
      const result = { ok: true, reference: randomBytes(8).toString("hex") };
      await client.reportExecution(created.approval_id, {
        status: "succeeded",
        result_digest: resultDigest(result, created.args_salt),
        finished_at: new Date().toISOString(),
      });
      counts.reported++;
    } catch (e) {
      if (!stop.signal.aborted) fault(`executor: ${e?.code ?? e?.message ?? e}`);
    }
  };

  const agents = (async () => {
    for (let i = 0; !stop.signal.aborted; i++) {
      const due = started + i * SEND_INTERVAL_MS;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (stop.signal.aborted) break;
      const call = calls[i % calls.length];
      const client = clients.get(call.slug);
      // A fresh run for each send: calls repeat when the soak outlasts the list.
      const data = { ...call.data, run_id: `${call.data.run_id}-${i}`, expires_in: REQUEST_TTL_SECONDS };
      counts.sent++;
      void client
        .requestApproval(data)
        .then((created) => {
          counts.accepted++;
          toReview.push({ id: created.approval_id, at: performance.now() });
          const task = execute(client, created, data);
          executors.add(task);
          void task.finally(() => executors.delete(task));
        })
        .catch((e) => fault(`webhook: ${e?.code ?? e?.message ?? e}`));
    }
  })();

  const reviewer = (async () => {
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch(chromiumLaunchOptions);
    try {
      const context = await browser.newContext();
      await context.addCookies([{ name: cookie.name, value: cookie.value, url: base }]);
      const page = await context.newPage();
      for (let n = 0; !stop.signal.aborted;) {
        const next = toReview.shift();
        if (!next) {
          await new Promise((r) => setTimeout(r, 200));
          continue;
        }
        // Leave requests that are about to expire: a human would not start on them either.
        if (performance.now() - next.at > (REQUEST_TTL_SECONDS - 20) * 1000) continue;
        try {
          await page.goto(`${base}/approvals/${next.id}`, { timeout: 30_000 });
          const approve = page.getByRole("button", { name: "Approve", exact: true });
          if (!(await approve.isVisible())) continue; // not this reviewer's to decide, or decided already
          if (++n % 5 === 0) {
            await page.getByLabel("Reason").fill("Not during the freeze");
            await page.getByRole("button", { name: "Deny" }).click();
          } else {
            await approve.click();
            // Destructive calls ask for a second press on the same button.
            const confirm = page.getByRole("button", { name: "Confirm approve" });
            if (await confirm.isVisible().catch(() => false)) await confirm.click();
          }
          await page.getByTestId("decision-result").waitFor({ timeout: 30_000 });
          counts.votes++;
        } catch (e) {
          if (!stop.signal.aborted) fault(`reviewer: ${(e?.message ?? String(e)).split("\n")[0].slice(0, 80)}`);
        }
      }
    } finally {
      await browser.close();
    }
  })();

  const sampler = (async () => {
    while (!stop.signal.aborted) {
      const h = await heap();
      samples.push({
        t: Math.round(elapsed()),
        rss_kib: rssKiB(),
        heap_used_mib: h?.heapUsed ?? null,
        heap_total_mib: h?.heapTotal ?? null,
        external_mib: h?.external ?? null,
        pending_executors: executors.size,
      });
      const last = samples[samples.length - 1];
      if (samples.length % 12 === 1) {
        log(
          `soak ${Math.round(elapsed())} s: RSS ${Math.round((last.rss_kib ?? 0) / 1024)} MiB, heap ${last.heap_used_mib} of ${last.heap_total_mib} MiB, external ${last.external_mib} MiB, ${executors.size} waiting, ${counts.accepted} requests, ${counts.votes} votes, ${counts.reported} runs reported`,
        );
      }
      await new Promise((r) => setTimeout(r, SAMPLE_MS));
    }
  })();

  // After the first minute and at the end of the load, under traffic: the live heap (after a full
  // GC), to tell what is alive from garbage V8 has not collected yet; with --heap-snapshots also a
  // snapshot of it (a snapshot runs a full GC first, so it holds only what is alive). Each pauses the app.
  const snapshots = [];
  const live = {};
  const checkpoint = async (label) => {
    live[label] = (await heap(true))?.heapUsed ?? null;
    if (heapSnapshot) snapshots.push(await heapSnapshot(`soak-${label}`));
  };
  await new Promise((r) => setTimeout(r, Math.min(60_000, minutes * 60_000 - 1000)));
  await checkpoint("first-minute");
  await new Promise((r) => setTimeout(r, Math.max(0, minutes * 60_000 - elapsed() * 1000)));
  await checkpoint("end");
  stop.abort();
  // Everything stops on the signal; a part that does not within a minute is named, and the figures taken anyway.
  const parts = { agents, reviewer, sampler };
  const settled = new Set();
  for (const [name, p] of Object.entries(parts)) void p.finally(() => settled.add(name));
  const done = Promise.allSettled([...Object.values(parts), ...executors]);
  const late = await Promise.race([done.then(() => false), new Promise((r) => setTimeout(() => r(true), 60_000).unref())]);
  if (late) {
    const stuck = Object.keys(parts).filter((n) => !settled.has(n));
    log(`soak: still running a minute after the load stopped: ${[...stuck, `${executors.size} executors`].join(", ")}; measuring anyway`);
  }
  // What stays once the load is gone: RSS and the live heap after a full GC.
  await new Promise((r) => setTimeout(r, 5000));
  const afterGc = await heap(true);
  const idleRss = rssKiB();

  const withRss = samples.filter((s) => s.rss_kib);
  const firstMinute = withRss.find((s) => s.t >= 60) ?? withRss[0];
  const end = withRss[withRss.length - 1];
  const peak = Math.max(...withRss.map((s) => s.rss_kib));
  return {
    minutes,
    send_interval_ms: SEND_INTERVAL_MS,
    request_ttl_seconds: REQUEST_TTL_SECONDS,
    counts,
    failures: [...failures].map(([why, n]) => `${n} × ${why}`),
    rss_mib: {
      after_first_minute: firstMinute ? Math.round(firstMinute.rss_kib / 1024) : null,
      end: end ? Math.round(end.rss_kib / 1024) : null,
      peak: Math.round(peak / 1024),
    },
    growth: firstMinute && end ? Math.round((end.rss_kib / firstMinute.rss_kib) * 1000) / 1000 : null,
    live_heap_mib: { after_first_minute: live["first-minute"], end: live.end },
    after_load: { rss_mib: idleRss ? Math.round(idleRss / 1024) : null, heap_used_after_gc_mib: afterGc?.heapUsed ?? null, heap: afterGc },
    heap_snapshots: snapshots.filter(Boolean),
    samples,
  };
}

/** The soak's figures, with their targets. */
export function soakFigures(r) {
  return [
    {
      key: "soak_rss_growth",
      figure: "Soak: RSS at the end ÷ RSS after the first minute",
      value: r.growth,
      unit: "",
      detail: `${r.rss_mib.after_first_minute} → ${r.rss_mib.end} MiB over ${r.minutes} min`,
      target: "≤ 1.1",
      met: (v) => v <= 1.1,
    },
    {
      key: "soak_rss_peak",
      figure: "Soak: peak RSS",
      value: r.rss_mib.peak,
      unit: " MiB",
      detail: `${r.counts.accepted} requests, ${r.counts.votes} votes, ${r.counts.reported} runs reported`,
      target: "≤ 512 MiB",
      met: (v) => v <= 512,
    },
    {
      key: "soak_live_heap_growth",
      figure: "Soak: live V8 heap (after a full GC) at the end ÷ after the first minute",
      value:
        r.live_heap_mib.after_first_minute && r.live_heap_mib.end
          ? Math.round((r.live_heap_mib.end / r.live_heap_mib.after_first_minute) * 100) / 100
          : null,
      unit: "",
      detail: `${r.live_heap_mib.after_first_minute} → ${r.live_heap_mib.end} MiB; ${r.after_load.heap_used_after_gc_mib} MiB once the load stopped`,
      target: "≤ 1.1 (a leak grows it)",
      met: (v) => v <= 1.1,
    },
  ];
}
