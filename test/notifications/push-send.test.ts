// sendWebPush against a real push service on this machine (push-endpoint.ts,
// HTTPS with the run's certificate): what arrives decrypts to exactly what
// was sent, is signed with the VAPID key, carries TTL/Topic/Urgency, and
// every failure is a result, not a throw. This process is outside production
// (loopback allowed) and allows any port (PUSH_ALLOW_ANY_PORT=1): the push
// service listens on 127.0.0.1 at a random port; https is still required.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateVapidKeys } from "@/lib/local-secrets";
import { freePort } from "../helpers/ports";
import { pushEndpoint, type PushEndpoint } from "./push-endpoint";

const vapid = generateVapidKeys();
let service: PushEndpoint;
let push: typeof import("@/lib/notifications/web-push");

beforeAll(async () => {
  Object.assign(process.env, { ...vapid, VAPID_SUBJECT: "mailto:ops@example.com", PUSH_ALLOW_ANY_PORT: "1" });
  push = await import("@/lib/notifications/web-push");
  service = await pushEndpoint();
  service.expectKey(vapid.VAPID_PUBLIC_KEY);
});
afterAll(() => service?.close());

const target = (s: { json: { endpoint: string; keys: { p256dh: string; auth: string } } }) => ({ endpoint: s.json.endpoint, ...s.json.keys });

describe("sendWebPush", () => {
  it("is on with VAPID keys and hands the browser the public key", () => {
    expect(push.pushChannel()).toBe("on");
    expect(push.vapidPublicKey()).toBe(vapid.VAPID_PUBLIC_KEY);
  });

  it("delivers an aes128gcm body that decrypts to the payload, signed with the VAPID key", async () => {
    const sub = service.subscribe();
    const payload = JSON.stringify({
      title: "Review needed",
      body: "payments.refund from billing",
      url: "http://localhost/approvals/apr_x",
      tag: "apr_x",
    });
    const r = await push.sendWebPush(target(sub), payload, { ttlSeconds: 3600, topic: "abc123", urgency: "high" });
    expect(r).toEqual({ ok: true, statusCode: 201 });
    expect(service.problems).toEqual([]);
    const got = service.received.filter((x) => x.subscription === sub.id);
    expect(got).toHaveLength(1);
    expect(got[0]!.plaintext!.toString("utf8")).toBe(payload);
    expect(got[0]!.raw.includes(Buffer.from("Review needed"))).toBe(false); // encrypted on the wire
    expect(got[0]).toMatchObject({ ttl: "3600", topic: "abc123", urgency: "high", contentEncoding: "aes128gcm" });
  });

  it("signs one VAPID token per push service and reuses it (each message still encrypted for its own subscription)", async () => {
    const [a, b] = [service.subscribe(), service.subscribe()];
    for (const sub of [a, b, a])
      expect(await push.sendWebPush(target(sub), `hello ${sub.id}`, { ttlSeconds: 60 })).toEqual({ ok: true, statusCode: 201 });
    expect(service.problems).toEqual([]);
    const got = service.received.filter((x) => x.subscription === a.id || x.subscription === b.id);
    expect(got.map((x) => x.plaintext?.toString("utf8"))).toEqual([`hello ${a.id}`, `hello ${b.id}`, `hello ${a.id}`]);
    // The endpoint verified each token (ES256 by the VAPID key, this origin, unexpired); all three are the same one.
    expect(new Set(got.map((x) => x.authorization)).size).toBe(1);
    expect(got[0]!.raw.equals(got[2]!.raw)).toBe(false);
  });

  it("reports 410 and 404 as gone, 500 as not gone, without the service's words", async () => {
    for (const [status, gone] of [
      [410, true],
      [404, true],
      [500, false],
    ] as const) {
      const sub = service.subscribe();
      service.answer(sub.id, status);
      const r = await push.sendWebPush(target(sub), "{}", { ttlSeconds: 60 });
      expect(r).toEqual({ ok: false, gone, error: `HTTP ${status} from the push service` });
    }
  });

  it("returns an error for a port nobody listens on, and for keys that are not a subscription's", async () => {
    const port = await freePort();
    const sub = service.subscribe();
    const r = await push.sendWebPush({ ...target(sub), endpoint: `https://127.0.0.1:${port}/push/x` }, "{}", { ttlSeconds: 60 });
    expect(r).toMatchObject({ ok: false, gone: false });
    expect((r as { error: string }).error).toMatch(/^connection failed \(ECONNREFUSED\)$/);
    const bad = await push.sendWebPush({ ...target(sub), p256dh: "AAAA" }, "{}", { ttlSeconds: 60 });
    expect(bad).toEqual({ ok: false, gone: false, error: "the message could not be encrypted for this subscription" });
  });

  it("gives up on a push service that never answers after about 10 s", async () => {
    const { createServer } = await import("node:net");
    const sockets: import("node:net").Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket)); // accepts, reads, never answers
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const port = (silent.address() as import("node:net").AddressInfo).port;
    const sub = service.subscribe();
    const started = Date.now();
    const r = await push.sendWebPush({ ...target(sub), endpoint: `https://127.0.0.1:${port}/push/x` }, "{}", { ttlSeconds: 60 });
    const took = Date.now() - started;
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((r) => silent.close(() => r()));
    expect(r).toEqual({ ok: false, gone: false, error: "no answer within 10 s" });
    expect(took).toBeGreaterThanOrEqual(9_500);
    expect(took).toBeLessThan(15_000);
  }, 30_000);

  it("refuses an endpoint the callback-target rule forbids (a metadata address) without connecting", async () => {
    const sub = service.subscribe();
    const r = await push.sendWebPush({ ...target(sub), endpoint: "https://169.254.169.254/push/x" }, "{}", { ttlSeconds: 60 });
    expect(r).toEqual({ ok: false, gone: false, refused: true, error: "the endpoint is not an address push messages may go to" });
  });

  it("refuses plain http to the push service itself, a private address and a name spelling one, and never connects", async () => {
    const sub = service.subscribe();
    const before = service.connections();
    const cases: Array<[string, string]> = [
      [sub.endpoint.replace("https:", "http:"), "the endpoint must be an https: URL"],
      [`http://127.1:${service.port}/push/${sub.id}`, "the endpoint must be an https: URL"],
      [`https://10.1.2.3:6379/x`, "the endpoint is not an address push messages may go to"],
      [`https://192.168.0.10/push/x`, "the endpoint is not an address push messages may go to"],
      [`https://10.0.0.7.nip.io:${service.port}/push/${sub.id}`, "the endpoint is not an address push messages may go to"],
      [`https://user:pass@127.0.0.1:${service.port}/push/${sub.id}`, "the endpoint is not an address push messages may go to"],
    ];
    for (const [endpoint, error] of cases) {
      expect(await push.sendWebPush({ ...target(sub), endpoint }, "{}", { ttlSeconds: 60 }), endpoint).toEqual({
        ok: false,
        gone: false,
        refused: true,
        error,
      });
    }
    expect(service.connections()).toBe(before);
    expect(service.received.filter((x) => x.subscription === sub.id)).toEqual([]);
    // The same subscription over https is delivered: the refusals were the rule, not the service.
    expect(await push.sendWebPush(target(sub), "{}", { ttlSeconds: 60 })).toEqual({ ok: true, statusCode: 201 });
  });
});

