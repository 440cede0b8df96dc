import { describe, expect, it } from "vitest";
import { segmentText } from "./reveal";
import { argumentGlance, type GlanceLine } from "./argument-glance";

const text = (l: GlanceLine) => {
  const key = l.kind === "leaf" ? l.leaf.key : l.key;
  const k = key === null ? "" : typeof key === "number" ? `${key}: ` : `${key.segments.map(segmentText).join("")}: `;
  const v = l.kind === "leaf" ? l.leaf.segments.map(segmentText).join("") : `${l.type}(${l.size})`;
  return `${"  ".repeat(l.depth)}${k}${v}`;
};

describe("argumentGlance", () => {
  it("lists small arguments whole, one line per key, nothing more", () => {
    const g = argumentGlance({ amount: 25, currency: "EUR" });
    expect(g.lines.map(text)).toEqual(["amount: 25", 'currency: "EUR"']);
    expect(g).toMatchObject({ more: 0, total: 2 });
  });

  it("goes depth first with counts on containers and says how many lines are left", () => {
    const g = argumentGlance(
      {
        rows: [
          { id: 0, note: "a" },
          { id: 1, note: "b" },
        ],
        dry: false,
      },
      4,
    );
    expect(g.lines.map(text)).toEqual(["rows: array(2)", "  0: object(2)", "    id: 0", '    note: "a"']);
    // rows, 0, id, note, 1, id, note, dry
    expect(g).toMatchObject({ more: 4, total: 8 });
  });

  it("counts every line of a big request without showing more than asked", () => {
    const rows = Array.from({ length: 600 }, (_, i) => ({ id: i, note: "n".repeat(500) }));
    const g = argumentGlance({ rows });
    expect(g.lines).toHaveLength(6);
    expect(g.total).toBe(1 + 600 * 3);
    expect(g.more).toBe(g.total - 6);
    // A line is one screen line: a long value shows its start and how much is left.
    const leaf = g.lines.find((l) => l.kind === "leaf" && l.leaf.rest > 0);
    expect(leaf).toBeDefined();
  });

  it("reveals and flags what it shows, like the tree", () => {
    const g = argumentGlance({ path: "/srv/report\u202Efdp.exe" });
    const line = g.lines[0]!;
    expect(line.kind === "leaf" && line.leaf.flag).toBeTruthy();
  });

  it("has no lines for empty or non-object arguments", () => {
    expect(argumentGlance({})).toEqual({ lines: [], more: 0, total: 0 });
    expect(argumentGlance(null)).toEqual({ lines: [], more: 0, total: 0 });
  });

  it("does not recurse: deep nesting is fine", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    expect(argumentGlance(deep as never).total).toBe(20_000);
  });
});
