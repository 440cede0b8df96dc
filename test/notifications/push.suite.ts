// Web Push end to end: the built app (two instances on PostgreSQL) sends to
// a push service started here (push-endpoint.ts), which checks each
// request's VAPID signature and decrypts it with keys only the test holds.
// Exactly the people who may decide, with push on and a browser subscribed,
// get one push per browser; nothing carries an argument value; a browser the
// push service no longer knows (410) is forgotten; a decided request pushes
// nothing more; a stored endpoint the push-target rule refuses is never
// contacted. The push service speaks HTTPS with the run's certificate, which
// the apps trust through NODE_EXTRA_CA_CERTS; it listens on 127.0.0.1 at a
// random port, so the apps and this process allow loopback (as every test
// app does, CALLBACK_ALLOW_LOOPBACK=1) and any port (PUSH_ALLOW_ANY_PORT=1).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@/lib/ids";
import { PG_TEST_URL, type Provider } from "../helpers/databases";
import { useNotifyingApps, type NotifyingApps } from "../helpers/notifying-apps";
import { testCertificate } from "../helpers/test-tls";
import { pushEndpoint, type PushEndpoint, type ReceivedPush, type TestSubscription } from "./push-endpoint";

const SECRET_VALUES = ["ACCT-9917-PUSHNEVER", "7654321", "4111 1111 1111 1111"];
const TTL_S = 8;

