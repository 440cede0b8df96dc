/**
 * Test support for the client's tests: a small stand-in for Countersign on a
 * real local HTTP server. It verifies inbound webhooks with verifyWebhook,
 * keeps approvals in memory, long-polls, consumes once and signs receipts with
 * a fresh Ed25519 key. Call useFakeCountersign() at the top of a test file.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { CompactSign, exportJWK, generateKeyPair, type CryptoKey, type JWK } from "jose";
import { afterAll, beforeAll, expect } from "vitest";
import { argsDigest, canonicalJson } from "../src/args-digest.js";
import { applyJsonPatch, type JsonPatch } from "../src/json-patch.js";
import { generateWebhookSecret, verifyWebhook, webhookHeadersFrom } from "../src/standard-webhooks.js";
import { CountersignClient, CountersignError, type ApprovalState, type Proposal, type ReceiptPayload, type Review } from "../src/index.js";

export const SLUG = "payments";
export const TOKEN = "cs_test_token";
export const SECRET = generateWebhookSecret();

interface Stored {
  created: { approval_id: string; status: "pending" | "approved"; args_digest: string; expires_at: string; review_url: string; warnings?: string[] };
  state: ApprovalState;
  waiters: (() => void)[];
  /** The arguments as received: what a revision is compared with (the real server compares redacted views). */
  args: Record<string, unknown>;
  /** Set when a reviewer proposed changes (status "revised"). */
  revision?: { patch: JsonPatch; proposal: Proposal; revisedBy?: string };
}

/** How the fake answers revisions: the proposer's approval meets the quorum at once, or a mismatch is reported whatever arrives. */
export const revisionBehaviour = { approveOnArrival: false, alwaysDiffers: false };

/**
 * How the fake answers execution reports: `dropNext` reports get their connection cut
 * before any answer, `hangNext` get no answer at all (each counts down as it is used).
 */
export const resultBehaviour = { dropNext: 0, hangNext: 0 };

/** One `POST /api/v1/approvals/{id}/result` the fake received, whatever it answered. */
export interface ReceivedResult {
  approvalId: string;
  headers: IncomingMessage["headers"];
  rawBody: string;
  answered: number;
}
/** Every execution report the server received, in order. */
export const results: ReceivedResult[] = [];

export interface Received {
  headers: IncomingMessage["headers"];
  rawBody: Buffer;
  verified: ReturnType<typeof verifyWebhook>;
}

const approvals = new Map<string, Stored>();
const byCall = new Map<string, string>();
/** Every webhook the server received, in order. */
export const received: Received[] = [];
const hanging: ServerResponse[] = [];
let server: Server;
let sequence = 0;
let auditSeq = 0; // the consume events the fake "appends"

/** The running server: its URL, its receipt key, and the last consume body it read. */
export const fake: {
  baseUrl: string;
  signingKey: CryptoKey;
  publicJwk: JWK;
  lastConsumeBody: string | undefined;
  /** Changes the next receipts' payload before it is signed (a server that signs the wrong thing). */
  receiptChange: ((payload: ReceiptPayload) => ReceiptPayload) | undefined;
} = {
  baseUrl: "",
  signingKey: undefined as unknown as CryptoKey,
  publicJwk: {},
  lastConsumeBody: undefined,
  receiptChange: undefined,
};

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
  "script.recorded-without-digest": [
    200,
    {
      approval_id: "script.recorded-without-digest",
      status: "succeeded",
      finished_at: "2026-01-01T00:00:00.000Z",
      reported_at: "2026-01-01T00:00:01.000Z",
    },
  ],
};

/** Decides a request; its votes default to one per decider (a denial's reason: "not today"). */
export function decide(
  id: string,
  status: "approved" | "denied" | "expired",
  by: string[] = ["rev@example.com"],
  reviews: Review[] = status === "expired"
    ? []
    : by.map((who) => ({
        by: who,
        vote: status === "approved" ? "approve" : "deny",
        reason: status === "approved" ? null : "not today",
        at: new Date().toISOString(),
      })),
) {
  const stored = approvals.get(id);
  if (!stored) throw new Error(`no approval ${id}`);
  stored.state = { ...stored.state, status, decided_at: new Date().toISOString(), decided_by: by, reviews };
  for (const wake of stored.waiters.splice(0)) wake();
}

