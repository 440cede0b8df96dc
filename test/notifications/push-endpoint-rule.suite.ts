// "Push endpoints are outbound targets" (docs/notifications.md), as production runs it
// (loopback refused: CALLBACK_ALLOW_LOOPBACK=0; PUSH_ALLOW_ANY_PORT unset),
// on a real database: a subscription whose endpoint breaks the rule is
// refused when saved, naming the field, and nothing is stored; a stored one
// that breaks it now (saved before the rule, or by another instance's older
// code) is never contacted: the real outbox worker fails its message at
// once, with the reason, and the push service on this machine sees no
// connection at all.
import { createECDH, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { generateVapidKeys } from "@/lib/local-secrets";
import { newId } from "@/lib/ids";
import { PG_TEST_URL, type Provider, useFreshDatabase } from "../helpers/databases";
import { pushEndpoint, type PushEndpoint } from "./push-endpoint";

const NOT = "is not an address push messages may go to";

function browserSubscription(endpoint: string) {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  return { endpoint, expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") } };
}

export function pushEndpointRuleSuite(provider: Provider) {
  describe.runIf(provider === "sqlite" || PG_TEST_URL)(`push endpoints are outbound targets (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let subs: typeof import("@/lib/notifications/push-subscriptions");
    let service: PushEndpoint;

    beforeAll(async () => {
      Object.assign(process.env, { ...generateVapidKeys(), VAPID_SUBJECT: "mailto:ops@example.com", CALLBACK_ALLOW_LOOPBACK: "0" });
      delete process.env.PUSH_ALLOW_ANY_PORT;
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      subs = await import("@/lib/notifications/push-subscriptions");
      service = await pushEndpoint();
    });
    afterAll(async () => {
      await service?.close();
      await ctx?.close();
    });

    it("refuses each endpoint the rule forbids when saved, naming the field, and stores nothing", async () => {
      const u = await f.makeUser();
      const cases: Array<[string, string]> = [
        ["http://push.example.com/send/x", "must be an https: URL"],
        ["http://127.1:8080/push", "must be an https: URL"],
        [`http://127.0.0.1:${service.port}/push/x`, "must be an https: URL"],
        ["https://push.example.com:8443/send/x", "must use port 443"],
        ["https://10.1.2.3:6379/x", "must use port 443"],
        [`${service.origin}/push/x`, "must use port 443"],
        // Private ranges, which callbacks may reach by default.
        ["https://10.1.2.3/x", NOT],
        ["https://192.168.1.20/x", NOT],
        ["https://100.64.1.1/x", NOT],
        ["https://[fd00::5]/x", NOT],
        // Loopback, in its spellings.
        ["https://127.0.0.1/x", NOT],
        ["https://127.1/x", NOT],
        ["https://0x7f000001/x", NOT],
        ["https://2130706433/x", NOT],
        ["https://0177.0.0.1/x", NOT],
        ["https://[::1]/x", NOT],
        ["https://[::ffff:7f00:1]/x", NOT],
        ["https://localhost/x", NOT],
        ["https://LOCALHOST./x", NOT],
        ["https://push.localhost/x", NOT],
        // Names that wildcard DNS answers with the address they spell.
        ["https://127.0.0.1.nip.io/x", NOT],
        ["https://127-0-0-1.sslip.io/x", NOT],
        ["https://push.10.0.0.1.nip.io/x", NOT],
        // Metadata, credentials.
        ["https://169.254.169.254/latest/meta-data", NOT],
        ["https://metadata.google.internal/x", NOT],
        ["https://[fd00:ec2::254]/x", NOT],
        ["https://user:pw@push.example.com/x", NOT],
      ];
      for (const [endpoint, message] of cases) {
        const refused = await subs.savePushSubscription(u.id, browserSubscription(endpoint)).then(
          () => null,
          (e: unknown) => e,
        );
        expect(refused, endpoint).toBeInstanceOf(ZodError);
        expect(
          (refused as ZodError).issues.map((i) => `${i.path.join(".")}: ${i.message}`),
          endpoint,
        ).toEqual([`endpoint: ${message}`]);
      }
      expect(await ctx.db.pushSubscription.count()).toBe(0);
      expect(service.connections()).toBe(0);
    });

    it("saves a vendor's push service endpoint (a name that does not resolve from here is checked again at each send)", async () => {
      const u = await f.makeUser();
      await subs.savePushSubscription(u.id, browserSubscription(`https://fcm.googleapis.com/fcm/send/${randomBytes(8).toString("hex")}`));
      await subs.savePushSubscription(u.id, browserSubscription(`https://push.example.com:443/send/${randomBytes(8).toString("hex")}`));
      expect(await ctx.db.pushSubscription.count({ where: { userId: u.id } })).toBe(2);
    });

    it("does not contact a stored endpoint the rule refuses now: the message fails at once with the reason", async () => {
      const u = await f.makeUser();
      const stored = [
        { endpoint: `${service.origin}/push/${service.subscribe().id}`, reason: "not sent: the endpoint must use port 443" },
        { endpoint: `http://127.0.0.1:${service.port}/push/old`, reason: "not sent: the endpoint must be an https: URL" },
        { endpoint: "https://127.0.0.1.nip.io/push/old", reason: `not sent: the endpoint ${NOT}` },
        { endpoint: "https://10.20.30.40/push/old", reason: `not sent: the endpoint ${NOT}` },
      ];
      // As an older version stored them, without the rule.
      const ids: string[] = [];
      for (const s of stored) {
        const keys = browserSubscription(s.endpoint).keys;
        const id = newId("psb");
        ids.push(id);
        await ctx.db.pushSubscription.create({ data: { id, userId: u.id, endpoint: s.endpoint, p256dh: keys.p256dh, auth: keys.auth } });
      }
      const { queueTestMessage } = await import("@/lib/notifications/test-message");
      expect(await queueTestMessage(u.id)).toMatchObject({ ok: true, channels: ["push"], queued: stored.length });
      const { deliverDueNotifications } = await import("@/lib/notifications/deliver-notifications");
      await deliverDueNotifications();

      const rows = await ctx.db.notification.findMany({ where: { userId: u.id, channel: "push" } });
      expect(rows).toHaveLength(stored.length);
      for (const [k, id] of ids.entries()) {
        const row = rows.find((r) => (JSON.parse(r.body) as { subscriptionId: string }).subscriptionId === id);
        expect(row, stored[k]!.endpoint).toMatchObject({ status: "failed", attempts: 1, outcome: stored[k]!.reason });
        const events = await ctx.db.auditEvent.findMany({ where: { type: "notification.failed" } });
        expect(events.some((e) => (JSON.parse(e.data) as { notification: string }).notification === row!.id)).toBe(true);
      }
      expect(service.connections()).toBe(0);
      expect(service.received).toEqual([]);
      // Nothing crashed and nothing was deleted: the person still sees the browsers on /settings.
      expect(await ctx.db.pushSubscription.count({ where: { userId: u.id } })).toBe(stored.length);
      const attempts = await ctx.db.notificationAttempt.findMany({ where: { notificationId: { in: rows.map((r) => r.id) } } });
      expect(attempts.map((a) => a.result)).toEqual(rows.map(() => "error"));
    });
  });
}
