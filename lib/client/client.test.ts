import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { CompactSign, exportJWK, generateKeyPair, type CryptoKey, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { argsDigest, isArgsSalt, newArgsSalt } from "../digest/args-digest";
import { generateWebhookSecret, signWebhookHeaders, verifyWebhook, webhookHeadersFrom } from "../webhooks/standard-webhooks";
import {
  CountersignClient,
  CountersignError,
  decodeReceiptUnverified,
  parseRetryAfter,
  verifyCallback,
  verifyReceipt,
  type ApprovalState,
  type ReceiptPayload,
} from "./index";

/**
 * A small stand-in for Countersign on a real local HTTP server: it verifies
 * inbound webhooks with verifyWebhook, keeps approvals in memory, long-polls,
 * consumes once and signs receipts with a fresh Ed25519 key.
 */
const SLUG = "payments";
const TOKEN = "cs_test_token";
const SECRET = generateWebhookSecret();

interface Stored {
  created: { approval_id: string; status: "pending"; args_digest: string; expires_at: string; review_url: string };
  state: ApprovalState;
  waiters: (() => void)[];
}

interface Received {
  headers: IncomingMessage["headers"];
  rawBody: Buffer;
  verified: ReturnType<typeof verifyWebhook>;
}

const approvals = new Map<string, Stored>();
const byCall = new Map<string, string>();
const received: Received[] = [];
const hanging: ServerResponse[] = [];
let server: Server;
let baseUrl: string;
let signingKey: CryptoKey;
let publicJwk: JWK;
let sequence = 0;
let lastConsumeBody: string | undefined;

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Scripted error answers, selected by tool name (webhook) or approval id (API). */
const SCRIPTED: Record<string, [number, unknown, Record<string, string>?]> = {
  "script.digest-mismatch": [422, { error: "digest-mismatch" }],
  "script.invalid-request": [422, { error: "invalid-request", issues: [{ path: "data.tool", message: "Invalid" }] }],
  "script.too-large": [413, { error: "too-large" }],
  "script.rate-limited": [429, { error: "rate-limited" }, { "retry-after": "7" }],
  "script.bare-429": [429, {}, { "retry-after": "3" }],
  "script.unknown-code": [400, { error: "something-new" }],
  "script.not-json": [415, { error: "invalid-request" }],
};

function decide(id: string, status: "approved" | "denied" | "expired", by: string[] = ["rev@example.com"]) {
  const stored = approvals.get(id);
  if (!stored) throw new Error(`no approval ${id}`);
  stored.state = { ...stored.state, status, decided_at: new Date().toISOString(), decided_by: by };
  for (const wake of stored.waiters.splice(0)) wake();
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? "/", "http://localhost");
  const rawBody = await readBody(req);

  if (req.method === "GET" && url.pathname === "/.well-known/jwks.json") {
    return send(res, 200, { keys: [publicJwk] });
  }

  const webhook = /^\/api\/v1\/webhooks\/([^/]+)$/.exec(url.pathname);
  if (req.method === "POST" && webhook) {
    const verified = verifyWebhook({
      secrets: [SECRET],
      headers: webhookHeadersFrom(req.headers),
      rawBody,
    });
    received.push({ headers: req.headers, rawBody, verified });
    if (webhook[1] !== SLUG || !verified.ok) return send(res, 401, { error: "invalid-signature" });
    if (rawBody.length > 256 * 1024) return send(res, 413, { error: "too-large" });
    const event = JSON.parse(rawBody.toString("utf8"));
    const data = event.data;
    const scripted = SCRIPTED[data.tool];
    if (scripted) return send(res, scripted[0], scripted[1], scripted[2]);
    // Salted as Countersign does it (§19) when the request carries a salt.
    const digest = argsDigest(data.arguments, data.args_salt);
    if (data.args_digest !== undefined && data.args_digest !== digest) {
      return send(res, 422, { error: "digest-mismatch" });
    }
    const callKey = `${data.run_id}\u0000${data.call_id}`;
    const existing = byCall.get(callKey);
    if (existing) {
      const stored = approvals.get(existing) as Stored;
      if (stored.state.tool !== data.tool || stored.state.args_digest !== digest) {
        return send(res, 409, { error: "call-reused" });
      }
      return send(res, 200, stored.created);
    }
    const id = `apr_${++sequence}`;
    const expires_at = new Date(Date.now() + 3600_000).toISOString();
    const created = {
      approval_id: id,
      status: "pending" as const,
      args_digest: digest,
      expires_at,
      review_url: `${baseUrl}/approvals/${id}`,
    };
    approvals.set(id, {
      created,
      waiters: [],
      state: {
        approval_id: id,
        status: "pending",
        run_id: data.run_id,
        call_id: data.call_id,
        tool: data.tool,
        args_digest: digest,
        expires_at,
        decided_at: null,
        decided_by: [],
        consumed: false,
      },
    });
    byCall.set(callKey, id);
    return send(res, 201, created);
  }

  const api = /^\/api\/v1\/approvals\/([^/]+)(?:\/(consume|cancel))?$/.exec(url.pathname);
  if (api) {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(res, 401, { error: "unauthorized" });
    const id = decodeURIComponent(api[1] as string);
    if (id === "hang") {
      hanging.push(res);
      return;
    }
    if (id === "boom") {
      res.writeHead(500, { "content-type": "text/plain" });
      return res.end("internal error");
    }
    const scripted = SCRIPTED[id];
    if (scripted) return send(res, scripted[0], scripted[1], scripted[2]);
    const stored = approvals.get(id);
    if (!stored) return send(res, 404, { error: "not-found" });

    if (req.method === "GET" && !api[2]) {
      const wait = Math.min(30, Number(url.searchParams.get("wait") ?? 0));
      if (stored.state.status === "pending" && wait > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait * 1000);
          stored.waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return send(res, 200, stored.state);
    }
    if (req.method === "POST" && api[2] === "cancel") {
      if (stored.state.status !== "pending") return send(res, 409, { error: "already-decided" });
      stored.state = { ...stored.state, status: "cancelled", decided_at: new Date().toISOString() };
      return send(res, 200, stored.state);
    }
    if (req.method === "POST" && api[2] === "consume") {
      lastConsumeBody = rawBody.toString("utf8");
      const binding = JSON.parse(lastConsumeBody);
      const s = stored.state;
      if (s.consumed) return send(res, 409, { error: "already-consumed" });
      if (
        binding.run_id !== s.run_id ||
        binding.call_id !== s.call_id ||
        binding.tool !== s.tool ||
        binding.args_digest !== s.args_digest
      ) {
        return send(res, 409, { error: "binding-mismatch" });
      }
      if (s.status === "pending" || s.status === "cancelled") return send(res, 409, { error: "not-decided" });
      stored.state = { ...s, consumed: true };
      const payload: ReceiptPayload = {
        approval_id: s.approval_id,
        service: SLUG,
        run_id: s.run_id,
        call_id: s.call_id,
        tool: s.tool,
        args_digest: s.args_digest,
        decision: s.status,
        decided_by: s.decided_by,
        decided_at: s.decided_at as string,
        consumed_at: new Date().toISOString(),
      };
      const receipt = await signReceipt(payload);
      return send(res, 200, {
        approval_id: s.approval_id,
        decision: s.status,
        decided_by: s.decided_by,
        decided_at: s.decided_at,
        consumed_at: payload.consumed_at,
        receipt,
      });
    }
  }
  send(res, 404, { error: "not-found" });
}

