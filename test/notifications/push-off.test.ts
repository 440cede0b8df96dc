// A server without VAPID keys can never send a push, so it keeps no
// subscription: the refusal is the library's, whatever path calls it.
import { createECDH, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSecrets } from "@/lib/local-secrets";
import { useFreshDatabase } from "../helpers/databases";

let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;

beforeAll(async () => {
  // Outside production a missing key pair is generated; in production push stays off without one.
  const { VAPID_PUBLIC_KEY: _pub, VAPID_PRIVATE_KEY: _priv, ...secrets } = generateSecrets();
  for (const k of ["VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY"]) delete process.env[k];
  Object.assign(process.env, { NODE_ENV: "production", ...secrets, APP_URL: "https://countersign.example.com" });
  ctx = await useFreshDatabase("sqlite");
});
afterAll(async () => ctx?.close());

describe("push subscriptions without VAPID keys", () => {
  it("refuses to save one, saying why, and stores nothing", async () => {
    const f = await import("../helpers/fixtures");
    const subs = await import("@/lib/notifications/push-subscriptions");
    const { pushChannel } = await import("@/lib/notifications/web-push");
    expect(pushChannel()).toBe("off");
    const u = await f.makeUser();
    const ecdh = createECDH("prime256v1");
    ecdh.generateKeys();
    const browser = {
      endpoint: "https://push.example.com/send/abc",
      keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") },
    };
    await expect(subs.savePushSubscription(u.id, browser)).rejects.toMatchObject({
      code: "unavailable",
      message: "Web Push is not set up on this server (no VAPID keys).",
    });
    expect(await subs.listPushSubscriptions(u.id)).toEqual([]);
  });
});
