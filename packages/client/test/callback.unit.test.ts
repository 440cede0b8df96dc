import { describe, expect, it } from "vitest";
import { argsDigest } from "../src/args-digest.js";
import { generateWebhookSecret, signWebhookHeaders, webhookHeadersFrom } from "../src/standard-webhooks.js";
import { CountersignError, verifyCallback, verifyReviewNotice, type ReviewNoticeEvent } from "../src/index.js";

/** The CountersignError a verification throws; a verification that passes fails the test. */
function refusalOf(verify: () => unknown): CountersignError {
  try {
    verify();
  } catch (error) {
    expect(error).toBeInstanceOf(CountersignError);
    return error as CountersignError;
  }
  throw new Error("expected a refusal");
}

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
      reviews: [{ by: "rev@example.com", vote: "approve", reason: null, at: "2026-11-29T17:59:00Z" }],
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
    const attempt = (input: Parameters<typeof verifyCallback>[0]) => refusalOf(() => verifyCallback(input));
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

describe("verifyReviewNotice", () => {
  const notice: ReviewNoticeEvent = {
    type: "approval.reminder",
    timestamp: "2026-11-29T18:00:00Z",
    data: {
      approval_id: "apr_1",
      service: "billing",
      tool: "payments.pay",
      effects: "destructive",
      environment: null,
      expires_at: "2026-11-29T19:00:00Z",
      review_url: "https://countersign.example.com/approvals/apr_1",
      agent_summary: null,
      required_roles: ["payments"],
      quorum: 2,
      warnings: [],
      reminder: 1,
    },
  };
  const secret = generateWebhookSecret();
  const refusal = (input: Parameters<typeof verifyReviewNotice>[0]) => refusalOf(() => verifyReviewNotice(input));

  it("verifies and parses each review notice type", () => {
    for (const type of ["approval.needs_review", "approval.reminder", "approval.escalated"] as const) {
      const event = { ...notice, type };
      const rawBody = Buffer.from(JSON.stringify(event));
      expect(verifyReviewNotice({ secret, headers: signWebhookHeaders({ secret, body: rawBody }), rawBody })).toEqual(event);
    }
  });

  it("refuses a callback passed off as a notice, a bad field and a wrong secret", () => {
    const decided = Buffer.from(JSON.stringify({ type: "approval.decided", timestamp: "2026-11-29T18:00:00Z", data: {} }));
    let error = refusal({ secret, headers: signWebhookHeaders({ secret, body: decided }), rawBody: decided });
    expect([error.code, error.reason]).toEqual(["invalid-request", "type"]);
    const bad = Buffer.from(JSON.stringify({ ...notice, data: { ...notice.data, quorum: "two" } }));
    error = refusal({ secret, headers: signWebhookHeaders({ secret, body: bad }), rawBody: bad });
    expect([error.code, error.reason]).toEqual(["invalid-request", "data.quorum"]);
    const rawBody = Buffer.from(JSON.stringify(notice));
    error = refusal({ secret: generateWebhookSecret(), headers: signWebhookHeaders({ secret, body: rawBody }), rawBody });
    expect([error.code, error.reason]).toEqual(["invalid-signature", "bad-signature"]);
  });
});
