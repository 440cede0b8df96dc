// Faults (issue: hardening): the database goes away in the middle of a run of
// signed webhooks. The app sits behind a TCP proxy to PostgreSQL; stopping the
// proxy resets every open connection and refuses new ones, as a stopped or
// unreachable server does. While it is down the app answers a clear, retryable
// 503 (never another 5xx, never a hang), /api/ready says so and a page in a
// real browser shows an error page with a retry (app/error.tsx); once it is
// back the app recovers by itself, every acknowledged (201) request is stored
// whole with its audit event, and a retry of each refused delivery lands once.
import { randomUUID } from "node:crypto";
import { chromium, type Browser } from "playwright-core";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { generateSecrets } from "@/lib/local-secrets";
import { signWebhookHeaders } from "@countersign/client";
import { PG_TEST_URL, useFreshDatabase } from "../helpers/databases";
import { startAppServer, type AppServer } from "../helpers/app-server";
import { freePort } from "../helpers/ports";
import { signInWithPassword } from "../helpers/sign-in";
import { databaseProxy, targetOf, urlThroughProxy, type DatabaseProxy } from "../helpers/database-proxy";

type Sent = { status: number; body: Record<string, unknown>; retryAfter: string | null; ms: number; callId: string };

describe.runIf(PG_TEST_URL)("the database stops in the middle of a run (postgresql)", () => {
  let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
  let proxy: DatabaseProxy;
  let app: AppServer;
  let svc: { slug: string; webhook_secret: string };
  let reviewerCookie: string;
  let browser: Browser;
  const runId = `outage-${randomUUID()}`;
  const bodies = new Map<string, { body: string; webhookId: string }>();

  beforeAll(async () => {
    const secrets = generateSecrets();
    Object.assign(process.env, secrets);
    ctx = await useFreshDatabase("postgresql");
    proxy = databaseProxy(targetOf(ctx.url));
    const proxied = urlThroughProxy(ctx.url, await proxy.start());
    app = await startAppServer({
      port: await freePort(),
      env: {
        ...secrets,
        DATABASE_URL: proxied,
        COUNTERSIGN_DATA_DIR: mkdtempSync(join(tmpdir(), "cs-outage-")),
        AUTH_CREDENTIALS: "1",
        LOG_LEVEL: "warn",
      },
    });
    const { createService } = await import("@/lib/services/manage-services");
    svc = await createService({ slug: `outage-${randomUUID().slice(0, 8)}` }, "cli");
    const { addUser } = await import("@/lib/users/add-user");
    const email = `outage-${randomUUID().slice(0, 8)}@example.com`;
    await addUser({ email, roles: ["reviewer"], password: "outage-password-1" }, "cli");
    reviewerCookie = await signInWithPassword(app.baseUrl, email, "outage-password-1");
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    await proxy?.stop();
    await ctx?.close();
  });

  /** Delivers call `callId` (the same body and webhook id every time it is sent). */
  async function deliver(callId: string): Promise<Sent> {
    let stored = bodies.get(callId);
    if (!stored) {
      const body = JSON.stringify({
        type: "approval.requested",
        data: { run_id: runId, call_id: callId, tool: "payments.refund", arguments: { amount: 12, card: "4111111111111111" } },
      });
      stored = { body, webhookId: `msg_${randomUUID()}` };
      bodies.set(callId, stored);
    }
    const started = Date.now();
    const r = await fetch(`${app.baseUrl}/api/v1/webhooks/${svc.slug}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...signWebhookHeaders({ secret: svc.webhook_secret, id: stored.webhookId, body: stored.body }) },
      body: stored.body,
      signal: AbortSignal.timeout(30_000),
    });
    return {
      status: r.status,
      body: (await r.json()) as Record<string, unknown>,
      retryAfter: r.headers.get("retry-after"),
      ms: Date.now() - started,
      callId,
    };
  }

  it("answers 503 while it is down, recovers by itself, and loses no acknowledged write", async () => {
    onTestFailed(() => console.log(`app output:\n${app.output().slice(-8000)}`));
    const sent: Sent[] = [];
    let next = 0;
    type Phase = "up" | "down" | "back";
    let phase = "up" as Phase;
    const byPhase: Record<Phase, Sent[]> = { up: [], down: [], back: [] };
    let stop = false;
    // Four executors sending without pause through all three phases.
    const senders = Array.from({ length: 4 }, async () => {
      while (!stop) {
        const at = phase;
        const callId = `c${next++}`;
        // A refused connection (the app down) is recorded as status 0 and fails the test below.
        const s = await deliver(callId).catch((): Sent => ({ status: 0, body: {}, retryAfter: null, ms: 0, callId }));
        sent.push(s);
        byPhase[at].push(s);
        if (s.status !== 201) await new Promise((r) => setTimeout(r, 100));
      }
    });

    const waitFor = async (cond: () => boolean, ms: number) => {
      const deadline = Date.now() + ms;
      while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    };
    await waitFor(() => byPhase.up.filter((s) => s.status === 201).length >= 20, 60_000);

    await proxy.cut();
    phase = "down";
    await waitFor(() => byPhase.down.filter((s) => s.status === 503).length >= 20, 60_000);
    const readyWhileDown = await fetch(`${app.baseUrl}/api/ready`, { signal: AbortSignal.timeout(30_000) });
    const healthWhileDown = await fetch(`${app.baseUrl}/api/health`, { signal: AbortSignal.timeout(30_000) });
    // A reviewer's browser on the queue page: told in words, offered a retry.
    const [cookieName, ...cookieValue] = reviewerCookie.split("=");
    const context = await browser.newContext();
    await context.addCookies([{ name: cookieName!, value: cookieValue.join("="), url: app.baseUrl }]);
    const page = await context.newPage();
    const pageWhileDown = await page.goto(`${app.baseUrl}/approvals`);
    await page.getByRole("heading", { name: "This page could not be loaded" }).waitFor({ timeout: 30_000 });
    const reference = (await page.getByText(/^Reference: /).textContent())?.replace("Reference: ", "");

    await proxy.start();
    phase = "back";
    const recoveredAt = Date.now();
    await waitFor(() => byPhase.back.filter((s) => s.status === 201).length >= 20, 60_000);
    const recoverySeconds = (Date.now() - recoveredAt) / 1000;
    stop = true;
    await Promise.all(senders);

    // Every answer is a success or the retryable 503: nothing else, and no hang.
    expect(sent.filter((s) => s.status !== 201 && s.status !== 503).map((s) => [s.status, s.body])).toEqual([]);
    expect(Math.max(...sent.map((s) => s.ms))).toBeLessThan(15_000);
    expect(byPhase.up.filter((s) => s.status === 201).length).toBeGreaterThanOrEqual(20);
    const refused = sent.filter((s) => s.status === 503);
    expect(refused.length).toBeGreaterThanOrEqual(20);
    for (const s of refused) {
      expect(s.body).toEqual({ error: "unavailable" });
      expect(Number(s.retryAfter)).toBeGreaterThan(0);
    }
    expect(readyWhileDown.status).toBe(503);
    expect(healthWhileDown.status).toBe(200);
    // The page failed as a page (app/error.tsx), its reference names the server's log line,
    // and once the database is back "Try again" loads the queue without a sign-in.
    expect(pageWhileDown?.status()).toBe(500);
    expect(reference).toMatch(/^\d+$/);
    expect(app.output()).toContain(
      `"msg":"page failed: database unavailable","method":"GET","route":"/approvals","kind":"render","digest":"${reference}"`,
    );
    await page.getByRole("button", { name: "Try again" }).click();
    await page.getByRole("heading", { name: "Approvals", exact: true }).waitFor({ timeout: 30_000 });
    await context.close();
    expect(byPhase.back.filter((s) => s.status === 201).length).toBeGreaterThanOrEqual(20);
    expect(recoverySeconds).toBeLessThan(30);
    expect((await fetch(`${app.baseUrl}/api/ready`)).status).toBe(200);

    // No acknowledged write lost: each 201 is stored, whole, with its audit event.
    const acknowledged = sent.filter((s) => s.status === 201).map((s) => String(s.body.approval_id));
    const rows = await ctx.db.approval.findMany({ where: { runId }, select: { id: true, callId: true } });
    const storedIds = new Set(rows.map((r) => r.id));
    expect(acknowledged.filter((id) => !storedIds.has(id))).toEqual([]);
    const requestedEvents = await ctx.db.auditEvent.findMany({ where: { type: "approval.requested" }, select: { approvalId: true } });
    const audited = new Set(requestedEvents.map((e) => e.approvalId));
    expect(rows.filter((r) => !audited.has(r.id)).map((r) => r.id)).toEqual([]);
    expect(requestedEvents.filter((e) => !storedIds.has(String(e.approvalId)))).toEqual([]);

    // A refused delivery may or may not have committed before the connection
    // died; the executor's retry (same webhook id) settles it exactly once.
    const retried = await Promise.all([...new Set(refused.map((s) => s.callId))].map((callId) => deliver(callId)));
    expect(retried.filter((s) => s.status !== 200 && s.status !== 201)).toEqual([]);
    expect(await ctx.db.approval.count({ where: { runId } })).toBe(bodies.size);

    const { verifyChain } = await import("@/lib/audit/verify-chain");
    expect((await verifyChain()).ok).toBe(true);
    console.log(
      `database outage: ${sent.length} deliveries, ${acknowledged.length} acknowledged, ${refused.length} answered 503, ` +
        `recovered in ${recoverySeconds.toFixed(1)} s, ${retried.length} retried, 0 lost`,
    );
  }, 240_000);
});