/** A reviewer answers a pending request with changes: it ends "revised" and its consume carries the patch. */
export function propose(id: string, patch: JsonPatch, by = "ana@example.com", reason = "smaller") {
  const stored = approvals.get(id);
  if (!stored) throw new Error(`no approval ${id}`);
  const at = new Date().toISOString();
  stored.revision = { patch, proposal: { by, reason, at } };
  stored.state = { ...stored.state, status: "revised", decided_at: at, decided_by: [by], reviews: [] };
  for (const wake of stored.waiters.splice(0)) wake();
}

/** Another call of the same service already revised the request (one revision per proposal). */
export function reviseElsewhere(id: string) {
  const stored = approvals.get(id);
  if (!stored?.revision) throw new Error(`${id} was not revised`);
  stored.revision.revisedBy = "someone\u0000else";
}

/** The request the fake holds under an id, for assertions. */
export const approvalById = (id: string) => approvals.get(id);

async function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? "/", "http://localhost");
  const rawBody = await readBody(req);

  if (req.method === "GET" && url.pathname === "/.well-known/jwks.json") {
    return send(res, 200, { keys: [fake.publicJwk] });
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
    // Salted as Countersign does it (docs/security.md) when the request carries a salt.
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
    // A revision (docs/revisions.md): only of a revised request, once, compared with the proposal.
    let differs = false;
    const revised = typeof data.revises === "string" ? approvals.get(data.revises) : undefined;
    if (data.revises !== undefined) {
      if (!revised?.revision) return send(res, 422, { error: "invalid-request", issues: [{ path: "data.revises", message: "not revised" }] });
      if (revised.revision.revisedBy !== undefined) return send(res, 409, { error: "already-revised" });
      revised.revision.revisedBy = callKey;
      const expected = applyJsonPatch(revised.args, revised.revision.patch);
      differs = revisionBehaviour.alwaysDiffers || data.tool !== revised.state.tool || canonicalJson(expected) !== canonicalJson(data.arguments);
    }
    const carried = revised?.revision && !differs && revisionBehaviour.approveOnArrival;
    const id = `apr_${++sequence}`;
    const expires_at = new Date(Date.now() + 3600_000).toISOString();
    const created = {
      approval_id: id,
      status: carried ? ("approved" as const) : ("pending" as const),
      args_digest: digest,
      expires_at,
      review_url: `${fake.baseUrl}/approvals/${id}`,
      ...(differs ? { warnings: ["revision-differs"] } : {}),
    };
    const proposer = revised?.revision?.proposal;
    approvals.set(id, {
      created,
      waiters: [],
      args: data.arguments,
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
        reviews: [],
        consumed: false,
        ...(carried && proposer
          ? {
              status: "approved" as const,
              decided_at: new Date().toISOString(),
              decided_by: [proposer.by],
              reviews: [{ by: proposer.by, vote: "approve" as const, reason: proposer.reason, at: new Date().toISOString() }],
            }
          : {}),
      },
    });
    byCall.set(callKey, id);
    return send(res, 201, created);
  }

  const api = /^\/api\/v1\/approvals\/([^/]+)(?:\/(consume|cancel|result))?$/.exec(url.pathname);
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
    if (req.method === "POST" && api[2] === "result") {
      if (resultBehaviour.dropNext > 0) {
        resultBehaviour.dropNext -= 1;
        return req.socket.destroy();
      }
      if (resultBehaviour.hangNext > 0) {
        resultBehaviour.hangNext -= 1;
        hanging.push(res);
        return;
      }
      const answered = (status: number, body: unknown) => {
        results.push({ approvalId: id, headers: req.headers, rawBody: rawBody.toString("utf8"), answered: status });
        return send(res, status, body);
      };
      const issue = resultIssue(rawBody);
      if (issue) return answered(422, { error: "invalid-request", issues: [issue] });
      const report = JSON.parse(rawBody.toString("utf8")) as { status: "succeeded" | "failed"; result_digest: string; finished_at: string };
      const s = stored.state;
      if (s.execution) return answered(409, { error: "already-reported" });
      if (!s.consumed || s.status !== "approved") return answered(409, { error: "not-consumed" });
      const execution = {
        status: report.status,
        result_digest: report.result_digest,
        finished_at: new Date(report.finished_at).toISOString(),
        reported_at: new Date().toISOString(),
      };
      stored.state = { ...s, execution };
      return answered(200, { approval_id: id, ...execution });
    }
    if (req.method === "POST" && api[2] === "consume") {
      fake.lastConsumeBody = rawBody.toString("utf8");
      const binding = JSON.parse(fake.lastConsumeBody);
      const s = stored.state;
      if (s.consumed) return send(res, 409, { error: "already-consumed" });
      if (binding.run_id !== s.run_id || binding.call_id !== s.call_id || binding.tool !== s.tool || binding.args_digest !== s.args_digest) {
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
        iat: Math.floor(Date.now() / 1000),
        exp: Math.floor(Date.now() / 1000) + 600,
        policy: { name: "default", version: 1 },
        audit_seq: ++auditSeq,
        audit_head: "a".repeat(64),
      };
      const receipt = await signReceipt(fake.receiptChange ? fake.receiptChange(payload) : payload);
      return send(res, 200, {
        approval_id: s.approval_id,
        decision: s.status,
        decided_by: s.decided_by,
        decided_at: s.decided_at,
        consumed_at: payload.consumed_at,
        reviews: s.reviews,
        receipt,
        ...(s.status === "revised" && stored.revision ? { patch: stored.revision.patch, proposal: stored.revision.proposal } : {}),
      });
    }
  }
  send(res, 404, { error: "not-found" });
}