describe("VAPID configuration", () => {
  let parseEnv: typeof import("@/lib/env").parseEnv;
  let secrets: typeof import("@/lib/local-secrets");
  beforeAll(async () => {
    ({ parseEnv } = await import("@/lib/env"));
    secrets = await import("@/lib/local-secrets");
  });
  const production = () => {
    const s = secrets.generateSecrets();
    return {
      NODE_ENV: "production",
      AUTH_SECRET: s.AUTH_SECRET,
      AUDIT_KEY: s.AUDIT_KEY,
      ENCRYPTION_KEY: s.ENCRYPTION_KEY,
      RECEIPT_SIGNING_KEY: s.RECEIPT_SIGNING_KEY,
    } as const;
  };

  it("is optional in production (push off) and validated when given, both or neither", () => {
    const e = parseEnv({ ...production() });
    expect(e.VAPID_PUBLIC_KEY).toBeUndefined();
    expect(e.VAPID_SUBJECT).toBe("mailto:countersign@localhost");
    const pair = secrets.generateVapidKeys();
    expect(parseEnv({ ...production(), ...pair, VAPID_SUBJECT: "https://ops.example.com/contact" })).toMatchObject(pair);
    expect(() => parseEnv({ ...production(), VAPID_PUBLIC_KEY: pair.VAPID_PUBLIC_KEY })).toThrow(
      /VAPID_PRIVATE_KEY: VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY go together/,
    );
    expect(() => parseEnv({ ...production(), ...pair, VAPID_PUBLIC_KEY: pair.VAPID_PRIVATE_KEY })).toThrow(
      /VAPID_PUBLIC_KEY must be an uncompressed P-256 public key/,
    );
    expect(() => parseEnv({ ...production(), ...pair, VAPID_PRIVATE_KEY: "abc" })).toThrow(/VAPID_PRIVATE_KEY must be a P-256 private key/);
    expect(() => parseEnv({ ...production(), ...pair, VAPID_SUBJECT: "http://example.com" })).toThrow(
      /VAPID_SUBJECT must be a mailto: address or an https: URL/,
    );
  });

  it("is generated once outside production and kept in secrets.json; an older file without it is given one", async () => {
    const { mkdtempSync, readFileSync, writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(join(tmpdir(), "cs-vapid-"));
    const first = parseEnv({ NODE_ENV: "development", COUNTERSIGN_DATA_DIR: dir });
    expect(first.VAPID_PUBLIC_KEY).toMatch(/^B[A-Za-z0-9_-]{86}$/);
    expect(parseEnv({ NODE_ENV: "development", COUNTERSIGN_DATA_DIR: dir }).VAPID_PRIVATE_KEY).toBe(first.VAPID_PRIVATE_KEY);
    // A file written before Web Push existed.
    const file = join(dir, "secrets.json");
    const old = JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;
    delete old.VAPID_PUBLIC_KEY;
    delete old.VAPID_PRIVATE_KEY;
    writeFileSync(file, JSON.stringify(old));
    const upgraded = parseEnv({ NODE_ENV: "development", COUNTERSIGN_DATA_DIR: dir });
    expect(upgraded.VAPID_PUBLIC_KEY).toMatch(/^B/);
    expect(upgraded.AUTH_SECRET).toBe(old.AUTH_SECRET);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ AUTH_SECRET: old.AUTH_SECRET, VAPID_PUBLIC_KEY: upgraded.VAPID_PUBLIC_KEY });
  });
});
