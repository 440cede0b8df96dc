import { getEventListeners } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { newArgsSalt } from "../src/args-digest.js";
import { caught, client, decide, fake, newCall, SLUG, useFakeCountersign } from "./fake-countersign.js";

useFakeCountersign();

describe("executor API", () => {
  it("gets state, long-polls until decided, consumes once with a verifiable receipt", async () => {
    const call = newCall();
    const c = client();
    const created = await c.requestApproval(call);
    const { approval_id } = created;

    const pending = await c.getApproval(approval_id);
    expect(pending).toMatchObject({ approval_id, status: "pending", decided_at: null, consumed: false });

    // The long poll holds for up to 30 s and would then answer "pending": an
    // "approved" answer is one woken by the decision, however loaded the machine.
    setTimeout(() => decide(approval_id, "approved", ["bo@example.com", "cy@example.com"]), 300);
    const decided = await c.getApproval(approval_id, { wait: 30 });
    expect(decided.status).toBe("approved");
    expect(decided.decided_by).toEqual(["bo@example.com", "cy@example.com"]);

    let error = await caught(c.consume(approval_id, { ...call, arguments: { account: "AC-1", amount: 11 } }));
    expect([error.code, error.status]).toEqual(["binding-mismatch", 409]);

    const consumed = await c.consume(approval_id, call); // digest computed from the arguments and the remembered salt
    expect(consumed).toMatchObject({ approval_id, decision: "approved", decided_by: ["bo@example.com", "cy@example.com"] });
    const consumeBody = JSON.parse(String(fake.lastConsumeBody));
    expect(Object.keys(consumeBody).sort()).toEqual(["args_digest", "call_id", "run_id", "tool"]);

    const payload = await c.verifyReceipt(consumed.receipt, undefined, {
      expected: { approval_id, run_id: call.run_id, call_id: call.call_id, tool: call.tool, args_digest: created.args_digest },
    });
    expect(payload).toMatchObject({ approval_id, service: SLUG, decision: "approved", consumed_at: consumed.consumed_at });

    error = await caught(c.consume(approval_id, { run_id: call.run_id, call_id: call.call_id, tool: call.tool, args_digest: created.args_digest }));
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
    expect(String(fake.lastConsumeBody)).not.toContain(created.args_salt);

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
    // Not a whole long poll (30 s) past its time: the last poll's wait is cut to what is left.
    expect(Date.now() - started).toBeLessThan(15_000);
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

  it("leaves nothing attached to a caller's long-lived signal once each call is over", async () => {
    // An agent passes one signal (its own shutdown, say) to every call: thousands of calls must not pile up on it.
    const lifetime = new AbortController();
    const c = client();
    const { approval_id } = await c.requestApproval(newCall());
    for (let i = 0; i < 50; i++) await c.getApproval(approval_id, { signal: lifetime.signal });
    await caught(client({ timeoutMs: 100 }).getApproval("hang", { signal: lifetime.signal }));
    expect(getEventListeners(lifetime.signal, "abort")).toHaveLength(0);
    // And while a call is in flight the signal still stops it.
    setTimeout(() => lifetime.abort(), 100);
    expect((await caught(c.cancel("hang", { signal: lifetime.signal }))).code).toBe("aborted");
    expect(getEventListeners(lifetime.signal, "abort")).toHaveLength(0);
  });
});
