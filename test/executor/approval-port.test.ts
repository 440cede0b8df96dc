// The TypeScript approval port (@countersign/client) against the live app:
// only a consumed approval with a verified receipt allows, and then with the
// exact approved arguments, frozen; a denial, a replay, no decision in time,
// expiry, an abort and an unreachable Countersign all deny, and the waits
// that end without a decision withdraw the request.
import { describe, expect, it } from "vitest";
import type { PortCall } from "@countersign/client";
import { appFor } from "../helpers/app";

describe("TypeScript approval port (live, sqlite)", () => {
  const app = appFor("sqlite");

  async function setUp() {
    const f = await import("../helpers/fixtures");
    const { recordReview } = await import("@/lib/reviews/record-review");
    const { ApprovalPort, CountersignClient } = await import("@countersign/client");
    const svc = await f.makeService();
    const reviewer = await f.makeUser(["reviewer"]);
    const client = new CountersignClient({
      baseUrl: app!.baseUrl,
      serviceSlug: svc.slug,
      webhookSecret: svc.webhook_secret,
      apiToken: svc.api_token,
    });
    const call = (callId: string, extra: Partial<PortCall> = {}): PortCall => ({
      run_id: `run-${f.uid()}`,
      call_id: callId,
      tool: "payments.refund",
      arguments: { order: "A-1", amount: 12.5 },
      ...extra,
    });
    // The reviewer votes on the first request only: a replay reaches the same, decided request.
    const decide = (decision: "approve" | "deny", reason: string) => {
      const voted = new Set<string>();
      return (created: { approval_id: string }) => {
        if (voted.has(created.approval_id)) return;
        voted.add(created.approval_id);
        void recordReview(reviewer.id, { approvalId: created.approval_id, decision, reason });
      };
    };
    const stateOf = (id: string) =>
      fetch(`${app!.baseUrl}/api/v1/approvals/${id}`, { headers: { authorization: `Bearer ${svc.api_token}` } }).then((r) => r.json());
    return { ApprovalPort, CountersignClient, client, call, decide, stateOf, reviewer, svc };
  }

  it.runIf(app)("allows an approved call once, with the approved arguments frozen, and denies its replay", async () => {
    const { ApprovalPort, client, call, decide, reviewer } = await setUp();
    const port = new ApprovalPort(client, { timeoutMs: 20_000, onRequest: decide("approve", "ticket 77") });
    const theCall = call("c1");
    const verdict = await port.ask(theCall);

    expect(verdict).toMatchObject({ allowed: true, code: "approved", reason: `approved by ${reviewer.email}` });
    if (!verdict.allowed) throw new Error("unreachable");
    expect(verdict.arguments).toEqual(theCall.arguments);
    expect(verdict.arguments).not.toBe(theCall.arguments);
    expect(Object.isFrozen(verdict.arguments)).toBe(true);
    expect(verdict.receipt).toMatchObject({ approval_id: verdict.approvalId, call_id: "c1", tool: "payments.refund", decision: "approved" });
    expect(verdict.reviews).toEqual([{ by: reviewer.email, vote: "approve", reason: "ticket 77", at: expect.any(String) }]);

    // The same call asked again reaches the same, consumed request: denied, never reused.
    const again = await port.ask(theCall);
    expect(again).toMatchObject({ allowed: false, code: "replayed", approvalId: verdict.approvalId });
  });

  it.runIf(app)("denies with the reviewer's reason", async () => {
    const { ApprovalPort, client, call, decide } = await setUp();
    const port = new ApprovalPort(client, { timeoutMs: 20_000, onRequest: decide("deny", "wrong account") });
    const verdict = await port.ask(call("c2"));
    expect(verdict).toMatchObject({ allowed: false, code: "denied", reason: "denied: wrong account" });
    expect(verdict.arguments).toBeUndefined();
    expect(verdict.receipt).toMatchObject({ decision: "denied" });
  });

  it.runIf(app)("withdraws and denies when nobody decides in time, reporting progress while it waits", async () => {
    const { ApprovalPort, client, call, stateOf } = await setUp();
    const port = new ApprovalPort(client);
    const ticks: number[] = [];
    const verdict = await port.ask(call("c3"), { timeoutMs: 2500, onProgress: (ms) => ticks.push(ms), progressIntervalMs: 500 });
    expect(verdict).toMatchObject({ allowed: false, code: "timeout" });
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    expect(await stateOf(verdict.approvalId!)).toMatchObject({ status: "cancelled", consumed: false });
  });

  it.runIf(app)("withdraws and denies when the caller aborts", async () => {
    const { ApprovalPort, client, call, stateOf } = await setUp();
    const port = new ApprovalPort(client);
    const controller = new AbortController();
    const verdict = await port.ask(call("c4"), {
      signal: controller.signal,
      onProgress: () => controller.abort(),
      progressIntervalMs: 300,
    });
    expect(verdict).toMatchObject({ allowed: false, code: "aborted" });
    expect(await stateOf(verdict.approvalId!)).toMatchObject({ status: "cancelled" });
  });

  it.runIf(app)("denies an expired request", async () => {
    const { ApprovalPort, client, call } = await setUp();
    const port = new ApprovalPort(client, { timeoutMs: 8000 });
    const verdict = await port.ask(call("c5", { expires_in: 1 }));
    expect(verdict).toMatchObject({ allowed: false, code: "expired" });
  });

  it.runIf(app)("denies when Countersign cannot be reached, and when the arguments have no JSON form", async () => {
    const { ApprovalPort, CountersignClient, call, svc, client } = await setUp();
    const { freePort } = await import("../helpers/ports");
    const nowhere = new CountersignClient({
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      serviceSlug: svc.slug,
      webhookSecret: svc.webhook_secret,
      apiToken: svc.api_token,
    });
    const offline = await new ApprovalPort(nowhere).ask(call("c6"));
    expect(offline).toMatchObject({ allowed: false, code: "network-error" });
    expect(offline.reason).toMatch(/^approval failed, so the call is denied/);

    const bad = await new ApprovalPort(client).ask(call("c7", { arguments: { amount: Number.NaN } }));
    expect(bad).toMatchObject({ allowed: false, code: "invalid-arguments" });
  });
});
