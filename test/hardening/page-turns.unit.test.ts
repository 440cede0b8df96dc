// Page renders take turns (scripts/server/page-turns.mjs), over a real HTTP
// server: at most `limit` pages render at once and the rest wait in arrival
// order, API requests and server actions never wait, a client that gave up
// while waiting is not rendered for, and a stuck render gives its turn up.
import { createServer, type Server } from "node:http";
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { isPageRender, pageTurns } from "../../scripts/server/page-turns.mjs";
import { generateSecrets } from "@/lib/local-secrets";
import { ConfigError, parseEnv } from "@/lib/env";

type Pending = { path: string; finish: () => void };

async function serve(limit: number, maxHoldMs?: number, bounds: { maxWaiting?: number; maxWaitMs?: number } = {}) {
  const turns = pageTurns({ limit, maxHoldMs, ...bounds });
  const started: string[] = [];
  const pending: Pending[] = [];
  let maxRunning = 0;
  const server: Server = createServer((req, res) =>
    turns.admit(req, res, () => {
      started.push(req.url!);
      maxRunning = Math.max(maxRunning, turns.running());
      // Pages stay open until the test finishes them; everything else answers at once.
      if (req.url!.startsWith("/page")) pending.push({ path: req.url!, finish: () => res.end(req.url) });
      else res.end(req.url);
    }),
  );
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { turns, started, pending, base, server, maxRunning: () => maxRunning };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

let servers: Server[] = [];
afterEach(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
});

