// Push subscriptions and channel preferences on a real SQLite database:
// what the browser sends is validated, an endpoint belongs to one user (it
// moves to whoever subscribes it last), a user removes only their own, and
// the per-user cap drops the oldest.
import { createECDH, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { generateVapidKeys } from "@/lib/local-secrets";
import { useFreshDatabase } from "../helpers/databases";

let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
let f: typeof import("../helpers/fixtures");
let subs: typeof import("@/lib/notifications/push-subscriptions");
let prefs: typeof import("@/lib/notifications/preferences");

beforeAll(async () => {
  Object.assign(process.env, { ...generateVapidKeys(), VAPID_SUBJECT: "mailto:ops@example.com" }); // push is on
  ctx = await useFreshDatabase("sqlite");
  f = await import("../helpers/fixtures");
  subs = await import("@/lib/notifications/push-subscriptions");
  prefs = await import("@/lib/notifications/preferences");
});
afterAll(async () => ctx?.close());

function browserSubscription(endpoint = `https://push.example.com/send/${randomBytes(8).toString("hex")}`) {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  return { endpoint, expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") } };
}

/** The zod issue messages of a refused input, by path. */
async function refusal(p: Promise<unknown>): Promise<string[]> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ZodError) return e.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw e;
  }
  throw new Error("accepted");
}

describe("push subscriptions", () => {
  it("refuses what is not a browser's subscription, saying which field", async () => {
    const u = await f.makeUser();
    const ok = browserSubscription();
    const cases: Array<[unknown, string]> = [
      [{ ...ok, endpoint: "not a url" }, "endpoint: must be a URL"],
      [{ ...ok, endpoint: "ftp://push.example.com/x" }, "endpoint: must be an https: URL"],
      [{ ...ok, endpoint: "http://push.example.com/x" }, "endpoint: must be an https: URL"],
      [{ ...ok, endpoint: "https://169.254.169.254/x" }, "endpoint: is not an address push messages may go to"],
      [
        { ...ok, keys: { ...ok.keys, p256dh: randomBytes(65).toString("base64url").replace(/^./, "A") } },
        "keys.p256dh: must be an uncompressed P-256 public key (65 bytes)",
      ],
      [{ ...ok, keys: { ...ok.keys, p256dh: ok.keys.p256dh.slice(0, 40) } }, "keys.p256dh: must be an uncompressed P-256 public key (65 bytes)"],
      [{ ...ok, keys: { ...ok.keys, auth: randomBytes(12).toString("base64url") } }, "keys.auth: must be 16 bytes"],
      [{ ...ok, keys: { ...ok.keys, auth: "not+base64url/" } }, "keys.auth: must be base64url"],
    ];
    for (const [input, message] of cases) expect(await refusal(subs.savePushSubscription(u.id, input))).toContain(message);
    expect(await refusal(subs.savePushSubscription(u.id, { endpoint: ok.endpoint }))).toEqual([
      "keys: Invalid input: expected object, received undefined",
    ]);
    expect(await ctx.db.pushSubscription.count({ where: { userId: u.id } })).toBe(0);
  });

  it("refuses plain http and other ports even for a loopback push service, where tests allow loopback", async () => {
    const u = await f.makeUser();
    // This process is outside production (loopback allowed) and PUSH_ALLOW_ANY_PORT is not set.
    expect(await refusal(subs.savePushSubscription(u.id, browserSubscription("http://127.0.0.1:9/push/a")))).toEqual([
      "endpoint: must be an https: URL",
    ]);
    expect(await refusal(subs.savePushSubscription(u.id, browserSubscription("http://127.0.0.1/push/a")))).toEqual([
      "endpoint: must be an https: URL",
    ]);
    expect(await refusal(subs.savePushSubscription(u.id, browserSubscription("https://127.0.0.1:9/push/a")))).toEqual([
      "endpoint: must use port 443",
    ]);
    expect(await ctx.db.pushSubscription.count({ where: { userId: u.id } })).toBe(0);
    await subs.savePushSubscription(u.id, browserSubscription("https://127.0.0.1/push/a"));
    await subs.savePushSubscription(u.id, browserSubscription("https://127.0.0.1:443/push/b"));
    expect(await ctx.db.pushSubscription.count({ where: { userId: u.id } })).toBe(2);
  });

  it("saves, lists newest first with the user agent, and moves an endpoint to whoever subscribes it last", async () => {
    const [alice, bob] = await Promise.all([f.makeUser(), f.makeUser()]);
    const s = browserSubscription();
    const saved = await subs.savePushSubscription(alice.id, s, "Mozilla/5.0 Test\u0007Browser");
    expect(saved.userAgent).toBe("Mozilla/5.0 Test Browser");
    // The same browser again (new keys after a reinstall): one row, updated.
    const again = { ...browserSubscription(s.endpoint) };
    const second = await subs.savePushSubscription(alice.id, again, "Mozilla/5.0 Test Browser");
    expect(second.id).toBe(saved.id);
    expect((await ctx.db.pushSubscription.findUniqueOrThrow({ where: { id: saved.id } })).p256dh).toBe(again.keys.p256dh);
    // Bob signs in on that browser and turns push on: it is his now, not Alice's.
    await subs.savePushSubscription(bob.id, again, "Mozilla/5.0 Test Browser");
    expect(await subs.listPushSubscriptions(alice.id)).toEqual([]);
    expect((await subs.listPushSubscriptions(bob.id)).map((x) => x.id)).toEqual([saved.id]);
    expect(await ctx.db.pushSubscription.count({ where: { endpoint: s.endpoint } })).toBe(1);
  });

  it("removes only the user's own subscription", async () => {
    const [alice, mallory] = await Promise.all([f.makeUser(), f.makeUser()]);
    const s = browserSubscription();
    const saved = await subs.savePushSubscription(alice.id, s);
    await expect(subs.removePushSubscription(mallory.id, saved.id)).rejects.toMatchObject({ code: "not-found" });
    expect(await subs.removePushSubscriptionByEndpoint(mallory.id, s.endpoint)).toBe(false);
    expect(await subs.listPushSubscriptions(alice.id)).toHaveLength(1);
    expect(await refusal(subs.removePushSubscription(alice.id, "psb_nope' OR 1=1"))).toEqual([": is not a subscription id"]);
    await subs.removePushSubscription(alice.id, saved.id);
    expect(await subs.listPushSubscriptions(alice.id)).toEqual([]);
    await expect(subs.removePushSubscription(alice.id, saved.id)).rejects.toMatchObject({ code: "not-found" });
    const other = await subs.savePushSubscription(alice.id, browserSubscription());
    expect(
      await subs.removePushSubscriptionByEndpoint(alice.id, (await ctx.db.pushSubscription.findUniqueOrThrow({ where: { id: other.id } })).endpoint),
    ).toBe(true);
  });

  it("keeps at most ten per user: the oldest go", async () => {
    const u = await f.makeUser();
    const ids: string[] = [];
    for (let i = 0; i < subs.MAX_SUBSCRIPTIONS_PER_USER + 2; i++) {
      ids.push((await subs.savePushSubscription(u.id, browserSubscription())).id);
      await new Promise((r) => setTimeout(r, 5)); // distinct creation times
    }
    const kept = (await subs.listPushSubscriptions(u.id)).map((x) => x.id);
    expect(kept).toHaveLength(subs.MAX_SUBSCRIPTIONS_PER_USER);
    expect(kept).toEqual(ids.slice(2).reverse());
  });
});

