// GET /api/metrics (docs/operations.md, "Metrics") over real HTTP against the
// built app:
// - on the shared test app: the bearer token (401 without it or with any
//   other), and Prometheus's own parser (`promtool check metrics`) accepting
//   the text of an app that has served every other suite;
// - on instances of its own with a fresh database (one on SQLite, two
//   sharing PostgreSQL): after a known sequence of webhooks (201, 200, 401,
//   409, 413, 422) and decisions of every outcome, made over HTTP on chosen
//   instances, each instance's counters and histogram hold exactly what it
//   answered and decided, and the database-wide gauges (pending requests per
//   service, outbox backlog and age per channel) equal the database, from
//   exactly one instance;
// - the metrics lease itself (taken when free or expired, renewed by its
//   holder, won by exactly one of many racers) and the decision count's
//   after-commit hook (nothing counted for a rolled-back decision).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { direct } from "@/lib/db/sql";
import { signWebhookHeaders } from "@countersign/client";
import { generateSecrets } from "@/lib/local-secrets";
import { appFor } from "../helpers/app";
import { startAppServer, type AppServer } from "../helpers/app-server";
import { freshDatabaseUrl, type Provider } from "../helpers/databases";
import { hasFamily, promtoolCheck, samples, scrape, sumOf, valueOf } from "../helpers/metrics";
import { freePort } from "../helpers/ports";
import { postFormAction, serverActionId } from "../helpers/server-action";
import { signInWithPassword } from "../helpers/sign-in";

const OUTCOMES = ["approved", "denied", "expired", "cancelled", "revised"] as const;
const CHANNELS = ["email", "push", "webhook", "slack", "callback"] as const;
const DATABASE_WIDE = ["countersign_pending_requests", "countersign_outbox_backlog", "countersign_outbox_oldest_age_seconds"];

