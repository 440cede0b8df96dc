// The reviewers' votes reach the executor: the state and consume answers and
// the callback carry them, the client checks their shape, and denialReason
// reads why a call was denied.
import { describe, expect, it } from "vitest";
import { argsDigest } from "../src/args-digest.js";
import { generateWebhookSecret, signWebhookHeaders } from "../src/standard-webhooks.js";
import { denialReason, verifyCallback, type Review } from "../src/index.js";
import { checkApprovalDecidedEvent, checkApprovalState, checkConsumeResult } from "../src/shape.js";
import { client, decide, newCall, useFakeCountersign } from "./fake-countersign.js";

useFakeCountersign();

const at = "2026-11-29T18:00:00.000Z";
const approve: Review = { by: "bo@example.com", vote: "approve", reason: "matches ticket 88", at };
const deny: Review = { by: "cy@example.com", vote: "deny", reason: "wrong account; ask finance", at };

describe("reviews on the executor's answers", () => {
  it("a denied call: the state and the consume answer carry the votes in order, and denialReason says why", async () => {
    const c = client();
    const call = newCall();
    const { approval_id } = await c.requestApproval(call);
    expect((await c.getApproval(approval_id)).reviews).toEqual([]);
    decide(approval_id, "denied", [deny.by], [approve, deny]);

    const state = await c.waitForDecision(approval_id, { timeoutMs: 5000 });
    expect(state.reviews).toEqual([approve, deny]);
    const taken = await c.consume(approval_id, call);
    expect(taken.decision).toBe("denied");
    expect(taken.reviews).toEqual([approve, deny]);
    expect(denialReason(taken)).toBe("wrong account; ask finance");
  });

  it("an approved call has no denial reason", async () => {
    const c = client();
    const call = newCall();
    const { approval_id } = await c.requestApproval(call);
    decide(approval_id, "approved", [approve.by], [approve]);
    const taken = await c.consume(approval_id, call);
    expect(taken.reviews).toEqual([approve]);
    expect(denialReason(taken)).toBeNull();
  });
});

describe("denialReason", () => {
  it("is the deny vote's reason, or null without one", () => {
    expect(denialReason({ reviews: [] })).toBeNull();
    expect(denialReason({ reviews: [approve, deny] })).toBe(deny.reason);
    expect(denialReason({ reviews: [{ ...deny, reason: null }] })).toBeNull();
  });
});

describe("shape checks of reviews", () => {
  const state = {
    approval_id: "apr_1",
    status: "denied",
    run_id: "r",
    call_id: "c",
    tool: "t",
    args_digest: "sha256:00",
    expires_at: at,
    decided_at: at,
    decided_by: [deny.by],
    reviews: [approve, deny],
    consumed: false,
  };
  const consumed = {
    approval_id: "apr_1",
    decision: "denied",
    decided_by: [deny.by],
    decided_at: at,
    consumed_at: at,
    reviews: [deny],
    receipt: "x.y.z",
  };

  it("accept the contract's form and refuse anything else", () => {
    expect(checkApprovalState(state).ok).toBe(true);
    expect(checkConsumeResult(consumed).ok).toBe(true);
    const bad: unknown[] = [
      undefined,
      null,
      {},
      [{ ...deny, vote: "veto" }],
      [{ ...deny, reason: 3 }],
      [{ ...deny, by: undefined }],
      [{ ...deny, at: undefined }],
      ["cy@example.com"],
    ];
    for (const reviews of bad) {
      expect(checkApprovalState({ ...state, reviews }), JSON.stringify(reviews)).toEqual({ ok: false, field: "reviews" });
      expect(checkConsumeResult({ ...consumed, reviews }), JSON.stringify(reviews)).toEqual({ ok: false, field: "reviews" });
    }
  });

  it("verifyCallback returns the callback's votes and refuses malformed ones", () => {
    const secret = generateWebhookSecret();
    const data = {
      approval_id: "apr_1",
      run_id: "run_1",
      call_id: "c1",
      tool: "payments.pay",
      args_digest: argsDigest({ a: 1 }),
      decision: "denied",
      decided_by: [deny.by],
      decided_at: at,
      reviews: [approve, deny],
    };
    const rawBody = Buffer.from(JSON.stringify({ type: "approval.decided", timestamp: at, data }));
    const event = verifyCallback({ secret, headers: signWebhookHeaders({ secret, body: rawBody }), rawBody });
    if (event.type !== "approval.decided") throw new Error("expected approval.decided");
    expect(event.data.reviews).toEqual([approve, deny]);
    expect(denialReason(event.data)).toBe(deny.reason);
    expect(checkApprovalDecidedEvent({ type: "approval.decided", timestamp: at, data: { ...data, reviews: [{ ...deny, vote: 1 }] } })).toEqual({
      ok: false,
      field: "data.reviews",
    });
  });
});