describe("channel preferences", () => {
  it("are all on for a new user, and change only the user's own", async () => {
    const [u, other] = await Promise.all([f.makeUser(), f.makeUser()]);
    const allOn = { notifyEmail: true, notifyPush: true, notifySlack: true, slackLinked: false };
    expect(await prefs.getPreferences(u.id)).toEqual(allOn);
    // A form: a ticked box is "on", an unticked one absent.
    expect(await prefs.updatePreferences(u.id, { notifyPush: "on" })).toEqual({ notifyEmail: false, notifyPush: true, notifySlack: false });
    expect(await prefs.getPreferences(u.id)).toEqual({ ...allOn, notifyEmail: false, notifySlack: false });
    expect(await prefs.getPreferences(other.id)).toEqual(allOn);
    await prefs.updatePreferences(u.id, { notifyEmail: true, notifyPush: false, notifySlack: "on" });
    expect(await prefs.getPreferences(u.id)).toEqual({ ...allOn, notifyPush: false });
  });

  it("refuses values that are not on/off, and an unknown user", async () => {
    const u = await f.makeUser();
    expect(await refusal(prefs.updatePreferences(u.id, { notifyEmail: "yes please" }))).toHaveLength(1);
    expect(await prefs.getPreferences(u.id)).toEqual({ notifyEmail: true, notifyPush: true, notifySlack: true, slackLinked: false });
    await expect(prefs.updatePreferences("usr_missing", { notifyEmail: "on" })).rejects.toMatchObject({ code: "not-found" });
  });
});
