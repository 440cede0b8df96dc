// verifyCallback with both callbacks a service's callback URL receives
// (docs/api.md), signed for real (Standard Webhooks HMAC): an
// `approval.executed` body is verified, checked and returned with its type,
// next to `approval.decided`; malformed or unknown ones are refused.
import { describe, expect, it } from "vitest";
import { argsDigest } from "../src/args-digest.js";
import { generateWebhookSecret, signWebhookHeaders } from "../src/standard-webhooks.js";
import { CountersignError, resultDigest, verifyCallback, type ApprovalExecutedEvent, type CallbackEvent } from "../src/index.js";

const secret = generateWebhookSecret();
const executed: ApprovalExecutedEvent = {
  type: "approval.executed",
  timestamp: "2026-11-30T09:20:14.530Z",
  data: {
    approval_id: "apr_1",
    run_id: "run_42",
    call_id: "c1",
    tool: "payments.pay",
    args_digest: argsDigest({ account: "AC-1" }),
    status: "succeeded",
    result_digest: resultDigest({ ok: true }, "q3Jm1f0bP6yK2m9cVwX4dA7sLhE8uTzR5nYoGiCkQpU"),
    finished_at: "2026-11-30T09:20:14.210Z",
  },
};

function signed(body: unknown, key = secret) {
  const rawBody = Buffer.from(JSON.stringify(body));
  return { rawBody, headers: signWebhookHeaders({ secret: key, body: rawBody }) };
}

function refusal(body: unknown): CountersignError {
  try {
    verifyCallback({ secret, ...signed(body) });
  } catch (error) {
    expect(error).toBeInstanceOf(CountersignError);
    return error as CountersignError;
  }
  throw new Error("expected a refusal");
}

/** What a receiver does with either event: the type tells which data it has. */
function summary(event: CallbackEvent): string {
  return event.type === "approval.executed" ? `ran: ${event.data.status}` : `decided: ${event.data.decision}`;
}

describe("verifyCallback: approval.executed", () => {
  it("verifies and returns an approval.executed callback, told apart from approval.decided by type", () => {
    const event = verifyCallback({ secret, ...signed(executed) });
    expect(event).toEqual(executed);
    expect(summary(event)).toBe("ran: succeeded");
    // A newer server may add reported_at.
    const withReportedAt = { ...executed, data: { ...executed.data, status: "failed", reported_at: "2026-11-30T09:20:14.400Z" } };
    expect(verifyCallback({ secret: [generateWebhookSecret(), secret], ...signed(withReportedAt) })).toEqual(withReportedAt);

    const decided = {
      type: "approval.decided",
      timestamp: "2026-11-30T09:20:11.482Z",
      data: {
        approval_id: "apr_1",
        run_id: "run_42",
        call_id: "c1",
        tool: "payments.pay",
        args_digest: executed.data.args_digest,
        decision: "approved",
        decided_by: ["ria@example.com"],
        decided_at: "2026-11-30T09:20:11.000Z",
        reviews: [{ by: "ria@example.com", vote: "approve", reason: null, at: "2026-11-30T09:20:11.000Z" }],
      },
    };
    expect(summary(verifyCallback({ secret, ...signed(decided) }))).toBe("decided: approved");
  });

  it("checks the signature first, then the body's shape", () => {
    const forged = signed(executed, generateWebhookSecret());
    let error = (() => {
      try {
        verifyCallback({ secret, ...forged });
      } catch (e) {
        return e as CountersignError;
      }
      throw new Error("expected a refusal");
    })();
    expect([error.code, error.reason]).toEqual(["invalid-signature", "bad-signature"]);

    error = refusal({ ...executed, data: { ...executed.data, status: "done" } });
    expect([error.code, error.reason]).toEqual(["invalid-request", "data.status"]);
    const { result_digest: _gone, ...withoutDigest } = executed.data;
    error = refusal({ ...executed, data: withoutDigest });
    expect([error.code, error.reason]).toEqual(["invalid-request", "data.result_digest"]);
    error = refusal({ ...executed, data: { ...executed.data, reported_at: 5 } });
    expect([error.code, error.reason]).toEqual(["invalid-request", "data.reported_at"]);
    error = refusal({ ...executed, type: "approval.ran" });
    expect([error.code, error.reason]).toEqual(["invalid-request", "type"]);
  });
});
