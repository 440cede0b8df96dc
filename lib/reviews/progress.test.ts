import { describe, expect, it } from "vitest";
import { approvalProgress } from "./progress";

describe("approvalProgress", () => {
  it.each([
    // status, approvals, quorum, canReview, text
    ["pending", 0, 1, true, "0 of 1 approval — your approval completes it"],
    ["pending", 1, 2, true, "1 of 2 approvals — your approval completes it"],
    ["pending", 0, 2, true, "0 of 2 approvals — your approval makes it 1 of 2"],
    ["pending", 1, 3, true, "1 of 3 approvals — your approval makes it 2 of 3"],
    ["pending", 1, 2, false, "1 of 2 approvals"],
    ["approved", 2, 2, false, null],
    ["expired", 0, 2, true, null],
  ] as const)("%s with %i of %i, may vote: %s", (status, approvals, quorum, canReview, text) => {
    expect(approvalProgress({ status, approvals, quorum, canReview })).toBe(text);
  });
});