function signReceipt(payload: unknown, key: CryptoKey = signingKey, kid = "k1"): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: "EdDSA", kid })
    .sign(key);
}

function client(overrides: Partial<ConstructorParameters<typeof CountersignClient>[0]> = {}) {
  return new CountersignClient({ baseUrl, serviceSlug: SLUG, webhookSecret: SECRET, apiToken: TOKEN, ...overrides });
}

async function caught(promise: Promise<unknown>): Promise<CountersignError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(CountersignError);
    return error as CountersignError;
  }
  throw new Error("expected a CountersignError");
}

let runCounter = 0;
function newCall(tool = "payments.pay", args: Record<string, unknown> = { account: "AC-1", amount: 10 }) {
  runCounter += 1;
  return { run_id: `run_${runCounter}`, call_id: "c1", tool, arguments: args };
}

beforeAll(async () => {
  const pair = await generateKeyPair("EdDSA", { crv: "Ed25519" });
  signingKey = pair.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "EdDSA", use: "sig" };
  server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("requestApproval", () => {
  it("sends a signed approval.requested webhook that the server verifies", async () => {
    const call = newCall();
    const created = await client().requestApproval({
      ...call,
      requested_by: "ana@example.com",
      effects: "destructive",
      summary: "Refund order 1234 — café",
      environment: "production",
      expires_in: 600,
    });
    expect(created.status).toBe("pending");
    expect(created.approval_id).toMatch(/^apr_/);
    // A fresh salt (§19) was sent, and the digest is salted with it.
    expect(isArgsSalt(created.args_salt)).toBe(true);
    expect(created.args_digest).toBe(argsDigest(call.arguments, created.args_salt));
    expect(created.args_digest).not.toBe(argsDigest(call.arguments));
    expect(created.review_url).toBe(`${baseUrl}/approvals/${created.approval_id}`);

    const last = received.at(-1) as Received;
    expect(last.verified).toEqual({ ok: true });
    expect(last.headers["webhook-id"]).toMatch(/^msg_/);
    expect(last.headers["webhook-timestamp"]).toMatch(/^[0-9]+$/);
    expect(last.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(last.headers["content-type"]).toBe("application/json");
    const event = JSON.parse(last.rawBody.toString("utf8"));
    expect(event.type).toBe("approval.requested");
    expect(event.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(event.data).toEqual({
      ...call,
      args_salt: created.args_salt,
      args_digest: argsDigest(call.arguments, created.args_salt),
      requested_by: "ana@example.com",
      effects: "destructive",
      summary: "Refund order 1234 — café",
      environment: "production",
      expires_in: 600,
    });
    // The signature covers the exact bytes: one changed byte fails.
    const tampered = Buffer.from(last.rawBody);
    tampered[tampered.length - 2] = (tampered[tampered.length - 2] as number) ^ 1;
    expect(verifyWebhook({ secrets: [SECRET], headers: webhookHeadersFrom(last.headers), rawBody: tampered })).toEqual({
      ok: false,
      reason: "bad-signature",
    });
  });

  it("uses a given webhook-id and signs with every secret during rotation", async () => {
    const newer = generateWebhookSecret();
    const created = await client({ webhookSecret: [newer, SECRET] }).requestApproval(newCall(), {
      webhookId: "msg_fixed_1",
    });
    expect(created.status).toBe("pending");
    const last = received.at(-1) as Received;
    expect(last.headers["webhook-id"]).toBe("msg_fixed_1");
    expect(String(last.headers["webhook-signature"]).split(" ")).toHaveLength(2);
  });

  it("returns the first answer again (200) for the same call, and call-reused for another digest", async () => {
    const call = newCall();
    const c = client();
    const first = await c.requestApproval(call);
    // The same client resends the same salt, so the retry is a replay.
    const again = await c.requestApproval(call);
    expect(again).toEqual(first);
    // Another client (another process) makes its own salt: another digest.
    let error = await caught(client().requestApproval(call));
    expect([error.code, error.status]).toEqual(["call-reused", 409]);
    // ...unless it is handed the salt the call was first sent with.
    expect(await client().requestApproval({ ...call, args_salt: first.args_salt })).toEqual(first);
    error = await caught(c.requestApproval({ ...call, arguments: { account: "AC-2", amount: 10 } }));
    expect(error.code).toBe("call-reused");
    expect(error.status).toBe(409);
  });

  it("makes a fresh salt for every call and refuses a malformed one before sending", async () => {
    const c = client();
    const salts = new Set<string>();
    for (let i = 0; i < 5; i++) salts.add((await c.requestApproval(newCall())).args_salt);
    expect(salts.size).toBe(5);
    const before = received.length;
    await expect(c.requestApproval({ ...newCall(), args_salt: "too-short" })).rejects.toThrow(RangeError);
    expect(received.length).toBe(before);
  });

  it("maps a wrong secret or unknown slug to invalid-signature", async () => {
    let error = await caught(client({ webhookSecret: generateWebhookSecret() }).requestApproval(newCall()));
    expect([error.code, error.status]).toEqual(["invalid-signature", 401]);
    error = await caught(client({ serviceSlug: "other" }).requestApproval(newCall()));
    expect([error.code, error.status]).toEqual(["invalid-signature", 401]);
  });

  it("maps the contract's webhook error bodies to error codes", async () => {
    let error = await caught(client().requestApproval(newCall("script.digest-mismatch")));
    expect([error.code, error.status]).toEqual(["digest-mismatch", 422]);

    error = await caught(client().requestApproval(newCall("script.invalid-request")));
    expect([error.code, error.status]).toEqual(["invalid-request", 422]);
    expect(error.issues).toEqual([{ path: "data.tool", message: "Invalid" }]);

    error = await caught(client().requestApproval(newCall("script.too-large")));
    expect([error.code, error.status]).toEqual(["too-large", 413]);

    error = await caught(client().requestApproval(newCall("script.rate-limited")));
    expect([error.code, error.status, error.retryAfter]).toEqual(["rate-limited", 429, 7]);

    error = await caught(client().requestApproval(newCall("script.bare-429")));
    expect([error.code, error.status, error.retryAfter]).toEqual(["rate-limited", 429, 3]);

    error = await caught(client().requestApproval(newCall("script.unknown-code")));
    expect([error.code, error.status]).toEqual(["unexpected-response", 400]);
    expect(error.body).toEqual({ error: "something-new" });

    error = await caught(client().requestApproval(newCall("script.not-json")));
    expect([error.code, error.status]).toEqual(["invalid-request", 415]);
  });

  it("refuses a body over 256 KiB before sending it", async () => {
    const before = received.length;
    const error = await caught(client().requestApproval(newCall("payments.pay", { blob: "x".repeat(256 * 1024) })));
    expect([error.code, error.status]).toEqual(["too-large", 0]);
    expect(received.length).toBe(before);
  });
});

describe("executor API", () => {
  it("gets state, long-polls until decided, consumes once with a verifiable receipt", async () => {
    const call = newCall();
    const c = client();
    const created = await c.requestApproval(call);
    const { approval_id } = created;

    const pending = await c.getApproval(approval_id);
    expect(pending).toMatchObject({ approval_id, status: "pending", decided_at: null, consumed: false });

    setTimeout(() => decide(approval_id, "approved", ["bo@example.com", "cy@example.com"]), 300);
    const started = Date.now();
    const decided = await c.getApproval(approval_id, { wait: 5 });
    expect(Date.now() - started).toBeLessThan(4000);
    expect(decided.status).toBe("approved");
    expect(decided.decided_by).toEqual(["bo@example.com", "cy@example.com"]);

    let error = await caught(c.consume(approval_id, { ...call, arguments: { account: "AC-1", amount: 11 } }));
    expect([error.code, error.status]).toEqual(["binding-mismatch", 409]);

    const consumed = await c.consume(approval_id, call); // digest computed from the arguments and the remembered salt
    expect(consumed).toMatchObject({ approval_id, decision: "approved", decided_by: ["bo@example.com", "cy@example.com"] });
    const consumeBody = JSON.parse(String(lastConsumeBody));
    expect(Object.keys(consumeBody).sort()).toEqual(["args_digest", "call_id", "run_id", "tool"]);

    const payload = await c.verifyReceipt(consumed.receipt, undefined, {
      expected: { approval_id, run_id: call.run_id, call_id: call.call_id, tool: call.tool, args_digest: created.args_digest },
    });
    expect(payload).toMatchObject({ approval_id, service: SLUG, decision: "approved", consumed_at: consumed.consumed_at });

    error = await caught(
      c.consume(approval_id, { run_id: call.run_id, call_id: call.call_id, tool: call.tool, args_digest: created.args_digest }),
    );
    expect([error.code, error.status]).toEqual(["already-consumed", 409]);
  });

  it("consumes from another client with the salt or the digest handed over, and not without", async () => {
    const call = newCall();
    const created = await client().requestApproval(call);
    decide(created.approval_id, "approved");
    const other = client();
    // Unsalted (this client never saw the salt) or another salt: a different digest.
    let error = await caught(other.consume(created.approval_id, call));
    expect([error.code, error.status]).toEqual(["binding-mismatch", 409]);
    error = await caught(other.consume(created.approval_id, { ...call, args_salt: newArgsSalt() }));
    expect([error.code, error.status]).toEqual(["binding-mismatch", 409]);
    const taken = await other.consume(created.approval_id, { ...call, args_salt: created.args_salt });
    expect(taken.decision).toBe("approved");
    expect(String(lastConsumeBody)).not.toContain(created.args_salt);

    const second = newCall();
    const again = await client().requestApproval(second);
    decide(again.approval_id, "denied");
    const { arguments: _ignored, ...binding } = second;
    expect((await other.consume(again.approval_id, { ...binding, args_digest: again.args_digest })).decision).toBe("denied");
  });

  it("answers not-decided for a pending consume, and cancels once", async () => {
    const call = newCall();
    const c = client();
    const { approval_id } = await c.requestApproval(call);
    let error = await caught(c.consume(approval_id, call));
    expect([error.code, error.status]).toEqual(["not-decided", 409]);

    const cancelled = await c.cancel(approval_id);
    expect(cancelled).toMatchObject({ approval_id, status: "cancelled" });
    error = await caught(c.cancel(approval_id));
    expect([error.code, error.status]).toEqual(["already-decided", 409]);
  });

  it("waitForDecision long-polls repeatedly until a decision", async () => {
    const c = client();
    const { approval_id } = await c.requestApproval(newCall());
    setTimeout(() => decide(approval_id, "denied"), 1500);
    const state = await c.waitForDecision(approval_id, { timeoutMs: 10_000, pollWaitSeconds: 1 });
    expect(state.status).toBe("denied");
  });

  it("waitForDecision returns the pending state when its time runs out", async () => {
    const c = client();
    const { approval_id } = await c.requestApproval(newCall());
    const started = Date.now();
    const state = await c.waitForDecision(approval_id, { timeoutMs: 1500 });
    expect(state.status).toBe("pending");
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("rejects wait outside 0-30", async () => {
    await expect(client().getApproval("apr_1", { wait: 31 })).rejects.toThrow(RangeError);
    await expect(client().getApproval("apr_1", { wait: 1.5 })).rejects.toThrow(RangeError);
  });

  it("maps unauthorized, not-found, rate-limited and 5xx answers", async () => {
    let error = await caught(client({ apiToken: "wrong" }).getApproval("apr_1"));
    expect([error.code, error.status]).toEqual(["unauthorized", 401]);
    error = await caught(client().getApproval("apr_does_not_exist"));
    expect([error.code, error.status]).toEqual(["not-found", 404]);
    error = await caught(client().consume("script.rate-limited", { run_id: "r", call_id: "c", tool: "t", args_digest: "sha256:00" }));
    expect([error.code, error.retryAfter]).toEqual(["rate-limited", 7]);
    error = await caught(client().getApproval("boom"));
    expect([error.code, error.status]).toEqual(["unexpected-response", 500]);
  });

  it("times out per call, reports unreachable servers, and honours an abort signal", async () => {
    let error = await caught(client({ timeoutMs: 200 }).getApproval("hang"));
    expect([error.code, error.status]).toEqual(["timeout", 0]);

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    error = await caught(client().cancel("hang", { signal: controller.signal }));
    expect(error.code).toBe("aborted");

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    error = await caught(client({ baseUrl: `http://127.0.0.1:${port}` }).getApproval("apr_1"));
    expect([error.code, error.status]).toEqual(["network-error", 0]);
  });
});

describe("verifyReceipt", () => {
  const payload = (): ReceiptPayload => ({
    approval_id: "apr_x",
    service: SLUG,
    run_id: "run_x",
    call_id: "c1",
    tool: "payments.pay",
    args_digest: argsDigest({ a: 1 }),
    decision: "approved",
    decided_by: ["rev@example.com"],
    decided_at: "2026-11-29T18:00:00.000Z",
    consumed_at: "2026-11-29T18:01:00.000Z",
  });

  it("accepts a receipt signed by a key of the JWKS (URL or document)", async () => {
    const jws = await signReceipt(payload());
    expect(await verifyReceipt(jws, `${baseUrl}/.well-known/jwks.json`)).toEqual(payload());
    expect(await verifyReceipt(jws, { keys: [publicJwk] })).toEqual(payload());
    expect(decodeReceiptUnverified(jws).payload).toEqual(payload());
  });

  it("rejects a flipped byte in the signature or the payload", async () => {
    const jws = await signReceipt(payload());
    const [header, body, signature] = jws.split(".") as [string, string, string];
    const sig = Buffer.from(signature, "base64url");
    sig[10] = (sig[10] as number) ^ 0x01;
    let error = await caught(verifyReceipt(`${header}.${body}.${sig.toString("base64url")}`, `${baseUrl}/.well-known/jwks.json`));
    expect(error.code).toBe("invalid-receipt");

    const text = Buffer.from(body, "base64url");
    text[5] = (text[5] as number) ^ 0x01;
    error = await caught(verifyReceipt(`${header}.${text.toString("base64url")}.${signature}`, { keys: [publicJwk] }));
    expect(error.code).toBe("invalid-receipt");
  });

  it("rejects another key, another algorithm, a bad payload and an unexpected binding", async () => {
    const other = await generateKeyPair("EdDSA", { crv: "Ed25519" });
    let error = await caught(verifyReceipt(await signReceipt(payload(), other.privateKey), { keys: [publicJwk] }));
    expect(error.code).toBe("invalid-receipt");

    const hs = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload())))
      .setProtectedHeader({ alg: "HS256", kid: "k1" })
      .sign(new Uint8Array(32));
    error = await caught(verifyReceipt(hs, { keys: [publicJwk] }));
    expect(error.code).toBe("invalid-receipt");

    error = await caught(verifyReceipt(await signReceipt({ ...payload(), decision: "maybe" }), { keys: [publicJwk] }));
    expect(error.code).toBe("invalid-receipt");

    error = await caught(verifyReceipt(await signReceipt(payload()), { keys: [publicJwk] }, { expected: { tool: "payments.refund" } }));
    expect(error.code).toBe("invalid-receipt");

    error = await caught(verifyReceipt("not.a-jws", { keys: [publicJwk] }));
    expect(error.code).toBe("invalid-receipt");
  });

  it("finds the right key among several without kid (rotation)", async () => {
    const older = await generateKeyPair("EdDSA", { crv: "Ed25519" });
    const strip = ({ kid: _kid, ...rest }: JWK) => rest;
    const keys = [strip(await exportJWK(older.publicKey)), strip(publicJwk)];
    const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload())))
      .setProtectedHeader({ alg: "EdDSA" })
      .sign(signingKey);
    expect(await verifyReceipt(jws, { keys })).toEqual(payload());
  });
});

