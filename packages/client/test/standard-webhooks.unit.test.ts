import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import {
  decodeWebhookSecret,
  generateWebhookSecret,
  signWebhook,
  signWebhookHeaders,
  verifyWebhook,
  webhookHeadersFrom,
  type WebhookHeaderValues,
} from "../src/standard-webhooks.js";

// Known-answer vector published with the Standard Webhooks specification.
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const TIMESTAMP = 1614265330;
const BODY = '{"test": 2432232314}';
const SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

const raw = (text: string) => Buffer.from(text, "utf8");
const headers = (signature: string, overrides: Partial<WebhookHeaderValues> = {}): WebhookHeaderValues => ({
  id: ID,
  timestamp: String(TIMESTAMP),
  signature,
  ...overrides,
});

describe("signWebhook", () => {
  it("reproduces the Standard Webhooks known-answer vector", () => {
    expect(signWebhook({ secret: SECRET, id: ID, timestamp: TIMESTAMP, body: BODY })).toBe(SIGNATURE);
    expect(signWebhook({ secret: SECRET, id: ID, timestamp: TIMESTAMP, body: raw(BODY) })).toBe(SIGNATURE);
    expect(signWebhook({ secret: SECRET, id: ID, timestamp: new Date(TIMESTAMP * 1000 + 999), body: BODY })).toBe(SIGNATURE);
  });

  it("agrees with the standardwebhooks package", () => {
    const body = JSON.stringify({ type: "approval.requested", data: { note: "café ☕" } });
    const when = new Date(1_700_000_000_000);
    const theirs = new Webhook(SECRET).sign("msg_1", when, body);
    expect(signWebhook({ secret: SECRET, id: "msg_1", timestamp: when, body })).toBe(theirs);
  });

  it("signs the exact bytes, including ones that are not valid UTF-8", () => {
    const bytes = Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d]);
    const signature = signWebhook({ secret: SECRET, id: ID, timestamp: TIMESTAMP, body: bytes });
    expect(verifyWebhook({ secrets: [SECRET], headers: headers(signature), rawBody: bytes, now: TIMESTAMP })).toEqual({
      ok: true,
    });
    // Decoding as UTF-8 and re-encoding changes the bytes, and so the signature.
    const lossy = Buffer.from(Buffer.from(bytes).toString("utf8"), "utf8");
    expect(verifyWebhook({ secrets: [SECRET], headers: headers(signature), rawBody: lossy, now: TIMESTAMP })).toEqual({
      ok: false,
      reason: "bad-signature",
    });
  });

  it("refuses malformed secrets, ids and timestamps", () => {
    const base = { secret: SECRET, id: ID, timestamp: TIMESTAMP, body: BODY };
    expect(() => signWebhook({ ...base, secret: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" })).toThrow(TypeError);
    expect(() => signWebhook({ ...base, secret: "whsec_" })).toThrow(TypeError);
    expect(() => signWebhook({ ...base, secret: "whsec_not*base64" })).toThrow(TypeError);
    expect(() => signWebhook({ ...base, id: "" })).toThrow(TypeError);
    expect(() => signWebhook({ ...base, id: "x".repeat(257) })).toThrow(TypeError);
    expect(() => signWebhook({ ...base, id: "msg\n1" })).toThrow(TypeError);
    expect(() => signWebhook({ ...base, timestamp: -1 })).toThrow(TypeError);
    expect(() => signWebhook({ ...base, timestamp: 1.5 })).toThrow(TypeError);
  });

  it("signWebhookHeaders emits one v1 entry per secret", () => {
    const second = generateWebhookSecret();
    const out = signWebhookHeaders({ secret: [SECRET, second], id: ID, timestamp: TIMESTAMP, body: BODY });
    expect(out["webhook-id"]).toBe(ID);
    expect(out["webhook-timestamp"]).toBe("1614265330");
    const entries = out["webhook-signature"].split(" ");
    expect(entries).toHaveLength(2);
    expect(entries[0]).toBe(SIGNATURE);
    const auto = signWebhookHeaders({ secret: SECRET, body: BODY });
    expect(auto["webhook-id"]).toMatch(/^msg_[A-Za-z0-9_-]{24}$/);
    expect(auto["webhook-timestamp"]).toMatch(/^[0-9]+$/);
    expect(verifyWebhook({ secrets: [SECRET], headers: webhookHeadersFrom(auto), rawBody: raw(BODY) })).toEqual({
      ok: true,
    });
  });
});

describe("verifyWebhook", () => {
  const verify = (
    signature: string,
    options: { body?: Uint8Array; secrets?: string[]; now?: number; overrides?: Partial<WebhookHeaderValues> } = {},
  ) =>
    verifyWebhook({
      secrets: options.secrets ?? [SECRET],
      headers: headers(signature, options.overrides),
      rawBody: options.body ?? raw(BODY),
      now: options.now ?? TIMESTAMP,
    });

  it("accepts the known-answer vector", () => {
    expect(verify(SIGNATURE)).toEqual({ ok: true });
  });

  it("fails when one byte of the body changes", () => {
    const body = raw(BODY);
    for (let i = 0; i < body.length; i++) {
      const changed = Buffer.from(body);
      changed[i] = (changed[i] as number) ^ 0x01;
      expect(verify(SIGNATURE, { body: changed })).toEqual({ ok: false, reason: "bad-signature" });
    }
    expect(verify(SIGNATURE, { body: raw(BODY + " ") })).toEqual({ ok: false, reason: "bad-signature" });
    // Re-serialized JSON is a different body.
    expect(verify(SIGNATURE, { body: raw(JSON.stringify(JSON.parse(BODY))) })).toEqual({
      ok: false,
      reason: "bad-signature",
    });
  });

  it("fails when the id or timestamp signed differs", () => {
    expect(verify(SIGNATURE, { overrides: { id: "msg_other" } })).toEqual({ ok: false, reason: "bad-signature" });
    expect(verify(SIGNATURE, { overrides: { timestamp: String(TIMESTAMP + 1) } })).toEqual({
      ok: false,
      reason: "bad-signature",
    });
  });

  it('passes "v1,<bad> v1,<good>"', () => {
    const bad = "v1,Zm9vYmFyZm9vYmFyZm9vYmFyZm9vYmFyZm9vYmFyMTI=";
    expect(verify(`${bad} ${SIGNATURE}`)).toEqual({ ok: true });
    expect(verify(`${SIGNATURE} ${bad}`)).toEqual({ ok: true });
    expect(verify(`v1,short ${SIGNATURE}`)).toEqual({ ok: true });
    expect(verify(`v1a,whatever  ${SIGNATURE}`)).toEqual({ ok: true });
  });

  it("ignores entries that are not v1 (v1a, v2, bare)", () => {
    const mac = SIGNATURE.slice(3);
    expect(verify(`v1a,${mac}`)).toEqual({ ok: false, reason: "bad-signature" });
    expect(verify(`v2,${mac}`)).toEqual({ ok: false, reason: "bad-signature" });
    expect(verify(`v1a,${mac} v2,${mac}`)).toEqual({ ok: false, reason: "bad-signature" });
    expect(verify(mac)).toEqual({ ok: false, reason: "bad-signature" });
    expect(verify(`V1,${mac}`)).toEqual({ ok: false, reason: "bad-signature" });
    expect(verify(`v1,${mac}x`)).toEqual({ ok: false, reason: "bad-signature" });
    expect(verify(`v1,${mac.replace(/=$/, "")}`)).toEqual({ ok: false, reason: "bad-signature" });
  });

  it("accepts either of two secrets during rotation", () => {
    const other = generateWebhookSecret();
    expect(verify(SIGNATURE, { secrets: [other, SECRET] })).toEqual({ ok: true });
    expect(verify(SIGNATURE, { secrets: [SECRET, other] })).toEqual({ ok: true });
    const signedWithOther = signWebhook({ secret: other, id: ID, timestamp: TIMESTAMP, body: BODY });
    expect(verify(signedWithOther, { secrets: [SECRET, other] })).toEqual({ ok: true });
    expect(verify(signedWithOther, { secrets: [SECRET] })).toEqual({ ok: false, reason: "bad-signature" });
    expect(verify(SIGNATURE, { secrets: [] })).toEqual({ ok: false, reason: "bad-signature" });
  });

  it("rejects timestamps more than 300 s away and accepts those within", () => {
    expect(verify(SIGNATURE, { now: TIMESTAMP + 301 })).toEqual({ ok: false, reason: "stale" });
    expect(verify(SIGNATURE, { now: TIMESTAMP - 301 })).toEqual({ ok: false, reason: "stale" });
    expect(verify(SIGNATURE, { now: TIMESTAMP + 299 })).toEqual({ ok: true });
    expect(verify(SIGNATURE, { now: TIMESTAMP - 299 })).toEqual({ ok: true });
    expect(verify(SIGNATURE, { now: TIMESTAMP + 300 })).toEqual({ ok: true });
    expect(verify(SIGNATURE, { now: TIMESTAMP - 300 })).toEqual({ ok: true });
  });

  it("uses the real clock when now is omitted", () => {
    expect(verifyWebhook({ secrets: [SECRET], headers: headers(SIGNATURE), rawBody: raw(BODY) })).toEqual({
      ok: false,
      reason: "stale",
    });
  });

  it("rejects non-digit timestamps that the standardwebhooks package accepts", () => {
    // The package parses "1614265330abc" with parseInt; we refuse it.
    for (const timestamp of [
      "1614265330abc",
      " 1614265330",
      "1614265330 ",
      "+1614265330",
      "-1614265330",
      "1.6e9",
      "0x60",
      "1".repeat(16),
      "１６１４２６５３３０",
    ]) {
      expect(verify(SIGNATURE, { overrides: { timestamp } }), timestamp).toEqual({ ok: false, reason: "bad-timestamp" });
    }
  });

  it("rejects missing, empty or malformed headers", () => {
    expect(verifyWebhook({ secrets: [SECRET], headers: null, rawBody: raw(BODY), now: TIMESTAMP })).toEqual({
      ok: false,
      reason: "missing-headers",
    });
    expect(verifyWebhook({ secrets: [SECRET], headers: undefined, rawBody: raw(BODY), now: TIMESTAMP })).toEqual({
      ok: false,
      reason: "missing-headers",
    });
    for (const overrides of [
      { id: undefined },
      { id: null },
      { id: "" },
      { timestamp: undefined },
      { timestamp: "" },
      { signature: null },
      { id: "x".repeat(257) },
      { id: "msg\u0007" },
      { id: "msg_é" },
    ] as Partial<WebhookHeaderValues>[]) {
      const signature = "signature" in overrides ? (overrides.signature as string) : SIGNATURE;
      expect(verify(signature, { overrides }), JSON.stringify(overrides)).toEqual({
        ok: false,
        reason: "missing-headers",
      });
    }
    expect(verify("", {})).toEqual({ ok: false, reason: "missing-headers" });
  });

  it("accepts ids of 1 and 256 printable characters", () => {
    for (const id of ["x", "m".repeat(256), "msg with ~!@#$%^&*() chars"]) {
      const signature = signWebhook({ secret: SECRET, id, timestamp: TIMESTAMP, body: BODY });
      expect(verify(signature, { overrides: { id } })).toEqual({ ok: true });
    }
  });

  it("throws on a malformed configured secret", () => {
    expect(() => verify(SIGNATURE, { secrets: ["not-a-secret"] })).toThrow(TypeError);
  });
});

describe("secrets and header helpers", () => {
  it("generateWebhookSecret gives whsec_ + base64 of 32 random bytes", () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(decodeWebhookSecret(a)).toHaveLength(32);
    expect(a).not.toBe(b);
    // The package reads our secrets the same way.
    const when = new Date(TIMESTAMP * 1000);
    expect(new Webhook(a).sign(ID, when, BODY)).toBe(signWebhook({ secret: a, id: ID, timestamp: when, body: BODY }));
  });

  it("webhookHeadersFrom reads Fetch Headers and Node header records", () => {
    const fetchHeaders = new Headers({ "Webhook-Id": ID, "Webhook-Timestamp": "1", "Webhook-Signature": "v1,x" });
    expect(webhookHeadersFrom(fetchHeaders)).toEqual({ id: ID, timestamp: "1", signature: "v1,x" });
    expect(webhookHeadersFrom({ "webhook-id": ID, "webhook-timestamp": "1", "webhook-signature": ["a", "b"] })).toEqual({
      id: ID,
      timestamp: "1",
      signature: undefined,
    });
    expect(webhookHeadersFrom(null)).toEqual({ id: undefined, timestamp: undefined, signature: undefined });
  });
});