describe("page renders take turns", () => {
  it("renders at most `limit` pages at once, in arrival order, while the API answers at once", async () => {
    const app = await serve(2);
    servers.push(app.server);
    const pages: Array<Promise<string>> = [];
    for (let k = 1; k <= 5; k++) {
      pages.push(fetch(`${app.base}/page${k}`).then((r) => r.text()));
      await until(() => app.turns.running() + app.turns.waiting() === k);
    }
    expect(app.started).toEqual(["/page1", "/page2"]);
    expect(app.turns.waiting()).toBe(3);

    // The health check, another API route and a server action (POST to a page) do not wait.
    expect(await (await fetch(`${app.base}/api/health`)).text()).toBe("/api/health");
    expect(await (await fetch(`${app.base}/api/v1/approvals/x`)).text()).toBe("/api/v1/approvals/x");
    expect(await (await fetch(`${app.base}/decide`, { method: "POST" })).text()).toBe("/decide");

    // Each finished page lets the next waiting one start, oldest first.
    for (let k = 0; k < 5; k++) {
      await until(() => app.pending.length > k);
      app.pending[k]!.finish();
    }
    expect(await Promise.all(pages)).toEqual(["/page1", "/page2", "/page3", "/page4", "/page5"]);
    expect(app.started.filter((p) => p.startsWith("/page"))).toEqual(["/page1", "/page2", "/page3", "/page4", "/page5"]);
    expect(app.maxRunning()).toBe(2);
    expect(app.turns.running()).toBe(0);
  });

  it("does not render for a client that left while waiting, and a closed connection ends a turn", async () => {
    const app = await serve(1);
    servers.push(app.server);
    const first = fetch(`${app.base}/page1`).then((r) => r.text());
    await until(() => app.turns.running() === 1);
    // A client that gives up while waiting.
    const gone = request(`${app.base}/page2`);
    gone.on("error", () => undefined);
    gone.end();
    await until(() => app.turns.waiting() === 1);
    gone.destroy();
    const third = fetch(`${app.base}/page3`).then((r) => r.text());
    await until(() => app.turns.waiting() === 2);
    await new Promise((r) => setTimeout(r, 50));
    app.pending[0]!.finish();
    expect(await first).toBe("/page1");
    await until(() => app.pending.length === 2);
    expect(app.started).toEqual(["/page1", "/page3"]);

    // A rendering page whose client closes the connection gives its turn up.
    const aborted = new AbortController();
    const fourth = fetch(`${app.base}/page4`, { signal: aborted.signal }).catch(() => "aborted");
    await until(() => app.turns.waiting() === 1);
    app.pending[1]!.finish();
    expect(await third).toBe("/page3");
    await until(() => app.started.includes("/page4"));
    aborted.abort();
    expect(await fourth).toBe("aborted");
    await until(() => app.turns.running() === 0);
  });

  it("a render that holds its turn past maxHoldMs lets the next page start", async () => {
    const app = await serve(1, 100);
    servers.push(app.server);
    void fetch(`${app.base}/page-stuck`).catch(() => undefined);
    await until(() => app.started.length === 1);
    const next = fetch(`${app.base}/page-next`).then((r) => r.text());
    await until(() => app.started.length === 2);
    app.pending[1]!.finish();
    expect(await next).toBe("/page-next");
  });

  it("answers 503 with Retry-After when too many wait, or one waited too long, and renders none of them", async () => {
    const app = await serve(1, undefined, { maxWaiting: 1, maxWaitMs: 300 });
    servers.push(app.server);
    void fetch(`${app.base}/page-busy`).catch(() => undefined);
    await until(() => app.turns.running() === 1);
    const waiting = fetch(`${app.base}/page-waits`);
    await until(() => app.turns.waiting() === 1);
    // The line is full: answered at once.
    const full = await fetch(`${app.base}/page-full`);
    expect(full.status).toBe(503);
    expect(full.headers.get("retry-after")).toBe("5");
    expect(await full.text()).toBe("Countersign is busy: try again in a few seconds.\n");
    // The one in line gives up after maxWaitMs.
    const late = await waiting;
    expect(late.status).toBe(503);
    expect(app.turns.waiting()).toBe(0);
    expect(app.started).toEqual(["/page-busy"]);
  });

  it("tells page renders from API routes, actions and files", () => {
    const cases: Array<[string, string, boolean]> = [
      ["GET", "/approvals", true],
      ["GET", "/runs/svc/run_1?page=2", true],
      ["HEAD", "/", true],
      ["GET", "/admin/users", true],
      ["GET", "/approvals/abc?_rsc=1x2", true],
      ["POST", "/approvals/abc", false],
      ["GET", "/api/health", false],
      ["GET", "/api", false],
      ["GET", "/scim/v2/Users", false],
      ["GET", "/_next/static/chunks/a.js", false],
      ["GET", "/favicon.ico", false],
      ["GET", "/sw.js", false],
      ["GET", "/manifest.webmanifest", false],
      ["GET", "/apiary", true],
      // A dot in a path segment is not a file: a run id such as v1.2.
      ["GET", "/runs/svc/v1.2", true],
      ["GET", "/approvals/apr_1.x", true],
    ];
    for (const [method, url, page] of cases) expect([method, url, isPageRender(method, url)]).toEqual([method, url, page]);
  });

  it("refuses a limit that is not a whole number of at least 1", () => {
    for (const limit of [0, -1, 1.5, Number.NaN]) expect(() => pageTurns({ limit })).toThrow("limit must be a whole number of at least 1");
  });
});

describe("PAGE_RENDER_CONCURRENCY", () => {
  const base = () => ({ ...generateSecrets(), NODE_ENV: "production" as const });

  it("defaults to 2 and takes a whole number from 1 to 64", () => {
    expect(parseEnv(base()).PAGE_RENDER_CONCURRENCY).toBe(2);
    for (const n of [1, 8, 64]) expect(parseEnv({ ...base(), PAGE_RENDER_CONCURRENCY: String(n) }).PAGE_RENDER_CONCURRENCY).toBe(n);
  });

  it("refuses anything else, naming the variable", () => {
    for (const raw of ["0", "-1", "1.5", "many", "65"]) {
      expect(() => parseEnv({ ...base(), PAGE_RENDER_CONCURRENCY: raw }), raw).toThrow(ConfigError);
      expect(() => parseEnv({ ...base(), PAGE_RENDER_CONCURRENCY: raw }), raw).toThrow(/PAGE_RENDER_CONCURRENCY/);
    }
  });
});
