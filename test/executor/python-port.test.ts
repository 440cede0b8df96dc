// The Python approval port against the live app: approved → allowed once with
// a verified receipt; denied → denied with the reviewer's reason; the consumed
// call asked again → denied, never the old decision; no decision in time →
// denied and withdrawn; an expired request → denied.
import { describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import { resultOf, runPortCheck } from "../helpers/python-port";

describe("Python approval port (live, sqlite)", () => {
  const app = appFor("sqlite");

  it.runIf(app)("allows only a consumed, verified approval and fails closed otherwise", async () => {
    const f = await import("../helpers/fixtures");
    const { recordReview } = await import("@/lib/reviews/record-review");
    const { verifyReceipt } = await import("@countersign/client");
    const svc = await f.makeService();
    const reviewer = await f.makeUser(["reviewer"]);
    const requested: Record<string, unknown[]> = {};

    const events = await runPortCheck({
      python: "python3",
      script: "clients/python/live_port_check.py",
      scenarios: [],
      service: svc,
      baseUrl: app!.baseUrl,
      onRequested: async (e) => {
        (requested[e.scenario] ??= []).push(e.approval_id);
        const approvalId = String(e.approval_id);
        if (e.scenario === "approve") await recordReview(reviewer.id, { approvalId, decision: "approve", reason: "ticket 1234" });
        if (e.scenario === "deny") await recordReview(reviewer.id, { approvalId, decision: "deny", reason: "wrong account" });
      },
    });

    const approved = resultOf(events, "approve");
    expect(approved).toMatchObject({ allowed: true, truthy: true, code: "approved" });
    expect(approved.reviews).toEqual([{ by: reviewer.email, vote: "approve", reason: "ticket 1234", at: expect.any(String) }]);
    const receipt = await verifyReceipt(String(approved.receipt_jws), `${app!.baseUrl}/.well-known/jwks.json`);
    expect(receipt).toMatchObject({ approval_id: approved.approval_id, service: svc.slug, call_id: "c1", decision: "approved" });
    expect(approved.receipt).toMatchObject({ approval_id: approved.approval_id, call_id: "c1", tool: "payments.refund" });

    const denied = resultOf(events, "deny");
    expect(denied).toMatchObject({ allowed: false, truthy: false, code: "denied" });
    expect(String(denied.reason)).toContain("wrong account");

    // The consumed call asked again reaches the same request (one per run and call): denied, not reused.
    const replay = resultOf(events, "replay");
    expect(replay).toMatchObject({ allowed: false, code: "replayed", approval_id: approved.approval_id });
    expect(requested.replay).toEqual([approved.approval_id]);
    // From an executor that lost the salt, the same ids with another digest are refused outright.
    expect(resultOf(events, "replay-elsewhere")).toMatchObject({ allowed: false, code: "call-reused" });
    expect(requested["replay-elsewhere"]).toBeUndefined();

    const timedOut = resultOf(events, "timeout");
    expect(timedOut).toMatchObject({ allowed: false, code: "timeout" });
    const state = await fetch(`${app!.baseUrl}/api/v1/approvals/${String(timedOut.approval_id)}`, {
      headers: { authorization: `Bearer ${svc.api_token}` },
    }).then((r) => r.json());
    expect(state).toMatchObject({ status: "cancelled", consumed: false });

    expect(resultOf(events, "expired")).toMatchObject({ allowed: false, code: "expired" });
  });
});
