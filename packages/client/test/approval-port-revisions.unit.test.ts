// The approval port follows revisions (a reviewer answers with changes) against
// the local fake Countersign: the patch is applied to the port's own copy of
// the arguments, the changed call is asked with `revises` and a derived call
// id, and only its approval allows — with the changed arguments. Anything off
// denies without running, and nothing more is sent.
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalPort, revisionCallId, type JsonPatch, type RequestedApproval } from "../src/index.js";
import {
  approvalById,
  client,
  decide,
  fake,
  newCall,
  propose,
  received,
  reviseElsewhere,
  revisionBehaviour,
  useFakeCountersign,
} from "./fake-countersign.js";

useFakeCountersign();

afterEach(() => {
  revisionBehaviour.approveOnArrival = false;
  revisionBehaviour.alwaysDiffers = false;
});

/** The `data` of every webhook sent after `from` (an index into `received`). */
const sentSince = (from: number) => received.slice(from).map((r) => JSON.parse(r.rawBody.toString("utf8")).data as Record<string, unknown>);

/** A port whose reviewer answers the n-th request of the chain with `steps[n]` (a patch to propose, or a vote). */
function portWith(steps: Array<JsonPatch | "approve" | "deny" | ((id: string) => void)>, maxRevisions?: number) {
  let n = 0;
  const asked: RequestedApproval[] = [];
  const port = new ApprovalPort(client(), {
    timeoutMs: 5000,
    jwks: { keys: [fake.publicJwk] },
    maxRevisions,
    onRequest: (created) => {
      asked.push(created);
      const step = steps[n++];
      if (step === undefined || created.status !== "pending") return;
      if (step === "approve" || step === "deny") decide(created.approval_id, step === "approve" ? "approved" : "denied", ["bo@example.com"]);
      else if (typeof step === "function") step(created.approval_id);
      else propose(created.approval_id, step);
    },
  });
  return { port, asked };
}

