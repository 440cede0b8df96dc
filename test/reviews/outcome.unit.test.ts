// The result panel's words (lib/reviews/outcome.ts): the viewer's own vote is
// always reported as theirs, and what is still needed is named.
import { describe, expect, it } from "vitest";
import { describeOutcome, listWords, type OutcomeFacts } from "@/lib/reviews/outcome";

const base: OutcomeFacts = { status: "pending", approvals: 0, quorum: 2, roles: ["payments"], decidedBy: [], reviews: [] };
const vote = (email: string, decision: "approve" | "deny", mine = false, reason: string | null = null) => ({ email, decision, reason, mine });

describe("describeOutcome", () => {
  it("says nothing while pending without the viewer's vote", () => {
    expect(describeOutcome(base)).toBeNull();
    expect(describeOutcome({ ...base, approvals: 1, reviews: [vote("bob@x.io", "approve")] })).toBeNull();
  });

  it("reports the viewer's approval, the count and who is still needed", () => {
    const o = describeOutcome({ ...base, approvals: 1, reviews: [vote("me@x.io", "approve", true)] });
    expect(o).toEqual({ tone: "pending", mine: true, text: "You approved · 1 of 2 · waiting for 1 more approval from payments" });
    const three = describeOutcome({ ...base, quorum: 3, roles: ["ops", "sre"], approvals: 1, reviews: [vote("me@x.io", "approve", true)] });
    expect(three?.text).toBe("You approved · 1 of 3 · waiting for 2 more approvals from one of ops and sre");
  });

  it("names the deciders with the viewer as 'you', first", () => {
    const reviews = [vote("bob@x.io", "approve"), vote("me@x.io", "approve", true)];
    expect(describeOutcome({ ...base, status: "approved", approvals: 2, decidedBy: ["bob@x.io", "me@x.io"], reviews })?.text).toBe(
      "Approved by you and bob@x.io",
    );
    expect(describeOutcome({ ...base, status: "approved", quorum: 1, approvals: 1, decidedBy: ["me@x.io"], reviews: [reviews[1]!] })?.text).toBe(
      "Approved by you",
    );
    const others = describeOutcome({ ...base, status: "approved", approvals: 2, decidedBy: ["a@x.io", "b@x.io"], reviews: [] });
    expect(others).toEqual({ tone: "approved", mine: false, text: "Approved by a@x.io and b@x.io" });
  });

  it("reports denials with their reason, the viewer's own as theirs", () => {
    expect(
      describeOutcome({ ...base, status: "denied", decidedBy: ["me@x.io"], reviews: [vote("me@x.io", "deny", true, "Wrong account")] })?.text,
    ).toBe("You denied: Wrong account");
    const after = [vote("me@x.io", "approve", true), vote("bob@x.io", "deny", false, "No")];
    expect(describeOutcome({ ...base, status: "denied", approvals: 1, decidedBy: ["bob@x.io"], reviews: after })?.text).toBe(
      "You approved · then denied by bob@x.io: No",
    );
    expect(describeOutcome({ ...base, status: "denied", decidedBy: ["bob@x.io"], reviews: [after[1]!] })?.text).toBe("Denied by bob@x.io: No");
  });

  it("reports expiry and withdrawal", () => {
    expect(describeOutcome({ ...base, status: "expired" })?.text).toBe("Expired with 0 of 2 approvals");
    expect(describeOutcome({ ...base, status: "expired", approvals: 1, reviews: [vote("me@x.io", "approve", true)] })?.text).toBe(
      "You approved · expired with 1 of 2 approvals",
    );
    expect(describeOutcome({ ...base, status: "cancelled" })?.text).toBe("Withdrawn by the service");
  });

  it("lists words", () => {
    expect([listWords([]), listWords(["a"]), listWords(["a", "b"]), listWords(["a", "b", "c"])]).toEqual(["", "a", "a and b", "a, b and c"]);
  });
});