export function metricsSuite(provider: Provider) {
  const shared = appFor(provider);

  describe.runIf(shared)(`GET /api/metrics: token and format (${provider})`, () => {
    const token = shared?.env.METRICS_TOKEN ?? "";
    const bases = [shared?.baseUrl ?? "", ...(shared?.secondBaseUrl ? [shared.secondBaseUrl] : [])];

    it("answers 401 with the API's error body to a missing, wrong or differently sent token", async () => {
      const attempts: Array<Record<string, string>> = [
        {},
        { authorization: `Bearer ${token.slice(0, -1)}` },
        { authorization: `Bearer ${token}x` },
        { authorization: `Bearer ${randomBytes(32).toString("hex")}` },
        { authorization: "Bearer " },
        { authorization: `Basic ${Buffer.from(`metrics:${token}`).toString("base64")}` },
        { authorization: token },
        { "x-metrics-token": token },
      ];
      for (const headers of attempts) {
        const r = await fetch(`${bases[0]}/api/metrics`, { headers });
        expect(r.status, JSON.stringify(Object.keys(headers))).toBe(401);
        expect(await r.json()).toEqual({ error: "unauthorized" });
      }
    });

    it("answers the Prometheus text format that promtool accepts without a problem, on every instance", async () => {
      for (const base of bases) {
        const r = await scrape(base, token);
        expect(r.status).toBe(200);
        expect(r.contentType).toBe("text/plain; version=0.0.4; charset=utf-8");
        const checked = await promtoolCheck(r.body);
        expect(checked, r.body.slice(0, 4000)).toEqual({ code: 0, output: "" });
        // This instance's own series and the process metrics are there on every instance.
        for (const name of ["countersign_decisions_total", "countersign_time_to_decision_seconds_count", "process_cpu_user_seconds_total"]) {
          expect(hasFamily(r.body, name), name).toBe(true);
        }
        expect(r.body).not.toContain(token);
      }
      // Services of the suites before this one: one series each, by slug; the database-wide series from one instance.
      const texts = await Promise.all(bases.map(async (b) => (await scrape(b, token)).body));
      const pending = texts.flatMap((t) => samples(t).filter((s) => s.name === "countersign_pending_requests"));
      for (const s of pending) expect(Object.keys(s.labels)).toEqual(["service_slug"]);
      expect(texts.filter((t) => hasFamily(t, "countersign_outbox_backlog"))).toHaveLength(1);
    });
  });

  describe.runIf(shared)(`GET /api/metrics matches the database (${provider})`, () => {
    const token = randomBytes(32).toString("hex");
    const marker = `argValue${randomBytes(6).toString("hex")}`;
    const servers: AppServer[] = [];
    let sink: Server;
    let dropDatabase = async () => undefined as void;
    let f: typeof import("../helpers/fixtures");
    let db: import("@/lib/db/client").Db;
    let X: string; // the instance most calls go to
    let Y: string; // the other one on PostgreSQL; the same one on SQLite
    type Svc = Awaited<ReturnType<typeof import("@/lib/services/manage-services").createService>>;
    let svcA: Svc; // a callback URL: every decision leaves a callback in the outbox
    let svcB: Svc; // a standing approval decides one of its requests as it arrives
    let svcC: Svc; // no requests at all
    let tool: string;
    let reviewer: { id: string; email: string };
    let cookie: string;
    /** What each instance answered and decided, as the test made it happen. */
    const answered = new Map<string, Map<string, number>>();
    const decided = new Map<string, Map<string, number>>();
    const bump = (m: Map<string, Map<string, number>>, base: string, key: string) => {
      const per = m.get(base) ?? new Map<string, number>();
      per.set(key, (per.get(key) ?? 0) + 1);
      m.set(base, per);
    };

    beforeAll(async () => {
      // Callbacks and the notification webhook go here, and always fail: they stay in the outbox.
      sink = createServer((req, res) => {
        req.resume();
        req.on("end", () => res.writeHead(503).end());
      });
      await new Promise<void>((r) => sink.listen(0, "127.0.0.1", () => r()));
      const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
      const database = await freshDatabaseUrl(provider);
      dropDatabase = database.drop;
      const secrets = generateSecrets();
      const port = await freePort();
      const publicUrl = `http://localhost:${port}`;
      const env = {
        ...secrets,
        DATABASE_URL: database.url,
        COUNTERSIGN_DATA_DIR: `.tmp/metrics-${provider}`,
        AUTH_CREDENTIALS: "1",
        LOG_LEVEL: "info",
        METRICS_TOKEN: token,
        // A failed attempt is retried an hour later: the outbox holds still while the test reads it.
        CALLBACK_RETRY_BASE_MS: "3600000",
        NOTIFY_RETRY_BASE_MS: "3600000",
        NOTIFY_WEBHOOK_URL: `${sinkUrl}/notify`,
        NOTIFY_WEBHOOK_SECRET: `whsec_${randomBytes(32).toString("base64")}`,
      };
      servers.push(await startAppServer({ port, env, publicUrl }));
      if (provider === "postgresql") servers.push(await startAppServer({ port: await freePort(), env, publicUrl }));
      X = servers[0]!.baseUrl;
      Y = servers.at(-1)!.baseUrl;
      Object.assign(process.env, { ...secrets, DATABASE_URL: database.url, APP_URL: publicUrl, METRICS_TOKEN: token, CALLBACK_ALLOW_LOOPBACK: "1" });
      f = await import("../helpers/fixtures");
      db = (await import("@/lib/db/client")).db();
      const { createService } = await import("@/lib/services/manage-services");
      svcA = await createService({ slug: `ma-${f.uid()}`, callbackUrl: `${sinkUrl}/callback` }, "cli");
      svcB = await createService({ slug: `mb-${f.uid()}` }, "cli");
      svcC = await createService({ slug: `mc-${f.uid()}` }, "cli");
      const role = `metrics-${f.uid()}`;
      tool = `metrics.pay.${f.uid()}`;
      const policy = await f.makePolicy({ tool, roles: [role], quorum: 1 });
      await db.policy.update({ where: { id: policy.id }, data: { standingMaxTtlSeconds: 3600 } });
      const password = `pw-${randomBytes(12).toString("hex")}`;
      const { addUser } = await import("@/lib/users/add-user");
      reviewer = await addUser({ email: `metrics-${f.uid()}@example.com`, password, roles: [role] }, "cli");
      cookie = await signInWithPassword(X, reviewer.email, password);
    }, 240_000);

    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await db?.$disconnect();
      await dropDatabase();
      await new Promise<void>((r) => (sink ? sink.close(() => r()) : r()));
    });

    const webhook = async (base: string, svc: Svc, body: string, opts: { id?: string; secret?: string; slug?: string } = {}) => {
      const headers = signWebhookHeaders({ secret: opts.secret ?? svc.webhook_secret, body, id: opts.id });
      const r = await fetch(`${base}/api/v1/webhooks/${opts.slug ?? svc.slug}`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body,
      });
      bump(answered, base, String(r.status));
      return { status: r.status, body: (await r.json()) as { approval_id: string; status: string }, id: headers["webhook-id"] };
    };
    const call = (extra: Record<string, unknown> = {}, args: Record<string, unknown> = {}) =>
      JSON.stringify({
        type: "approval.requested",
        data: {
          run_id: `run_${randomUUID()}`,
          call_id: "c1",
          tool,
          summary: `pay ${marker}`,
          arguments: { account: "AC-1", amount: 5, note: marker, ...args },
          ...extra,
        },
      });
    const action = async (base: string, name: "submitReview" | "proposeChanges", approvalId: string, fields: Record<string, string>) => {
      const id = serverActionId("app/approvals/[id]/actions.ts", name);
      // Both instances behind one public address, as behind a load balancer (which passes the public host on).
      const publicHost = { origin: new URL(X).origin, "x-forwarded-host": new URL(X).host };
      const r = await postFormAction(`${base}/approvals/${approvalId}`, id, { approvalId, ...fields }, { cookie, ...publicHost });
      expect(r.status).toBe(200);
    };
    const statusOf = async (id: string) => (await db.approval.findUniqueOrThrow({ where: { id } })).status;
    const texts = async () => Promise.all(servers.map(async (s) => (await scrape(s.baseUrl, token)).body));

    it("counts each instance's webhook answers and decisions, and its histogram matches the database", async () => {
      onTestFailed(() => servers.forEach((s) => console.log(s.output().slice(-4000))));
      // Requests: six on svcA (one per outcome to come, and one left pending), spread over the instances.
      const r: Array<{ approval_id: string }> = [];
      for (let i = 0; i < 6; i++) {
        const sent = await webhook(i % 2 ? Y : X, svcA, call(i === 4 ? { expires_in: 1 } : {}));
        expect(sent.status).toBe(201);
        r.push(sent.body);
      }
      // A repeat of the last one (same webhook-id, same body): 200 with the first answer.
      const repeatBody = call();
      const first = await webhook(X, svcA, repeatBody);
      expect(first.status).toBe(201);
      expect((await webhook(X, svcA, repeatBody, { id: first.id })).status).toBe(200);
      // The same call with other arguments under a new webhook-id: 409.
      const reused = JSON.parse(repeatBody) as { data: Record<string, unknown> };
      reused.data.arguments = { account: "AC-2", amount: 6 };
      expect((await webhook(Y, svcA, JSON.stringify(reused))).status).toBe(409);
      // A wrong signature and an unknown service: the one uniform 401.
      expect((await webhook(X, svcA, call(), { secret: svcB.webhook_secret })).status).toBe(401);
      expect((await webhook(Y, svcA, call(), { slug: `nobody-${f.uid()}` })).status).toBe(401);
      // Schema (no tool): 422. Larger than the cap: 413.
      expect(
        (await webhook(X, svcA, JSON.stringify({ type: "approval.requested", data: { run_id: "r", call_id: "c", arguments: {} } }))).status,
      ).toBe(422);
      expect((await webhook(Y, svcA, call({}, { blob: "x".repeat(300 * 1024) }))).status).toBe(413);

      // A standing approval on svcB decides a matching request as it arrives (on Y).
      const source = await webhook(X, svcB, call());
      expect(source.status).toBe(201);
      const { proposeStanding } = await import("@/lib/standing/standing-approvals");
      const standing = await proposeStanding(reviewer.id, {
        approvalId: source.body.approval_id,
        pins: [{ path: "/account", op: "eq" }],
        expiresInSeconds: 1800,
        maxUses: null,
        reason: "metrics test",
      });
      expect(standing.status).toBe("active");
      const auto = await webhook(Y, svcB, call());
      expect(auto).toMatchObject({ status: 201, body: { status: "approved" } });
      bump(decided, Y, "approved");

      // Decisions over HTTP, each on a chosen instance.
      await action(X, "submitReview", r[0]!.approval_id, { decision: "approve" });
      bump(decided, X, "approved");
      await action(Y, "submitReview", r[1]!.approval_id, { decision: "deny", reason: "not today" });
      bump(decided, Y, "denied");
      await action(X, "proposeChanges", r[2]!.approval_id, {
        intent: "submit",
        patch: JSON.stringify([{ op: "replace", path: "/amount", value: 3 }]),
        reason: "smaller",
      });
      bump(decided, X, "revised");
      const cancel = await fetch(`${Y}/api/v1/approvals/${r[3]!.approval_id}/cancel`, {
        method: "POST",
        headers: { authorization: `Bearer ${svcA.api_token}` },
      });
      expect(cancel.status).toBe(200);
      bump(decided, Y, "cancelled");
      // Expired by whichever instance gets there first (a sweep, or this read).
      await expect
        .poll(
          async () => {
            await fetch(`${X}/api/v1/approvals/${r[4]!.approval_id}`, { headers: { authorization: `Bearer ${svcA.api_token}` } });
            return statusOf(r[4]!.approval_id);
          },
          { timeout: 30_000, interval: 250 },
        )
        .toBe("expired");
      expect([
        await statusOf(r[0]!.approval_id),
        await statusOf(r[1]!.approval_id),
        await statusOf(r[2]!.approval_id),
        await statusOf(r[3]!.approval_id),
      ]).toEqual(["approved", "denied", "revised", "cancelled"]);

      const out = await texts();
      // Webhook answers, per instance, exactly as sent.
      for (const [i, s] of servers.entries()) {
        const mine = samples(out[i]!).filter((x) => x.name === "countersign_webhook_responses_total");
        const got = Object.fromEntries(mine.map((x) => [x.labels.code, x.value]));
        expect(got, s.baseUrl).toEqual(Object.fromEntries(answered.get(s.baseUrl) ?? []));
      }
      expect(sumOf(out, "countersign_webhook_responses_total", { code: "201" })).toBe(await db.approval.count());

      // Decisions, per instance where the test chose it; expiry summed over the instances.
      for (const [i, s] of servers.entries()) {
        for (const outcome of OUTCOMES.filter((o) => o !== "expired")) {
          expect(valueOf(out[i]!, "countersign_decisions_total", { outcome }), `${s.baseUrl} ${outcome}`).toBe(
            decided.get(s.baseUrl)?.get(outcome) ?? 0,
          );
        }
      }
      const rows = await db.approval.findMany({ where: { status: { not: "pending" } }, select: { status: true, createdAt: true, decidedAt: true } });
      for (const outcome of OUTCOMES) {
        const mine = rows.filter((a) => a.status === outcome);
        expect(mine.length, outcome).toBe(outcome === "approved" ? 2 : 1);
        expect(sumOf(out, "countersign_decisions_total", { outcome }), outcome).toBe(mine.length);
        expect(sumOf(out, "countersign_time_to_decision_seconds_count", { outcome }), outcome).toBe(mine.length);
        const seconds = mine.reduce((t, a) => t + (a.decidedAt!.getTime() - a.createdAt.getTime()) / 1000, 0);
        expect(sumOf(out, "countersign_time_to_decision_seconds_sum", { outcome }), outcome).toBeCloseTo(seconds, 6);
      }
      // Expiry is at expires_at: one second after arrival, in the 1 s bucket (not the one below, there is none).
      expect(sumOf(out, "countersign_time_to_decision_seconds_bucket", { outcome: "expired", le: "1" })).toBe(1);
      expect(sumOf(out, "countersign_time_to_decision_seconds_bucket", { outcome: "expired", le: "+Inf" })).toBe(1);

      // Nothing an agent sent is ever a label or a value; the token never reaches the log.
      for (const t of out) expect(t).not.toContain(marker);
      for (const s of servers) expect(s.output()).not.toContain(token);
      for (const t of out) expect(await promtoolCheck(t)).toEqual({ code: 0, output: "" });
    }, 180_000);

    it("exposes the database-wide gauges from exactly one instance, equal to the database", async () => {
      /** The outbox in the database: pending messages and the oldest one's arrival, per channel. */
      const outboxInDb = async () => {
        const notes = await db.notification.groupBy({ by: ["channel"], where: { status: "pending" }, _count: true, _min: { createdAt: true } });
        const callbacks = await db.callbackDelivery.aggregate({ where: { status: "pending" }, _count: true, _min: { createdAt: true } });
        const state: Record<string, { backlog: number; oldest: Date | null }> = {};
        for (const c of CHANNELS) state[c] = { backlog: 0, oldest: null };
        for (const n of notes) state[n.channel] = { backlog: n._count, oldest: n._min.createdAt };
        state.callback = { backlog: callbacks._count, oldest: callbacks._min.createdAt };
        return state;
      };
      const counts = (s: Awaited<ReturnType<typeof outboxInDb>>) => JSON.stringify(CHANNELS.map((c) => [c, s[c]!.backlog, s[c]!.oldest?.getTime()]));
      // The notification webhook's messages are written by the background fan-out: read when they are
      // there, and when the outbox did not change while the instances were scraped.
      let reading: { before: Awaited<ReturnType<typeof outboxInDb>>; out: string[]; startedAt: number; endedAt: number } | undefined;
      for (let attempt = 0; attempt < 200 && !reading; attempt++) {
        const before = await outboxInDb();
        const startedAt = Date.now();
        const out = await texts();
        const endedAt = Date.now();
        const after = await outboxInDb();
        if (counts(before) === counts(after) && before.webhook!.backlog >= 3) reading = { before, out, startedAt, endedAt };
        else await new Promise((r) => setTimeout(r, 100));
      }
      expect(reading, "the outbox never held still").toBeDefined();
      const { before, out, startedAt, endedAt } = reading!;

      // One instance holds the lease and exposes them; any other leaves them out entirely.
      const holders = out.filter((t) => valueOf(t, "countersign_metrics_lease_held") === 1);
      expect(holders).toHaveLength(1);
      for (const t of out) {
        expect(valueOf(t, "countersign_metrics_lease_held")).toBe(t === holders[0] ? 1 : 0);
        for (const name of DATABASE_WIDE) expect(hasFamily(t, name), name).toBe(t === holders[0]);
      }
      const held = holders[0]!;

      // Pending requests per service: every service, by slug, as in the database.
      const services = await db.service.findMany({ select: { id: true, slug: true } });
      const exposed = samples(held).filter((s) => s.name === "countersign_pending_requests");
      expect(exposed.map((s) => s.labels.service_slug).sort()).toEqual(services.map((s) => s.slug).sort());
      for (const s of services) {
        const inDb = await db.approval.count({ where: { serviceId: s.id, status: "pending" } });
        expect(valueOf(held, "countersign_pending_requests", { service_slug: s.slug }), s.slug).toBe(inDb);
      }
      expect([svcA, svcB, svcC].map((s) => valueOf(held, "countersign_pending_requests", { service_slug: s.slug }))).toEqual([2, 1, 0]);

      // Outbox backlog per channel as in the database; the oldest message's age as of the scrape.
      for (const c of CHANNELS) {
        const state = before[c]!;
        expect(valueOf(held, "countersign_outbox_backlog", { channel: c }), c).toBe(state.backlog);
        const age = valueOf(held, "countersign_outbox_oldest_age_seconds", { channel: c })!;
        if (!state.oldest) expect(age, c).toBe(0);
        else {
          expect(age, c).toBeGreaterThanOrEqual((startedAt - state.oldest.getTime()) / 1000 - 0.001);
          expect(age, c).toBeLessThanOrEqual((endedAt - state.oldest.getTime()) / 1000 + 0.001);
        }
      }
      // Every decision on svcA left a callback that cannot be delivered; the webhook channel has the review notices.
      expect(valueOf(held, "countersign_outbox_backlog", { channel: "callback" })).toBe(5);
      expect(valueOf(held, "countersign_outbox_backlog", { channel: "webhook" })).toBeGreaterThanOrEqual(3);

      // The holder keeps it: scraping in the other order changes nothing.
      const again = await Promise.all([...servers].reverse().map(async (s) => (await scrape(s.baseUrl, token)).body));
      expect(again.reverse().map((t) => valueOf(t, "countersign_metrics_lease_held"))).toEqual(
        out.map((t) => valueOf(t, "countersign_metrics_lease_held")),
      );
    }, 120_000);

    it("counts a decision only once its transaction commits", async () => {
      const { processMetrics } = await import("@/lib/metrics/registry");
      const { inTransaction } = await import("@/lib/db/transaction");
      const { finalizeApproval } = await import("@/lib/approvals/finalize");
      const { recordReview } = await import("@/lib/reviews/record-review");
      const denied = async () => (await processMetrics().decisions.get()).values.find((v) => v.labels.outcome === "denied")?.value ?? 0;
      const { findServiceForWebhook } = await import("@/lib/services/service-secrets");
      const req = await f.makeApproval({ ...svcC, auth: (await findServiceForWebhook(direct(), svcC.slug))! }, { tool });
      const before = await denied();
      await expect(
        inTransaction(async (tx) => {
          expect(await finalizeApproval(tx, req.approval_id, "denied", { decidedBy: [reviewer.email], decidedAt: new Date(), actor: "system" })).toBe(
            true,
          );
          throw new Error("rolled back on purpose");
        }),
      ).rejects.toThrow("rolled back on purpose");
      expect(await statusOf(req.approval_id)).toBe("pending");
      expect(await denied()).toBe(before);
      await recordReview(reviewer.id, { approvalId: req.approval_id, decision: "deny", reason: "now for real" });
      expect(await statusOf(req.approval_id)).toBe("denied");
      expect(await denied()).toBe(before + 1);
    });

    it("the lease: taken when free or expired, renewed by its holder, won by exactly one of many racers", async () => {
      const { direct } = await import("@/lib/db/sql");
      const { holdMetricsLease, releaseMetricsLease, METRICS_LEASE_SECONDS } = await import("@/lib/metrics/lease");
      const sql = direct();
      const now = Date.now();
      const at = (s: number) => new Date(now + s * 1000);
      // An instance took it at its last scrape, a moment ago.
      expect(await holdMetricsLease(sql, "test-1", at(0))).toBe(false);
      const later = METRICS_LEASE_SECONDS + 1;
      expect(await holdMetricsLease(sql, "test-1", at(later))).toBe(true);
      expect(await holdMetricsLease(sql, "test-2", at(later + 1))).toBe(false);
      expect(await holdMetricsLease(sql, "test-1", at(later + 2))).toBe(true);
      // Past test-1's expiry, sixteen holders at once: exactly one wins.
      const racers = Array.from({ length: 16 }, (_, i) => `racer-${i}`);
      const won = await Promise.all(racers.map((h) => holdMetricsLease(sql, h, at(later * 3))));
      expect(won.filter(Boolean)).toHaveLength(1);
      const winner = racers[won.indexOf(true)]!;
      expect(await holdMetricsLease(sql, "test-1", at(later * 3 + 1))).toBe(false);
      // Handed back (shutdown): free for the next scrape.
      await releaseMetricsLease(sql, winner);
      expect(await holdMetricsLease(sql, "test-2", at(later * 3 + 2))).toBe(true);
      await releaseMetricsLease(sql, "test-2");
      // The instances take it again at their next scrape.
      const out = await texts();
      expect(out.filter((t) => valueOf(t, "countersign_metrics_lease_held") === 1)).toHaveLength(1);
    });
  });
}
