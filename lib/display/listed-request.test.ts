// docs/security.md, bounded rendering on every page: a request as a listing
// (the run page, the queue) shows it costs a fixed budget whatever its
// arguments and fields hold, shows only what is true (a start of each value,
// marked as cut), never splits an escape, and still flags a hidden character
// it does not show.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  argumentsPreview,
  ARGS_PREVIEW_CHARS,
  clippedTextView,
  clipSegments,
  FIELD_CLIPS,
  flagWeight,
  listedRequestDisplay,
  PREVIEW_LIMITS,
  viewWeight,
  type PreviewNode,
} from "./listed-request";
import { reveal, segmentText, type Segment } from "./reveal";

const textOf = (segments: readonly Segment[]) => segments.map(segmentText).join("");
/** Escaped JSON-style text back to its characters (reveal.test.ts). */
const unescape = (text: string) => text.replace(/⟨U\+([0-9A-F]{4,6})⟩/g, (_, h: string) => String.fromCodePoint(parseInt(h, 16)));

/** The preview's weight (as the budget counts it) and node count. */
function measure(nodes: readonly PreviewNode[]): { weight: number; nodes: number } {
  let weight = 0;
  let n = 0;
  const stack = [...nodes];
  while (stack.length) {
    const node = stack.pop()!;
    n++;
    if (node.key !== null && typeof node.key !== "number") weight += viewWeight(node.key);
    if (node.k === "leaf") weight += viewWeight(node);
    else stack.push(...node.children);
  }
  return { weight, nodes: n };
}

const lookalike = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 ? "\u200B" : i % 3 ? "а" : "a")).join("");
const unit = fc.constantFrom("a", "а", "о", "o", "\u200B", "\u202E", "\u2066", '"', "\\", "\n", " ", "😀", "⟨", "é");
const text = (max: number) => fc.string({ unit, maxLength: max });
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const json: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    text(400),
    fc.array(tie("v"), { maxLength: 30 }),
    fc.dictionary(text(60), tie("v"), { maxKeys: 12 }),
  ),
})).v;
const argsOf = (v: Json): Record<string, Json> => (v !== null && typeof v === "object" && !Array.isArray(v) ? v : { v });
/** The stored text's start as the database gives it: the first ARGS_PREVIEW_CHARS code points. */
const headOf = (s: string) => {
  const cps = Array.from(s);
  return { head: cps.slice(0, ARGS_PREVIEW_CHARS).join(""), complete: cps.length <= ARGS_PREVIEW_CHARS };
};

describe("clipSegments and clippedTextView", () => {
  it("keep within the weight, cut only at whole escapes, and show a true start of the value", () => {
    fc.assert(
      fc.property(text(300), fc.integer({ min: 0, max: 1_500 }), (s, weight) => {
        const v = clippedTextView(s, { codePoints: 200, weight }, { multiline: true });
        // The flag comes on top (it is short: three findings and a count).
        expect(viewWeight(v) - flagWeight(v.flag)).toBeLessThanOrEqual(weight);
        expect(v.flag?.length ?? 0).toBeLessThan(250);
        const shown = textOf(v.segments);
        // Every escape shown is whole: what is shown decodes to a start of the value.
        expect(shown.replace(/⟨U\+[0-9A-F]{4,6}⟩/g, "")).not.toMatch(/⟨/);
        expect(s.startsWith(unescape(shown))).toBe(true);
        if (!v.cut) expect(unescape(shown)).toBe(s);
      }),
      { numRuns: 500 },
    );
  });

  it("flags a hidden character beyond what it shows, and what the shown part holds", () => {
    const s = `${"plain text ".repeat(100)}\u202Eevil`;
    const v = clippedTextView(s, FIELD_CLIPS.summary);
    expect(v.cut).toBe(true);
    expect(textOf(v.segments)).not.toContain("U+202E");
    expect(v.flag).toMatch(/right-to-left override/);
    expect(clippedTextView("pаypal", FIELD_CLIPS.tool).flag).toMatch(/mixes scripts/);
  });

  it("never ends inside a JSON escape", () => {
    const segments = reveal('ab\\"\u0001c', { json: true }).segments;
    for (let w = 0; w < 20; w++) {
      const t = textOf(clipSegments(segments, w).segments);
      expect(t, `weight ${w}`).not.toMatch(/(^|[^\\])(\\\\)*\\(u[0-9a-f]{0,3})?$/);
    }
  });
});

