// CONTRACT §2, §3, §10 over real HTTP against the running app, on one
// database. Every refusal also asserts that nothing new was stored.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";
import { createDb } from "@/lib/db/client";
import { argsDigest } from "@/lib/digest/args-digest";
import { signWebhook, unixNow } from "@/lib/webhooks/standard-webhooks";
import { CountersignClient, decodeReceiptUnverified } from "@/lib/client";
import { recordReview } from "@/lib/reviews/record-review";
import { getReviewView } from "@/lib/reviews/get-review-view";
import { addUser } from "@/lib/users/add-user";
import { createService, disableService, finishRotation, rotateWebhookSecret } from "@/lib/services/manage-services";

type Sent = { status: number; body: Record<string, unknown>; headers: Headers };

export function webhookSuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`webhook ingestion (${provider})`, () => {
    const base = app?.baseUrl ?? "";
    const db = createDb(app?.env.DATABASE_URL ?? "file::memory:");
    let svc: { slug: string; webhook_secret: string; api_token: string };

    beforeAll(async () => {
      svc = await createService({ slug: `svc-${randomBytes(4).toString("hex")}` }, "cli");
    });
    afterAll(async () => {
      await db.$disconnect();
      const { db: shared } = await import("@/lib/db/client");
      await shared().$disconnect();
    });

    const unique = () => randomUUID();
    const event = (data: Record<string, unknown>) => ({ type: "approval.requested", timestamp: new Date().toISOString(), data });
    const callData = (extra: Record<string, unknown> = {}) => ({
      run_id: `run_${unique()}`,
      call_id: "c1",
      tool: "payments.pay",
      arguments: { account: "AC-1", amount: 10 },
      ...extra,
    });

    async function post(
      body: string | Uint8Array,
      opts: { slug?: string; secret?: string; id?: string; timestamp?: string; signature?: string; headers?: Record<string, string> } = {},
    ): Promise<Sent> {
      const id = opts.id ?? `msg_${unique()}`;
      const timestamp = opts.timestamp ?? String(unixNow());
      const bytes = typeof body === "string" ? Buffer.from(body) : Buffer.from(body);
      // Signed over the header's timestamp when it is a number, so a malformed
      // timestamp header still carries an otherwise valid signature.
      const signedAt = /^\d+$/.test(timestamp) ? Number(timestamp) : unixNow();
      const signature =
        opts.signature ?? signWebhook({ secret: opts.secret ?? svc.webhook_secret, id, timestamp: signedAt, body: bytes });
      const r = await fetch(`${base}/api/v1/webhooks/${opts.slug ?? svc.slug}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "webhook-id": id,
          "webhook-timestamp": timestamp,
          "webhook-signature": signature,
          ...opts.headers,
        },
        body: bytes,
      });
      const text = await r.text();
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(text) as Record<string, unknown>;
      } catch {
        parsed = { raw: text };
      }
      return { status: r.status, body: parsed, headers: r.headers };
    }

    /** Counts of everything a refused webhook must not add to. */
    async function stored() {
      const [approvals, seen, events] = await Promise.all([
        db.approval.count(),
        db.seenWebhook.count(),
        db.auditEvent.count({ where: { type: { not: "webhook.rejected" } } }),
      ]);
      return { approvals, seen, events };
    }

    async function expectRefusedWithoutStoring(send: () => Promise<Sent>, status: number, error: string) {
      const before = await stored();
      const r = await send();
      expect(r.status).toBe(status);
      expect(r.body.error).toBe(error);
      expect(await stored()).toEqual(before);
      return r;
    }

    it("creates a pending request: 201, recomputed digest, redacted copy, audit event", async () => {
      const data = callData({
        arguments: { to: "ana@example.com", api_key: "sk-live-abcdefghijklmnopqrstuv", amount: 10 },
        summary: "Refund ana@example.com",
        requested_by: "Ana@Example.com",
      });
      const r = await post(JSON.stringify(event(data)));
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({
        status: "pending",
        args_digest: argsDigest(data.arguments as Record<string, unknown>),
        review_url: `${base}/approvals/${String(r.body.approval_id)}`,
      });
      expect(Object.keys(r.body).sort()).toEqual(["approval_id", "args_digest", "expires_at", "review_url", "status"]);
      const row = await db.approval.findUniqueOrThrow({ where: { id: String(r.body.approval_id) } });
      expect(row.redactedArgs).not.toContain("ana@example.com");
      expect(row.redactedArgs).not.toContain("sk-live");
      expect(JSON.parse(row.redactedArgs)).toMatchObject({ amount: 10 });
      expect(row.summary).not.toContain("ana@example.com");
      const audit = await db.auditEvent.findFirstOrThrow({ where: { approvalId: row.id, type: "approval.requested" } });
      expect(audit.data).not.toContain("ana@example.com");
      expect(audit.data).toContain(row.argsDigest);
    });

    it("accepts a matching args_digest and the TypeScript sender over real HTTP", async () => {
      const client = new CountersignClient({ baseUrl: base, serviceSlug: svc.slug, webhookSecret: svc.webhook_secret, apiToken: svc.api_token });
      const created = await client.requestApproval({ run_id: `run_${unique()}`, call_id: "c1", tool: "email.send", arguments: { n: 1 } });
      expect(created.status).toBe("pending");
      // The client always salts (CONTRACT §19).
      expect(created.args_digest).toBe(argsDigest({ n: 1 }, created.args_salt));
    });

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

    it("answers the same call with the same tool and digest with the first answer", async () => {
      const data = callData();
      const first = await post(JSON.stringify(event(data)));
      const before = await stored();
      const again = await post(JSON.stringify(event({ ...data, summary: "different summary is fine" })));
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(await stored()).toEqual(before);
    });

    it("refuses the same call with another digest or tool: 409 call-reused", async () => {
      const data = callData();
      expect((await post(JSON.stringify(event(data)))).status).toBe(201);
      await expectRefusedWithoutStoring(() => post(JSON.stringify(event({ ...data, arguments: { account: "AC-2", amount: 10 } }))), 409, "call-reused");
      await expectRefusedWithoutStoring(() => post(JSON.stringify(event({ ...data, tool: "payments.refund" }))), 409, "call-reused");
    });

    it("refuses a wrong args_digest: 422 digest-mismatch", async () => {
      const data = callData({ args_digest: argsDigest({ account: "AC-1", amount: 11 }) });
      await expectRefusedWithoutStoring(() => post(JSON.stringify(event(data))), 422, "digest-mismatch");
    });

    it("refuses an invalid body with paths and without echoing values", async () => {
      const secretish = "SUPER-SECRET-VALUE-<script>";
      const r = await expectRefusedWithoutStoring(
        () => post(JSON.stringify(event(callData({ tool: `bad tool ${secretish}`, effects: secretish, expires_in: secretish })))),
        422,
        "invalid-request",
      );
      const issues = r.body.issues as Array<{ path: string; message: string }>;
      expect(issues.map((i) => i.path).sort()).toEqual(["data.effects", "data.expires_in", "data.tool"]);
      expect(JSON.stringify(r.body)).not.toContain("SUPER-SECRET");
      await expectRefusedWithoutStoring(() => post(JSON.stringify({ type: "approval.requested", data: { tool: "x" } })), 422, "invalid-request");
      await expectRefusedWithoutStoring(() => post(JSON.stringify(event(callData({ arguments: [1, 2] })))), 422, "invalid-request");
      await expectRefusedWithoutStoring(() => post(JSON.stringify(event(callData({ run_id: "a\nb" })))), 422, "invalid-request");
      await expectRefusedWithoutStoring(() => post(JSON.stringify(event(callData({ summary: "x".repeat(2001) })))), 422, "invalid-request");
    });

    it("refuses a body that is not JSON, not UTF-8, or nested too deeply: 422", async () => {
      await expectRefusedWithoutStoring(() => post("{not json"), 422, "invalid-request");
      await expectRefusedWithoutStoring(() => post(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])), 422, "invalid-request");
      const deep = "[".repeat(10_000) + "]".repeat(10_000);
      await expectRefusedWithoutStoring(() => post(JSON.stringify(event(callData())).replace('"amount":10', `"amount":${deep}`)), 422, "invalid-request");
    });

    it("refuses a body over 256 KiB: 413, without buffering it", async () => {
      const big = JSON.stringify(event(callData({ arguments: { blob: "x".repeat(256 * 1024) } })));
      await expectRefusedWithoutStoring(() => post(big), 413, "too-large");
      const huge = new Uint8Array(50 * 1024 * 1024).fill(0x20);
      const started = Date.now();
      await expectRefusedWithoutStoring(() => post(huge), 413, "too-large");
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it("gives one identical 401 for every authentication failure", async () => {
      const body = JSON.stringify(event(callData()));
      const disabled = await createService({ slug: `off-${randomBytes(4).toString("hex")}` }, "cli");
      await disableService(disabled.slug, "cli");
      const ts = String(unixNow());
      const cases: Array<() => Promise<Sent>> = [
        () => post(body, { signature: "v1,AAAA" }),
        () => post(body, { secret: `whsec_${randomBytes(32).toString("base64")}` }),
        () => post(body, { timestamp: String(unixNow() - 301) }),
        () => post(body, { timestamp: String(unixNow() + 301) }),
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
      await expectRefusedWithoutStoring(() => post(JSON.stringify(event(callData())), { slug: s.slug, secret: s.webhook_secret }), 401, "invalid-signature");
      expect((await post(JSON.stringify(event(callData())), { slug: s.slug, secret: next })).status).toBe(201);
    });

    it("caps expires_in at the policy TTL", async () => {
      const r = await post(JSON.stringify(event(callData({ expires_in: 30 * 24 * 3600 }))));
      const row = await db.approval.findUniqueOrThrow({ where: { id: String(r.body.approval_id) } });
      expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(row.ttlSeconds * 1000);
      const short = await post(JSON.stringify(event(callData({ expires_in: 60 }))));
      const shortRow = await db.approval.findUniqueOrThrow({ where: { id: String(short.body.approval_id) } });
      expect(shortRow.expiresAt.getTime() - shortRow.createdAt.getTime()).toBe(60_000);
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

    it("creates one request from 20 simultaneous deliveries of one call with different digests", async () => {
      const data = callData();
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => post(JSON.stringify(event({ ...data, arguments: { amount: i } })))),
      );
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
      expect(answers.filter((a) => a.status === 409 && a.body.error === "call-reused")).toHaveLength(19);
      expect(await db.approval.count({ where: { runId: data.run_id } })).toBe(1);
    });

    it("never answers 5xx nor stores anything for malformed bodies and headers (property test)", async () => {
      const jsonish = fc.oneof(
        fc.string(),
        fc.json(),
        fc.record({ type: fc.constant("approval.requested"), data: fc.dictionary(fc.string(), fc.jsonValue()) }).map((v) => JSON.stringify(v)),
        fc.record({
          type: fc.constant("approval.requested"),
          // Drop the rare draw that has every required field with an object for
          // arguments: it may well be a valid request (say run_id " "), which the
          // contract accepts; the tests above cover valid ones.
          data: fc
            .record({ run_id: fc.string(), call_id: fc.string(), tool: fc.string(), arguments: fc.jsonValue() }, { requiredKeys: [] })
            .filter((d) => !(d.run_id !== undefined && d.call_id !== undefined && d.tool !== undefined && isPlainObject(d.arguments))),
        }).map((v) => JSON.stringify(v)),
      );
      const before = await stored();
      await fc.assert(
        fc.asyncProperty(jsonish, fc.boolean(), fc.option(fc.string(), { nil: undefined }), async (body, signIt, badTimestamp) => {
          const r = await post(body, signIt ? { timestamp: badTimestamp } : { signature: badTimestamp ?? "v1,x" });
          expect(r.status).toBeGreaterThanOrEqual(400);
          expect(r.status).toBeLessThan(500);
        }),
        { numRuns: 60 },
      );
      expect(await stored()).toEqual(before);
    });

    it("answers 429 with Retry-After past the service's rate limit", async () => {
      const s = await createService({ slug: `rl-${randomBytes(4).toString("hex")}` }, "cli");
      await db.service.update({ where: { slug: s.slug }, data: { rateLimitPerMinute: 3 } });
      const statuses: number[] = [];
      let limited: Sent | undefined;
      for (let i = 0; i < 8; i++) {
        const r = await post(JSON.stringify(event(callData())), { slug: s.slug, secret: s.webhook_secret });
        statuses.push(r.status);
        if (r.status === 429) limited = r;
      }
      // A minute boundary can reset the window once; at least one refusal must land.
      expect(statuses.filter((x) => x === 429).length).toBeGreaterThanOrEqual(1);
      expect(limited!.body).toEqual({ error: "rate-limited" });
      expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThan(0);
    });

    // CONTRACT §19 changed this: refusals are counted per minute, and each
    // minute's count becomes one webhook.rejected event once the minute is over.
    it("counts a refusal under its service and reason, and audits the minute's count with no payload", async () => {
      const { refusalSnapshot, refusalsSince } = await import("../helpers/refusals");
      const { flushRefusalTallies } = await import("@/lib/audit/refusal-tallies");
      const s = await createService({ slug: `rej-${randomBytes(4).toString("hex")}` }, "cli");
      const marker = `PAYLOAD-${unique()}`;
      const counted = { kind: "webhook.rejected", subject: s.slug, reason: "invalid-request" };
      const before = await refusalSnapshot(db, counted);
      const r = await post(JSON.stringify(event(callData({ tool: `${marker} is not a tool name` }))), { slug: s.slug, secret: s.webhook_secret });
      expect(r.status).toBe(422);
      await flushRefusalTallies(Date.now() + 120_000); // as if the minute were over
      const { count, after } = await refusalsSince(db, counted, before);
      expect(count).toBe(1);
      expect(after.events).toEqual([{ minute: expect.stringMatching(/:00\.000Z$/), service: s.slug, reason: "invalid-request", status: 422, count: 1 }]);
      const written = await db.auditEvent.findMany({ where: { seq: { gt: before.head } } });
      for (const e of written) expect(e.data).not.toContain(marker);
    });
  });

  strictParsingAndSaltSuite(provider);
}

function isPlainObject(v: unknown): boolean {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * CONTRACT §19 "I-JSON" and "Salted digests" over real HTTP: lossy bodies are
 * refused and store nothing; `__proto__` is kept; a salt binds the digest and
 * is never handed back in any answer, audit event, callback or receipt.
 */
function strictParsingAndSaltSuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`I-JSON and salted digests (${provider})`, () => {
    const base = app?.baseUrl ?? "";
    const db = createDb(app?.env.DATABASE_URL ?? "file::memory:");
    let svc: { slug: string; webhook_secret: string; api_token: string };

    beforeAll(async () => {
      svc = await createService({ slug: `ij-${randomBytes(4).toString("hex")}` }, "cli");
      // A callback URL on loopback's discard port: deliveries fail, but the payload is stored to inspect.
      await db.service.update({ where: { slug: svc.slug }, data: { callbackUrl: "http://127.0.0.1:9/countersign" } });
    });
    afterAll(async () => {
      await db.$disconnect();
    });

    const salt = () => randomBytes(32).toString("base64url");
    const jcsDigest = (jcs: string, s?: string) =>
      `sha256:${createHash("sha256").update(s === undefined ? jcs : `${s}.${jcs}`, "utf8").digest("hex")}`;

    async function post(body: string, id = `msg_${randomUUID()}`): Promise<Sent> {
      const bytes = Buffer.from(body, "utf8");
      const signature = signWebhook({ secret: svc.webhook_secret, id, timestamp: unixNow(), body: bytes });
      const r = await fetch(`${base}/api/v1/webhooks/${svc.slug}`, {
        method: "POST",
        headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(unixNow()), "webhook-signature": signature },
        body: bytes,
      });
      const text = await r.text();
      return { status: r.status, body: JSON.parse(text) as Record<string, unknown>, headers: r.headers };
    }
    /** A request body whose `arguments` are the given raw JSON text. */
    const bodyWith = (argsText: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({
        type: "approval.requested",
        data: { run_id: `run_${randomUUID()}`, call_id: "c1", tool: "payments.pay", arguments: "@ARGS@", ...extra },
      }).replace('"@ARGS@"', argsText);

    async function stored() {
      const [approvals, seen, events] = await Promise.all([
        db.approval.count(),
        db.seenWebhook.count(),
        db.auditEvent.count({ where: { type: { not: "webhook.rejected" } } }),
      ]);
      return { approvals, seen, events };
    }

    it("refuses each lossy-parsing class with 422 invalid-request, stores nothing, and echoes no value", async () => {
      const cases: Array<[string, string]> = [
        ["duplicate key", '{"amount":10,"to":"AC-1","amount":1000000}'],
        ["duplicate key, escaped and deep", '{"lines":[{"sku":"x","\\u0073ku":"y"}]}'],
        ["duplicate __proto__", '{"__proto__":{"a":1},"__proto__":{"b":2}}'],
        ["integer beyond 2^53-1", '{"amount":9007199254740993}'],
        ["negative integer beyond", '{"amount":-123456789012345678901234567890}'],
        ["non-finite", '{"amount":1e400}'],
        ["precision a double loses", '{"amount":9007199254740993.0}'],
        ["lone surrogate key", '{"\\ud800SECRETKEY":1}'],
        ["lone surrogate value", '{"note":"SECRETVALUE\\udfff"}'],
        ["reversed pair", '{"note":"\\ude00\\ud83d"}'],
      ];
      for (const [name, args] of cases) {
        const before = await stored();
        const r = await post(bodyWith(args));
        expect([r.status, r.body.error], name).toEqual([422, "invalid-request"]);
        const issues = r.body.issues as Array<{ path: string; message: string }>;
        expect(issues, name).toHaveLength(1);
        expect(issues[0]!.path, name).toMatch(/^data\.arguments\.#\d/);
        const text = JSON.stringify(r.body);
        for (const leak of ["1000000", "9007199254740993", "1e400", "SECRET", "ud800", "123456789"]) expect(text, name).not.toContain(leak);
        expect(await stored(), name).toEqual(before);
      }
      // Duplicates in the envelope too.
      const dupEnvelope = bodyWith('{"a":1}').replace('"call_id":"c1"', '"call_id":"c1","call_id":"c2"');
      const r = await post(dupEnvelope);
      expect([r.status, r.body.issues]).toEqual([422, [{ path: "data.call_id", message: "duplicate object key" }]]);
    });

    it("keeps __proto__: stored in the redacted copy, digested as the sender digested it", async () => {
      const s = salt();
      const argsText = '{"__proto__":{"to":"ana@example.com","role":"admin"},"amount":10}';
      const clientDigest = argsDigest(JSON.parse(argsText) as Record<string, unknown>, s);
      expect(clientDigest).toBe(jcsDigest('{"__proto__":{"role":"admin","to":"ana@example.com"},"amount":10}', s));
      const r = await post(bodyWith(argsText, { args_salt: s, args_digest: clientDigest }));
      expect(r.status).toBe(201);
      expect(r.body.args_digest).toBe(clientDigest);
      const row = await db.approval.findUniqueOrThrow({ where: { id: String(r.body.approval_id) } });
      expect(row.argsDigest).toBe(clientDigest);
      const shown = JSON.parse(row.redactedArgs) as Record<string, unknown>;
      expect(Object.keys(shown)).toEqual(["__proto__", "amount"]);
      expect(row.redactedArgs).toContain('"role":"admin"');
      expect(row.redactedArgs).not.toContain("ana@example.com");
      // Unsalted too: the digest of the arguments without __proto__ is refused as a mismatch.
      const plain = await post(bodyWith(argsText, { args_digest: argsDigest({ amount: 10 }) }));
      expect([plain.status, plain.body.error]).toEqual([422, "digest-mismatch"]);
    });

    it("keeps integers up to 2^53-1 and exact doubles as sent", async () => {
      const argsText = '{"max":9007199254740991,"min":-9007199254740991,"big":1e21,"tenth":0.1,"tiny":5e-324}';
      const r = await post(bodyWith(argsText));
      expect(r.status).toBe(201);
      const row = await db.approval.findUniqueOrThrow({ where: { id: String(r.body.approval_id) } });
      expect(JSON.parse(row.redactedArgs)).toEqual({ max: 9007199254740991, min: -9007199254740991, big: 1e21, tenth: 0.1, tiny: 5e-324 });
      expect(r.body.args_digest).toBe(jcsDigest('{"big":1e+21,"max":9007199254740991,"min":-9007199254740991,"tenth":0.1,"tiny":5e-324}'));
    });

    it("refuses a malformed args_salt with 422 and the field's path, without echoing it", async () => {
      const bad = [
        randomBytes(16).toString("base64"), // padded
        randomBytes(15).toString("base64url"),
        randomBytes(65).toString("base64url"),
        `${randomBytes(32).toString("base64url").slice(0, -1)}+`,
        "A".repeat(21) + "B", // 16 bytes with non-zero unused bits: not the canonical spelling
        "",
      ];
      for (const s of bad) {
        const before = await stored();
        const r = await post(bodyWith('{"a":1}', { args_salt: s }));
        expect([r.status, r.body.error], s).toEqual([422, "invalid-request"]);
        expect(r.body.issues, s).toEqual([{ path: "data.args_salt", message: expect.any(String) }]);
        if (s) expect(JSON.stringify(r.body)).not.toContain(s);
        expect(await stored()).toEqual(before);
      }
    });

    it("binds a salted digest: repeat with another salt is call-reused; consume needs the salted digest", async () => {
      const s = salt();
      const args = { account: "AC-1", amount: 10 };
      const runId = `run_${randomUUID()}`;
      const data = { run_id: runId, call_id: "c1", tool: "payments.pay", arguments: args, args_salt: s };
      const event = (d: object) => JSON.stringify({ type: "approval.requested", data: d });
      const first = await post(event(data));
      expect(first.status).toBe(201);
      expect(first.body.args_digest).toBe(argsDigest(args, s));
      expect(first.body.args_digest).toBe(jcsDigest('{"account":"AC-1","amount":10}', s));
      expect(first.body.args_digest).not.toBe(argsDigest(args));
      const row = await db.approval.findUniqueOrThrow({ where: { id: String(first.body.approval_id) } });
      expect(row.argsSalt).toBe(s);

      // Same call, same tool and arguments: same salt replays, another salt (or none) is another digest.
      expect(await post(event(data))).toMatchObject({ status: 200, body: first.body });
      for (const other of [{ ...data, args_salt: salt() }, { ...data, args_salt: undefined }]) {
        const before = await stored();
        const r = await post(event(other));
        expect([r.status, r.body.error]).toEqual([409, "call-reused"]);
        expect(await stored()).toEqual(before);
      }

      const reviewer = await addUser({ email: `rev-${randomBytes(4).toString("hex")}@example.com`, roles: ["reviewer"] }, "cli");
      await recordReview(reviewer.id, { approvalId: row.id, decision: "approve" });

      const cs = new CountersignClient({ baseUrl: base, serviceSlug: svc.slug, webhookSecret: svc.webhook_secret, apiToken: svc.api_token });
      const binding = { run_id: runId, call_id: "c1", tool: "payments.pay" };
      for (const wrong of [argsDigest(args), argsDigest(args, salt())]) {
        const e = await cs.consume(row.id, { ...binding, args_digest: wrong }).catch((x: unknown) => x);
        expect(e).toMatchObject({ code: "binding-mismatch", status: 409 });
      }
      // The executor that knows the salt binds to the arguments it is about to run.
      const taken = await cs.consume(row.id, { ...binding, arguments: args, args_salt: s });
      expect(taken.decision).toBe("approved");
      const { payload } = decodeReceiptUnverified(taken.receipt);
      expect(payload).toMatchObject({ args_digest: argsDigest(args, s) });
      expect(Object.keys(payload as object)).not.toContain("args_salt");

      // The salt appears in no answer, audit event, callback payload or page data.
      const state = await fetch(`${base}/api/v1/approvals/${row.id}`, { headers: { authorization: `Bearer ${svc.api_token}` } });
      const seen = [JSON.stringify(first.body), await state.text(), JSON.stringify(taken), JSON.stringify(payload)];
      const events = await db.auditEvent.findMany({ where: { approvalId: row.id } });
      expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["approval.requested", "approval.decided", "consume.refused", "approval.consumed"]));
      seen.push(...events.map((e) => e.data));
      const anyEvent = await db.auditEvent.count({ where: { data: { contains: s } } });
      expect(anyEvent).toBe(0);
      const callbacks = await db.callbackDelivery.findMany({ where: { approvalId: row.id } });
      expect(callbacks).toHaveLength(1);
      seen.push(...callbacks.map((c) => c.payload));
      const admin = await addUser({ email: `adm-${randomBytes(4).toString("hex")}@example.com`, roles: ["admin"] }, "cli");
      const view = await getReviewView(row.id, admin.id);
      expect(view?.id).toBe(row.id);
      seen.push(JSON.stringify(view));
      for (const text of seen) expect(text).not.toContain(s);
    });

    it("the TypeScript client salts every request and consumes with the salt it remembered", async () => {
      const cs = new CountersignClient({ baseUrl: base, serviceSlug: svc.slug, webhookSecret: svc.webhook_secret, apiToken: svc.api_token });
      const call = { run_id: `run_${randomUUID()}`, call_id: "c1", tool: "email.send", arguments: { to: "ops@example.com", n: 1 } };
      const created = await cs.requestApproval(call);
      const row = await db.approval.findUniqueOrThrow({ where: { id: created.approval_id } });
      expect(row.argsSalt).toBe(created.args_salt);
      expect(created.args_digest).toBe(argsDigest(call.arguments, created.args_salt));
      // A retry from the same client is a replay, not call-reused.
      expect(await cs.requestApproval(call)).toEqual(created);
      const reviewer = await addUser({ email: `rev-${randomBytes(4).toString("hex")}@example.com`, roles: ["reviewer"] }, "cli");
      await recordReview(reviewer.id, { approvalId: row.id, decision: "deny", reason: "not now" });
      const taken = await cs.consume(created.approval_id, call);
      expect(taken.decision).toBe("denied");
    });
  });
}
