// Webhook authentication and replay (docs/api.md) over real HTTP against
// the running app, on one database: one identical 401 for every failure,
// signature lists and rotation, and a repeated webhook-id answered once.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";
import { signWebhook, unixNow } from "@countersign/client";
import { createService, disableService, finishRotation, rotateWebhookSecret } from "@/lib/services/manage-services";
import { callData, event, unique, type Sent, useWebhookService } from "./webhook-harness";

export function webhookSignatureSuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`webhook signatures and replay (${provider})`, () => {
    const { svc, post, stored, expectRefusedWithoutStoring } = useWebhookService(app, "sig");

    it("answers a repeated webhook-id with the first answer and stores nothing", async () => {
      const id = `msg_${unique()}`;
      const first = await post(JSON.stringify(event(callData())), { id });
      expect(first.status).toBe(201);
      const before = await stored();
      const again = await post(JSON.stringify(event(callData())), { id });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(await stored()).toEqual(before);
    });

    it("gives one identical 401 for every authentication failure", async () => {
      const body = JSON.stringify(event(callData()));
      const disabled = await createService({ slug: `off-${randomBytes(4).toString("hex")}` }, "cli");
      await disableService(disabled.slug, "cli");
      const ts = String(unixNow());
      const cases: Array<() => Promise<Sent>> = [
        () => post(body, { signature: "v1,AAAA" }),
        () => post(body, { secret: `whsec_${randomBytes(32).toString("base64")}` }),
        // Outside the 5-minute tolerance by more than a slow request takes:
        // 301 s ahead here can be 300 s ahead (within it) at the server a second later.
        () => post(body, { timestamp: String(unixNow() - 310) }),
        () => post(body, { timestamp: String(unixNow() + 310) }),
        () => post(body, { timestamp: `${ts}abc` }),
        () => post(body, { slug: "no-such-service" }),
        () => post(body, { slug: disabled.slug, secret: disabled.webhook_secret }),
        () => post(body, { headers: { "webhook-signature": "" } }),
        () => post(body, { signature: `v2,${signWebhook({ secret: svc.webhook_secret, id: "x", timestamp: 1, body })}` }),
        async () => {
          // Signed, then one byte changed.
          const id = `msg_${unique()}`;
          const signature = signWebhook({ secret: svc.webhook_secret, id, timestamp: Number(ts), body });
          return post(body.replace('"amount":10', '"amount":11'), { id, timestamp: ts, signature });
        },
      ];
      for (const send of cases) {
        const r = await expectRefusedWithoutStoring(send, 401, "invalid-signature");
        expect(r.body).toEqual({ error: "invalid-signature" });
      }
    });

    it("accepts any valid entry of the signature list", async () => {
      const body = JSON.stringify(event(callData()));
      const id = `msg_${unique()}`;
      const ts = unixNow();
      const good = signWebhook({ secret: svc.webhook_secret, id, timestamp: ts, body });
      const r = await post(body, { id, timestamp: String(ts), signature: `v1,${"A".repeat(44)} ${good}` });
      expect(r.status).toBe(201);
    });

    it("verifies with both secrets during a rotation and only the new one after it", async () => {
      const s = await createService({ slug: `rot-${randomBytes(4).toString("hex")}` }, "cli");
      const { webhook_secret: next } = await rotateWebhookSecret(s.slug, "cli");
      expect((await post(JSON.stringify(event(callData())), { slug: s.slug, secret: s.webhook_secret })).status).toBe(201);
      expect((await post(JSON.stringify(event(callData())), { slug: s.slug, secret: next })).status).toBe(201);
      await finishRotation(s.slug, "cli");
      await expectRefusedWithoutStoring(
        () => post(JSON.stringify(event(callData())), { slug: s.slug, secret: s.webhook_secret }),
        401,
        "invalid-signature",
      );
      expect((await post(JSON.stringify(event(callData())), { slug: s.slug, secret: next })).status).toBe(201);
    });

    it("creates one request from 20 simultaneous identical deliveries", async () => {
      const body = JSON.stringify(event(callData()));
      const id = `msg_${unique()}`;
      const ts = String(unixNow());
      const signature = signWebhook({ secret: svc.webhook_secret, id, timestamp: Number(ts), body });
      const before = await stored();
      const answers = await Promise.all(Array.from({ length: 20 }, () => post(body, { id, timestamp: ts, signature })));
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
      expect(answers.filter((a) => a.status === 200)).toHaveLength(19);
      expect(new Set(answers.map((a) => a.body.approval_id)).size).toBe(1);
      const after = await stored();
      expect(after.approvals - before.approvals).toBe(1);
    });
  });
}