describe("argumentsPreview", () => {
  it("stays within its budget whatever the arguments, and every value shown is a true start of the stored one", () => {
    fc.assert(
      fc.property(json, (v) => {
        const stored = JSON.stringify(argsOf(v));
        const { head, complete } = headOf(stored);
        const p = argumentsPreview(head, complete);
        const m = measure(p.root.children);
        expect(m.nodes).toBeLessThanOrEqual(PREVIEW_LIMITS.nodes);
        // One value may run over by its flag (a flag is never cut): the budget's margin.
        expect(m.weight).toBeLessThanOrEqual(PREVIEW_LIMITS.weight + 2 * flagWeight("x".repeat(250)));
        const whole = argsOf(JSON.parse(stored) as Json);
        const check = (node: PreviewNode, value: Json, key: string | number | null = null) => {
          if (typeof key === "string") {
            // A key as on the request's page: plain, or quoted like JSON when it is odd.
            const k = node.key as Exclude<PreviewNode["key"], number | null>;
            const shown = unescape(textOf(k.segments));
            const spelled = shown.startsWith('"') ? JSON.stringify(key) : key;
            if (k.cut) expect(spelled.startsWith(shown.replace(/\\$/, ""))).toBe(true);
            else expect(shown).toBe(spelled);
          } else expect(node.key).toBe(key);
          if (node.k === "leaf") {
            const shown = unescape(textOf(node.segments));
            const expected = JSON.stringify(value);
            if (node.cut) expect(JSON.stringify(value).startsWith(shown.replace(/\\$/, ""))).toBe(true);
            else expect(shown).toBe(expected);
            return;
          }
          const entries = Array.isArray(value) ? value.map((x, i) => [i, x] as const) : Object.entries(value as object);
          if (node.size !== null) expect(node.size).toBe(entries.length);
          node.children.forEach((c, i) => check(c, entries[i]![1] as Json, entries[i]![0]));
          if (node.children.length < entries.length) expect(node.more).toBe(true);
        };
        check(p.root, whole, null);
        if (!p.cut) expect(p.root.more).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("costs the same for 10 KB and 140 KB of look-alike arguments", () => {
    const args = (n: number) => JSON.stringify({ note: "start", records: Array.from({ length: n }, (_, i) => ({ id: i, memo: lookalike(700) })) });
    const small = argumentsPreview(...(Object.values(headOf(args(14))) as [string, boolean]));
    const big = argumentsPreview(...(Object.values(headOf(args(200))) as [string, boolean]));
    expect(JSON.stringify(big).length).toBe(JSON.stringify(small).length);
    expect(big).toMatchObject({ cut: true, flagged: true });
    expect(big.root.children[0]).toMatchObject({ k: "leaf", type: "string", cut: false });
    // The big list shows its start only, its size unknown (the text read ends inside it).
    expect(big.root.children[1]).toMatchObject({ k: "branch", type: "array", size: null, more: true });
  });

  it("flags hidden characters anywhere in the text read, even where nothing is shown", () => {
    const stored = JSON.stringify({ a: "x".repeat(3_000), b: "tail\u202Ehidden" });
    const p = argumentsPreview(stored, true);
    expect(textOf((p.root.children[0] as { segments: Segment[] }).segments).length).toBeLessThan(200);
    expect(p.flagged).toBe(true);
    expect(argumentsPreview(JSON.stringify({ a: "x".repeat(3_000), b: "tail" }), true).flagged).toBe(false);
  });
});

describe("listedRequestDisplay", () => {
  it("bounds every field, and says where something was found", () => {
    const d = listedRequestDisplay(
      {
        tool: "docs.publish",
        environment: "prоduction",
        runId: "run_1",
        callId: "c1",
        requestedBy: `${"а".repeat(300)}@example.com`,
        summary: lookalike(2_000),
      },
      headOf(JSON.stringify({ memo: lookalike(100_000) })),
    );
    for (const name of ["environment", "requestedBy", "summary"] as const) {
      expect(viewWeight(d.fields[name]!)).toBeLessThanOrEqual(FIELD_CLIPS[name].weight + flagWeight(d.fields[name]!.flag));
    }
    expect(d.fields.summary!.cut).toBe(true);
    expect(d.fields.requestedBy!.cut).toBe(true);
    expect(d.flagged).toEqual(["environment", "requested by", "summary", "arguments"]);
  });
});