/** The first problem of an execution report's body, as the server words it, or null (docs/api.md). */
function resultIssue(rawBody: Buffer): { path: string; message: string } | null {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString("utf8"));
  } catch {
    return { path: "", message: "not JSON" };
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) return { path: "", message: "expected an object" };
  const fields = body as Record<string, unknown>;
  const extra = Object.keys(fields).find((key) => !["status", "result_digest", "finished_at"].includes(key));
  if (extra !== undefined) return { path: "", message: "unrecognized key" };
  if (fields.status !== "succeeded" && fields.status !== "failed") return { path: "status", message: "expected succeeded or failed" };
  if (typeof fields.result_digest !== "string" || !/^sha256:[0-9a-f]{64}$/.test(fields.result_digest)) {
    return { path: "result_digest", message: "expected sha256: and 64 lower-case hex digits" };
  }
  const finished = typeof fields.finished_at === "string" ? Date.parse(fields.finished_at) : Number.NaN;
  if (!/(Z|[+-]\d\d:\d\d)$/.test(String(fields.finished_at)) || Number.isNaN(finished)) {
    return { path: "finished_at", message: "expected an ISO 8601 time with an offset" };
  }
  if (finished > Date.now() + 5 * 60_000) return { path: "finished_at", message: "must not be more than 5 minutes in the future" };
  return null;
}

export function signReceipt(payload: unknown, key: CryptoKey = fake.signingKey, kid = "k1"): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: "EdDSA", kid }).sign(key);
}

/** A client of the fake server, with any option overridden. */
export function client(overrides: Partial<ConstructorParameters<typeof CountersignClient>[0]> = {}) {
  return new CountersignClient({ baseUrl: fake.baseUrl, serviceSlug: SLUG, webhookSecret: SECRET, apiToken: TOKEN, ...overrides });
}

/** The CountersignError a call fails with (fails the test if it resolves). */
export async function caught(promise: Promise<unknown>): Promise<CountersignError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(CountersignError);
    return error as CountersignError;
  }
  throw new Error("expected a CountersignError");
}

let runCounter = 0;
/** A call on a new run, so every test asks for its own approval. */
export function newCall(tool = "payments.pay", args: Record<string, unknown> = { account: "AC-1", amount: 10 }) {
  runCounter += 1;
  return { run_id: `run_${runCounter}`, call_id: "c1", tool, arguments: args };
}

/** Starts the fake server before the file's tests and stops it after them. */
export function useFakeCountersign(): void {
  beforeAll(async () => {
    const pair = await generateKeyPair("EdDSA", { crv: "Ed25519" });
    fake.signingKey = pair.privateKey;
    fake.publicJwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "EdDSA", use: "sig" };
    server = createServer((req, res) => {
      handle(req, res).catch((error) => {
        res.writeHead(500);
        res.end(String(error));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
}