export function pushNotificationSuite(provider: Provider) {
  describe.runIf(provider === "sqlite" || PG_TEST_URL)(`web push notifications (${provider})`, () => {
    const apps = useNotifyingApps(provider, {
      name: "push",
      env: () => ({ VAPID_SUBJECT: "mailto:ops@example.com", PUSH_ALLOW_ANY_PORT: "1", NODE_EXTRA_CA_CERTS: testCertificate().caFile }),
      processEnv: () => ({ PUSH_ALLOW_ANY_PORT: "1" }),
    });
    let service: PushEndpoint;
    beforeAll(async () => {
      service = await pushEndpoint();
      service.expectKey(apps.secrets.VAPID_PUBLIC_KEY); // the deployment's secrets carry a VAPID key pair: push is on
    });
    afterAll(async () => service?.close());
    let f: NotifyingApps["f"];
    let db: NotifyingApps["db"];
    let recordReview: NotifyingApps["recordReview"];
    let subs: typeof import("@/lib/notifications/push-subscriptions");
    let queueTestMessage: typeof import("@/lib/notifications/test-message").queueTestMessage;
    let appUrl = "";
    beforeAll(async () => {
      ({ f, db, recordReview, appUrl } = apps);
      subs = await import("@/lib/notifications/push-subscriptions");
      ({ queueTestMessage } = await import("@/lib/notifications/test-message"));
    });

    const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
    async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await settle(150);
      }
    }
    const to = (s: TestSubscription): ReceivedPush[] => service.received.filter((r) => r.subscription === s.id);
    const payloadOf = (r: ReceivedPush) => JSON.parse(r.plaintext!.toString("utf8")) as { title: string; body: string; url: string; tag: string };

    /** A browser subscribed for the user, as /settings would save it. */
    async function browserOf(user: { id: string }): Promise<TestSubscription> {
      const s = service.subscribe();
      await subs.savePushSubscription(user.id, s.json, "Test Browser/1.0");
      return s;
    }

    async function setUp(p: { quorum: number; remindAt?: number[]; ttl?: number }) {
      const role = `approver-${f.uid()}`;
      const tool = `payments.refund_${f.uid()}`;
      await db.policy.create({
        data: {
          id: newId("pol"),
          name: `p-${f.uid()}`,
          toolPattern: tool,
          roles: JSON.stringify([role]),
          quorum: p.quorum,
          ttlSeconds: p.ttl ?? 3600,
          remindAt: JSON.stringify(p.remindAt ?? []),
        },
      });
      const [a, b, requester, disabled, pushOff, other] = await Promise.all([
        f.makeUser([role]),
        f.makeUser([role]),
        f.makeUser([role]),
        f.makeUser([role]),
        f.makeUser([role]),
        f.makeUser(["reviewer"]),
      ]);
      await db.user.update({ where: { id: disabled.id }, data: { disabledAt: new Date() } });
      await db.user.update({ where: { id: pushOff.id }, data: { notifyPush: false } });
      const svc = await f.makeService();
      const { CountersignClient } = await import("@countersign/client");
      const client = new CountersignClient({ baseUrl: appUrl, serviceSlug: svc.slug, webhookSecret: svc.webhook_secret, apiToken: svc.api_token });
      const ask = () =>
        client.requestApproval({
          run_id: `run-${f.uid()}`,
          call_id: `c-${f.uid()}`,
          tool,
          effects: "write",
          environment: "production",
          requested_by: requester.email,
          summary: "Refund order 1234 to the customer",
          arguments: { account: "ACCT-9917-PUSHNEVER", amount: 7654321, note: "card 4111 1111 1111 1111" },
        });
      return { a, b, requester, disabled, pushOff, other, svc, tool, ask };
    }

    it("pushes once to each browser of each reviewer who may decide and has push on, with no argument value", async () => {
      const { a, b, requester, disabled, pushOff, other, svc, tool, ask } = await setUp({ quorum: 2 });
      const [aPhone, aLaptop, bBrowser] = [await browserOf(a), await browserOf(a), await browserOf(b)];
      const notTold = [await browserOf(requester), await browserOf(disabled), await browserOf(pushOff), await browserOf(other)];
      const created = await ask();
      const id = created.approval_id;
      await until("three pushes", () => to(aPhone).length + to(aLaptop).length + to(bBrowser).length >= 3);
      await settle(2500); // a duplicate (another instance, a repeated fan-out) would arrive by now

      expect(service.problems).toEqual([]);
      for (const s of [aPhone, aLaptop, bBrowser]) {
        const got = to(s);
        expect(got).toHaveLength(1);
        expect(got[0]!.urgency).toBe("high");
        expect(Number(got[0]!.ttl)).toBeGreaterThan(3500);
        expect(Number(got[0]!.ttl)).toBeLessThanOrEqual(3600);
        expect(got[0]!.topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
        const p = payloadOf(got[0]!);
        expect(p.title).toContain(tool);
        expect(p.body).toContain(svc.slug);
        expect(p.url).toBe(`${appUrl}/approvals/${id}`);
        expect(p.tag).toBe(`approval-${id}`);
        for (const value of SECRET_VALUES) expect(got[0]!.plaintext!.toString("utf8")).not.toContain(value);
      }
      for (const s of notTold) expect(to(s)).toEqual([]);

      const rows = await db.notification.findMany({ where: { approvalId: id, channel: "push" } });
      expect(rows).toHaveLength(3);
      expect(rows.every((r) => r.status === "sent")).toBe(true);
      for (const r of rows) {
        for (const value of SECRET_VALUES) expect(r.body).not.toContain(value);
        // Admins see the person and the push service's host, never the endpoint's secret path.
        expect(r.recipient).not.toContain("/push/");
      }
      const used = await db.pushSubscription.findMany({ where: { userId: { in: [a.id, b.id] } } });
      expect(used.every((u) => u.lastUsedAt !== null)).toBe(true);
    });

    it("forgets a browser the push service no longer knows (410) and sends nothing more to it", async () => {
      const { a, b, ask } = await setUp({ quorum: 2 });
      const gone = await browserOf(a);
      const kept = await browserOf(b);
      service.answer(gone.id, 410);
      const first = await ask();
      await until("both pushes", () => to(gone).length >= 1 && to(kept).length >= 1);
      await until("the subscription removed", async () => (await db.pushSubscription.count({ where: { endpoint: gone.endpoint } })) === 0);
      const second = await ask();
      await until("the second push to the kept browser", () => to(kept).length >= 2);
      await settle(2000); // a retry would come after NOTIFY_RETRY_BASE_MS (300 ms)
      expect(to(gone)).toHaveLength(1);
      expect(await subs.listPushSubscriptions(b.id)).toHaveLength(1);
      const row = await db.notification.findFirstOrThrow({ where: { approvalId: first.approval_id, userId: a.id, channel: "push" } });
      expect(row.status).not.toBe("pending");
      expect(row.attempts).toBe(1);
      expect(await db.notification.count({ where: { approvalId: second.approval_id, userId: a.id, channel: "push" } })).toBe(0);
    });

    it("retries a push service error (500) and delivers once it answers", async () => {
      const { a, ask } = await setUp({ quorum: 1 });
      const s = await browserOf(a);
      service.answer(s.id, 500);
      await ask();
      await until("two failed attempts", () => to(s).length >= 2);
      service.answer(s.id, 201);
      await until("the delivery", () => to(s).some((r) => r.status === 201));
      await settle(1500);
      expect(to(s).filter((r) => r.status === 201)).toHaveLength(1);
      expect(await db.pushSubscription.count({ where: { endpoint: s.endpoint } })).toBe(1);
    });

    it("pushes nothing after the decision: no reminder for a decided request", async () => {
      const { a, b, ask } = await setUp({ quorum: 1, remindAt: [0.4, 0.7], ttl: TTL_S });
      const [sa, sb] = [await browserOf(a), await browserOf(b)];
      const created = await ask();
      await until("the first notices", () => to(sa).length >= 1 && to(sb).length >= 1);
      await recordReview(a.id, { approvalId: created.approval_id, decision: "approve", reason: "ok" });
      const approval = await db.approval.findUniqueOrThrow({ where: { id: created.approval_id } });
      expect(approval.status).toBe("approved");
      await settle(Math.max(0, approval.expiresAt.getTime() - Date.now()) + 2500);
      expect(to(sa)).toHaveLength(1);
      expect(to(sb)).toHaveLength(1);
    });

    it("never contacts a stored endpoint the push-target rule refuses now; its message fails at once, the others go out", async () => {
      const { createServer } = await import("node:http");
      let plainConnections = 0;
      const plain = createServer((_req, res) => res.writeHead(201).end());
      plain.on("connection", () => void plainConnections++);
      await new Promise<void>((r) => plain.listen(0, "127.0.0.1", r));
      const plainPort = (plain.address() as import("node:net").AddressInfo).port;
      try {
        const { a, ask } = await setUp({ quorum: 1 });
        const good = await browserOf(a);
        // Stored as an older version did, without the rule: plain http (to a listening server) and a private address.
        const keys = service.subscribe().json.keys;
        const bad = [
          { endpoint: `http://127.0.0.1:${plainPort}/push/old`, reason: "not sent: the endpoint must be an https: URL" },
          { endpoint: "https://10.20.30.40/push/old", reason: "not sent: the endpoint is not an address push messages may go to" },
        ];
        for (const b of bad)
          await db.pushSubscription.create({ data: { id: newId("psb"), userId: a.id, endpoint: b.endpoint, p256dh: keys.p256dh, auth: keys.auth } });
        const created = await ask();
        await until("the push to the good browser", () => to(good).length >= 1);
        await until("both refused messages failed", async () => {
          const failed = await db.notification.count({ where: { approvalId: created.approval_id, channel: "push", status: "failed" } });
          return failed === bad.length;
        });
        await settle(1500); // a retry would come after NOTIFY_RETRY_BASE_MS (300 ms)
        const rows = await db.notification.findMany({ where: { approvalId: created.approval_id, channel: "push" } });
        expect(rows.map((r) => r.status).sort()).toEqual(["failed", "failed", "sent"]);
        const failed = rows.filter((r) => r.status === "failed");
        expect(failed.map((r) => r.outcome).sort()).toEqual(bad.map((b) => b.reason).sort());
        expect(failed.every((r) => r.attempts === 1)).toBe(true);
        const events = await db.auditEvent.findMany({ where: { approvalId: created.approval_id, type: "notification.failed" } });
        expect(events).toHaveLength(bad.length);
        expect(plainConnections).toBe(0);
        expect(to(good)).toHaveLength(1);
        // Kept (the person sees them on /settings), nothing crashed.
        expect(await db.pushSubscription.count({ where: { userId: a.id } })).toBe(3);
      } finally {
        await new Promise<void>((r) => plain.close(() => r()));
      }
    });

    it("sends a test message to each of the user's browsers", async () => {
      const u = await f.makeUser();
      const [s1, s2] = [await browserOf(u), await browserOf(u)];
      const r = await queueTestMessage(u.id);
      expect(r).toMatchObject({ ok: true, channels: ["push"], queued: 2 });
      await until("two test pushes", () => to(s1).length >= 1 && to(s2).length >= 1);
      expect(payloadOf(to(s1)[0]!)).toEqual({
        title: "Countersign test message",
        body: "Notifications reach you in this browser.",
        url: `${appUrl}/settings`,
        tag: "countersign-test",
      });
    });
  });
}
