import { describe, expect, it } from "vitest";
import { argsDigest, isArgsSalt } from "../src/args-digest.js";
import { generateWebhookSecret, verifyWebhook, webhookHeadersFrom } from "../src/standard-webhooks.js";
import { caught, client, fake, newCall, received, SECRET, useFakeCountersign, type Received } from "./fake-countersign.js";

useFakeCountersign();

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
    // A fresh salt (docs/security.md) was sent, and the digest is salted with it.
    expect(isArgsSalt(created.args_salt)).toBe(true);
    expect(created.args_digest).toBe(argsDigest(call.arguments, created.args_salt));
    expect(created.args_digest).not.toBe(argsDigest(call.arguments));
    expect(created.review_url).toBe(`${fake.baseUrl}/approvals/${created.approval_id}`);

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

describe("requestApproval on a connection that fails before any answer", () => {
  it("retries once with the same webhook-id and signature base, so the server can tell the repeat", async () => {
    const { createServer } = await import("node:http");
    const { CountersignClient } = await import("../src/index.js");
    const seen: Array<{ id: string | undefined; body: string }> = [];
    // The first delivery's connection is cut before an answer (as a closed kept-alive socket is); the second is answered.
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen.push({ id: req.headers["webhook-id"] as string | undefined, body: Buffer.concat(chunks).toString("utf8") });
        if (seen.length === 1) return req.socket.destroy();
        const digest = (JSON.parse(seen[1]!.body) as { data: { args_digest: string } }).data.args_digest;
        res.writeHead(201, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            approval_id: "apr_1",
            status: "pending",
            args_digest: digest,
            expires_at: "2026-12-01T00:00:00Z",
            review_url: "http://x/approvals/apr_1",
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as { port: number };
      const cs = new CountersignClient({ baseUrl: `http://127.0.0.1:${port}`, serviceSlug: "s", webhookSecret: SECRET, apiToken: "t" });
      const created = await cs.requestApproval(newCall());
      expect(created.approval_id).toBe("apr_1");
      expect(seen).toHaveLength(2);
      expect(seen[1]!.id).toBe(seen[0]!.id);
      // The same call and salt: the digest the server would store is the same on both tries.
      expect(JSON.parse(seen[1]!.body).data.args_digest).toBe(JSON.parse(seen[0]!.body).data.args_digest);
    } finally {
      server.close();
    }
  });
});
