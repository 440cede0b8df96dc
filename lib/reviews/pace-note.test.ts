// The page's word on the pace rules (review-views.ts paceNote) agrees with
// the refusal the vote would get (paceRefusal): it names the moment from
// which a vote counts, and a full view only for a reviewer whose view left
// arguments out.
import { describe, expect, it } from "vitest";
import { paceNote, paceRefusal } from "./review-views";

const served = new Date("2026-12-03T10:00:00Z");
const view = (over: Partial<{ truncated: boolean; fullViewAt: Date | null }> = {}) => ({
  firstServedAt: served,
  fullViewAt: null,
  truncated: false,
  ...over,
});

describe("paceNote", () => {
  it("says nothing without pace rules or before the page was served", () => {
    expect(paceNote({ minReviewSeconds: 0, requireFullView: false }, view())).toBeNull();
    expect(paceNote({ minReviewSeconds: 60, requireFullView: true }, null)).toBeNull();
  });

  it("names the moment a vote counts, the same the vote's refusal counts down to", () => {
    const pace = { minReviewSeconds: 90, requireFullView: false };
    const note = paceNote(pace, view())!;
    expect(note).toEqual({ voteFrom: new Date("2026-12-03T10:01:30Z"), needsFullView: false });
    expect(paceRefusal(pace, view(), new Date(note.voteFrom.getTime() - 1000), null)?.code).toBe("review-too-early");
    expect(paceRefusal(pace, view(), note.voteFrom, null)).toBeNull();
  });

  it("asks for a full view only where the view left arguments out and they were not opened", () => {
    const pace = { minReviewSeconds: 0, requireFullView: true };
    expect(paceNote(pace, view({ truncated: false }))).toBeNull();
    expect(paceNote(pace, view({ truncated: true, fullViewAt: served }))).toBeNull();
    expect(paceNote(pace, view({ truncated: true }))).toEqual({ voteFrom: served, needsFullView: true });
    expect(paceRefusal(pace, view({ truncated: true }), served, null)?.code).toBe("full-view-required");
  });
});
