import { describe, expect, it } from "vitest";
import { groupRuns, isRunGroup } from "./group-runs";

const row = (id: string, service: string, runId: string) => ({ id, service, runId });

describe("groupRuns", () => {
  it("gathers a run's rows where its first row was and leaves single rows in order", () => {
    const rows = [row("a", "s", "r1"), row("b", "s", "r2"), row("c", "s", "r1"), row("d", "t", "r1"), row("e", "s", "r1")];
    const out = groupRuns(rows);
    expect(out.map((x) => (isRunGroup(x) ? x.rows.map((r) => r.id).join("+") : x.id))).toEqual(["a+c+e", "b", "d"]);
    expect(out.filter(isRunGroup)).toEqual([{ service: "s", runId: "r1", rows: [rows[0], rows[2], rows[4]] }]);
  });

  it("does not confuse runs whose names only join alike", () => {
    const out = groupRuns([row("a", "s-x", "y"), row("b", "s", "x-y")]);
    expect(out.some(isRunGroup)).toBe(false);
  });
});