describe("ApprovalPort and revisions", () => {
  it("applies the proposed changes, asks again with revises and a derived call id, and allows only the changed arguments", async () => {
    const from = received.length;
    const args = { account: "AC-1", amount: 500, api_key: "sk_live_not_a_real_key_0123456789" };
    const call = newCall("payments.pay", args);
    const { port, asked } = portWith([[{ op: "replace", path: "/amount", value: 50 }], "approve"]);

    const verdict = await port.ask(call);

    expect(verdict).toMatchObject({ allowed: true, code: "approved", reason: "approved by bo@example.com after 1 revision" });
    if (!verdict.allowed) throw new Error("unreachable");
    expect(verdict.arguments).toEqual({ account: "AC-1", amount: 50, api_key: args.api_key });
    expect(Object.isFrozen(verdict.arguments)).toBe(true);
    expect(args.amount).toBe(500); // the caller's object is never changed

    const [first, second] = sentSince(from);
    expect(first).toMatchObject({ run_id: call.run_id, call_id: "c1", arguments: args });
    expect(first).not.toHaveProperty("revises");
    expect(second).toMatchObject({ run_id: call.run_id, call_id: "c1~rev1", tool: "payments.pay", revises: asked[0]!.approval_id });
    expect(second!.arguments).toEqual(verdict.arguments);
    expect(second!.args_salt).not.toBe(first!.args_salt);

    // The final request's receipt, bound to the changed call; the revised one's kept as evidence.
    expect(verdict.approvalId).toBe(asked[1]!.approval_id);
    expect(verdict.receipt).toMatchObject({ approval_id: asked[1]!.approval_id, call_id: "c1~rev1", decision: "approved" });
    expect(verdict.receipt.args_digest).toBe(approvalById(asked[1]!.approval_id)!.state.args_digest);
    expect(verdict.revisions).toEqual([
      {
        approvalId: asked[0]!.approval_id,
        callId: "c1",
        patch: [{ op: "replace", path: "/amount", value: 50 }],
        proposal: { by: "ana@example.com", reason: "smaller", at: expect.any(String) },
        receipt: expect.objectContaining({ approval_id: asked[0]!.approval_id, decision: "revised", call_id: "c1" }),
        receiptJws: expect.any(String),
      },
    ]);
  });

  it("follows a chain of two revisions, each applied to the previous arguments", async () => {
    const from = received.length;
    const call = newCall("payments.pay", { account: "AC-1", amount: 500, items: [{ sku: "A" }] });
    const { port, asked } = portWith([
      [{ op: "replace", path: "/amount", value: 50 }],
      [
        { op: "replace", path: "/account", value: "AC-3" },
        { op: "add", path: "/items/-", value: { sku: "B" } },
      ],
      "approve",
    ]);
    const verdict = await port.ask(call);
    expect(verdict).toMatchObject({ allowed: true, reason: "approved by bo@example.com after 2 revisions" });
    expect(verdict.arguments).toEqual({ account: "AC-3", amount: 50, items: [{ sku: "A" }, { sku: "B" }] });
    const sent = sentSince(from);
    expect(sent.map((d) => [d.call_id, d.revises])).toEqual([
      ["c1", undefined],
      ["c1~rev1", asked[0]!.approval_id],
      ["c1~rev2", asked[1]!.approval_id],
    ]);
    expect(verdict.revisions.map((r) => [r.approvalId, r.callId])).toEqual([
      [asked[0]!.approval_id, "c1"],
      [asked[1]!.approval_id, "c1~rev1"],
    ]);
  });

  it("allows a revision approved as it arrives, and denies a revision that is then denied", async () => {
    revisionBehaviour.approveOnArrival = true;
    const quick = await portWith([[{ op: "remove", path: "/amount" }]]).port.ask(newCall());
    expect(quick).toMatchObject({
      allowed: true,
      code: "approved",
      reason: "approved by ana@example.com after 1 revision",
      arguments: { account: "AC-1" },
    });

    revisionBehaviour.approveOnArrival = false;
    const denied = await portWith([[{ op: "replace", path: "/amount", value: 1 }], "deny"]).port.ask(newCall());
    expect(denied).toMatchObject({ allowed: false, code: "denied", reason: "denied: not today" });
    expect(denied.arguments).toBeUndefined();
    expect(denied.revisions).toHaveLength(1);
  });

  it("denies a patch that does not apply, and sends nothing more", async () => {
    const from = received.length;
    const secret = "sk_live_do_not_print_me_0123456789";
    const { port, asked } = portWith([[{ op: "replace", path: "/missing", value: 1 }]]);
    const verdict = await port.ask(newCall("payments.pay", { account: "AC-1", api_key: secret }));
    expect(verdict).toMatchObject({ allowed: false, code: "invalid-revision", approvalId: asked[0]!.approval_id });
    expect(verdict.arguments).toBeUndefined();
    expect(verdict.reason).not.toContain(secret);
    expect(sentSince(from)).toHaveLength(1);
    expect(verdict.revisions).toHaveLength(1);

    // A patch that replaces the whole document with something other than an object is refused too.
    const notAnObject = await portWith([[{ op: "replace", path: "", value: [1] }]]).port.ask(newCall());
    expect(notAnObject).toMatchObject({ allowed: false, code: "invalid-revision" });
  });

  it("denies when another call already revised the request", async () => {
    const from = received.length;
    const { port } = portWith([
      (id) => {
        propose(id, [{ op: "replace", path: "/amount", value: 1 }]);
        reviseElsewhere(id);
      },
    ]);
    const verdict = await port.ask(newCall());
    expect(verdict).toMatchObject({ allowed: false, code: "already-revised" });
    expect(verdict.arguments).toBeUndefined();
    // The changed call was sent and refused; nothing else.
    expect(sentSince(from).map((d) => d.call_id)).toEqual(["c1", "c1~rev1"]);
  });

  it("denies and withdraws a revision Countersign finds different from the proposal", async () => {
    revisionBehaviour.alwaysDiffers = true;
    const { port, asked } = portWith([[{ op: "replace", path: "/amount", value: 1 }], "approve"]);
    const verdict = await port.ask(newCall());
    expect(verdict).toMatchObject({ allowed: false, code: "revision-differs" });
    // The differing request was never handed to onRequest, nor left pending.
    expect(asked).toHaveLength(1);
    expect(approvalById(verdict.approvalId!)!.state.status).toBe("cancelled");
  });

  it("bounds the chain: past maxRevisions the call is denied, and 0 follows none", async () => {
    const from = received.length;
    const patch: JsonPatch = [{ op: "replace", path: "/amount", value: 1 }];
    const limited = await portWith([patch, patch, "approve"], 1).port.ask(newCall());
    expect(limited).toMatchObject({ allowed: false, code: "too-many-revisions" });
    expect(sentSince(from)).toHaveLength(2);

    const none = await portWith([patch], 0).port.ask(newCall());
    expect(none).toMatchObject({
      allowed: false,
      code: "revised",
      reason: "ana@example.com proposed changes instead of approving; the call was not run",
    });
    expect(none.revisions).toHaveLength(1);
  });

  it("keeps the revision's call id within 200 characters, distinct per original id", () => {
    expect(revisionCallId("c1", 3)).toBe("c1~rev3");
    const long = "x".repeat(196);
    const hash = createHash("sha256").update(long).digest("hex").slice(0, 16);
    expect(revisionCallId(long, 1)).toBe(`${"x".repeat(150)}~rev1~${hash}`);
    expect(revisionCallId(long + "y", 1)).not.toBe(revisionCallId(long, 1));
    expect(revisionCallId("y".repeat(195), 12).length).toBeLessThanOrEqual(200);
    // Exactly 200 is kept as it is.
    expect(revisionCallId("z".repeat(195), 1)).toBe(`${"z".repeat(195)}~rev1`);
    // Never half of a surrogate pair.
    const astral = "a" + "😀".repeat(100);
    expect(revisionCallId(astral, 1).startsWith("a" + "😀".repeat(74) + "~rev1~")).toBe(true);
    expect(() => revisionCallId("c1", 0)).toThrow(RangeError);
  });
});