describe("verifyCallback", () => {
  const event = {
    type: "approval.decided",
    timestamp: "2026-11-29T18:00:00Z",
    data: {
      approval_id: "apr_1",
      run_id: "run_1",
      call_id: "c1",
      tool: "payments.pay",
      args_digest: argsDigest({ a: 1 }),
      decision: "approved",
      decided_by: ["rev@example.com"],
      decided_at: "2026-11-29T18:00:00Z",
    },
  };
  const callbackSecret = generateWebhookSecret();

  it("verifies and parses a signed approval.decided callback, with any header form", () => {
    const rawBody = Buffer.from(JSON.stringify(event));
    const headers = signWebhookHeaders({ secret: callbackSecret, body: rawBody });
    expect(verifyCallback({ secret: callbackSecret, headers, rawBody })).toEqual(event);
    expect(verifyCallback({ secret: [generateWebhookSecret(), callbackSecret], headers: new Headers(headers), rawBody })).toEqual(event);
    expect(verifyCallback({ secret: callbackSecret, headers: webhookHeadersFrom(headers), rawBody })).toEqual(event);
  });

  it("refuses bad signatures, stale timestamps and malformed events", () => {
    const rawBody = Buffer.from(JSON.stringify(event));
    const headers = signWebhookHeaders({ secret: callbackSecret, body: rawBody, timestamp: 1_700_000_000 });
    const attempt = (input: Parameters<typeof verifyCallback>[0]) => {
      try {
        verifyCallback(input);
      } catch (error) {
        expect(error).toBeInstanceOf(CountersignError);
        return error as CountersignError;
      }
      throw new Error("expected a refusal");
    };
    let error = attempt({ secret: callbackSecret, headers, rawBody });
    expect([error.code, error.reason]).toEqual(["invalid-signature", "stale"]);
    error = attempt({ secret: generateWebhookSecret(), headers, rawBody, now: 1_700_000_000 });
    expect([error.code, error.reason]).toEqual(["invalid-signature", "bad-signature"]);
    error = attempt({ secret: callbackSecret, headers: {}, rawBody });
    expect([error.code, error.reason]).toEqual(["invalid-signature", "missing-headers"]);

    const wrong = Buffer.from(JSON.stringify({ ...event, data: { ...event.data, decision: "maybe" } }));
    error = attempt({ secret: callbackSecret, headers: signWebhookHeaders({ secret: callbackSecret, body: wrong }), rawBody: wrong });
    expect([error.code, error.reason]).toEqual(["invalid-request", "data.decision"]);
  });
});

describe("parseRetryAfter", () => {
  it("reads delta-seconds and HTTP dates", () => {
    expect(parseRetryAfter("120")).toBe(120);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter("soon")).toBeUndefined();
    const now = Date.parse("2026-11-29T18:00:00Z");
    expect(parseRetryAfter("Sun, 29 Nov 2026 18:00:30 GMT", now)).toBe(30);
    expect(parseRetryAfter("Sun, 29 Nov 2026 17:00:00 GMT", now)).toBe(0);
  });
});
