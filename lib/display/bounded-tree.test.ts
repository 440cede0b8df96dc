// docs/security.md bounded rendering: the first render of any arguments holds at
// most a fixed number of nodes and characters, and paging on demand (children
// and long strings, by path) gives back every key and value exactly. The
// warning scan sees hidden characters however deep, and survives any depth.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { childrenPage, firstRender, LIMITS, type Limits, resolvePath, stringPage, type Json, type KeyView, type NodeView } from "./bounded-tree";
import { segmentText, type Segment } from "./reveal";
import { WarningCollector } from "./scan-findings";

const textOf = (segments: readonly Segment[]) => segments.map(segmentText).join("");
/** Escaped JSON-style text back to its value (see reveal.test.ts). */
const decodeJson = (text: string): string =>
  JSON.parse(
    text.replace(/⟨U\+([0-9A-F]{4,6})⟩/g, (_, h: string) =>
      String.fromCodePoint(parseInt(h, 16))
        .split("")
        .map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, "0")}`)
        .join(""),
    ),
  ) as string;

function countNodes(nodes: readonly NodeView[]): { nodes: number; chars: number } {
  let n = 0;
  let chars = 0;
  const stack = [...nodes];
  while (stack.length) {
    const node = stack.pop()!;
    n += 1;
    if (node.key !== null && typeof node.key !== "number") chars += textOf(node.key.segments).length;
    if (node.k === "leaf") chars += textOf(node.segments).length;
    else stack.push(...node.children);
  }
  return { nodes: n, chars };
}

/** Rebuilds the arguments from the first render plus every page a reviewer could fetch. */
function rebuild(root: Json, limits: Limits): Json {
  const fullText = (segments: Segment[], rest: number, at: number, path: number[], key: boolean) => {
    let text = textOf(segments);
    let next: number | null = rest > 0 ? at : null;
    while (next !== null) {
      const target = resolvePath(root, path, key);
      if (target?.kind !== "string") throw new Error("no string at path");
      const page = stringPage(target.value, next, limits);
      text += textOf(page.segments);
      next = page.next;
    }
    return text;
  };
  const keyText = (key: KeyView, path: number[]) => {
    const text = fullText(key.segments, key.rest, key.at, path, true);
    return text.startsWith('"') ? decodeJson(text) : text;
  };
  const build = (node: NodeView, path: number[]): Json => {
    if (node.k === "leaf") {
      if (node.type !== "string") return JSON.parse(textOf(node.segments)) as Json;
      return decodeJson(fullText(node.segments, node.rest, node.at, path, false));
    }
    const children = [...node.children];
    while (children.length < node.size) {
      const target = resolvePath(root, path);
      if (target?.kind !== "container") throw new Error("no container at path");
      const page = childrenPage(target.value, children.length, limits);
      expect(page.children.length).toBeGreaterThan(0);
      children.push(...page.children);
    }
    if (node.type === "array") return children.map((c, i) => build(c, [...path, i]));
    const out: { [k: string]: Json } = {};
    children.forEach((c, i) => {
      const name = keyText(c.key as KeyView, [...path, i]);
      Object.defineProperty(out, name, { value: build(c, [...path, i]), enumerable: true, writable: true, configurable: true });
    });
    return out;
  };
  return build(firstRender(root, limits), []);
}

const SMALL = { ...LIMITS, nodes: 12, chars: 400, children: 4, stringHead: 10, keyHead: 6, stringPage: 7, depth: 3 };

const weirdString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.constantFrom("AC-\u202E9876\u202C", "amount\u200B", "__proto__", "⟨U+202E⟩", "x".repeat(900), "p\u0430ypal"),
);
const jsonArb: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(null, true, false),
    fc.integer(),
    weirdString,
    fc.array(tie("v"), { maxLength: 12 }),
    fc.dictionary(weirdString, tie("v"), { maxKeys: 12 }),
  ),
})).v;
const argsArb = fc.dictionary(weirdString, jsonArb, { maxKeys: 15 });

describe("bounded first render", () => {
  it("never holds more than the node and character bounds, whatever the arguments", () => {
    fc.assert(
      fc.property(argsArb, (args) => {
        for (const limits of [LIMITS, SMALL]) {
          const root = firstRender(args, limits);
          const { nodes, chars } = countNodes(root.children);
          expect(nodes).toBeLessThanOrEqual(limits.nodes);
          // A node is admitted while budget remains: one node's text may pass the line.
          expect(chars).toBeLessThanOrEqual(limits.chars + 2 * (limits.stringHead + limits.keyHead) * 10);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("gives back every key and value exactly when paged through on demand", () => {
    fc.assert(
      fc.property(argsArb, (args) => {
        expect(rebuild(args, SMALL)).toEqual(args);
        expect(rebuild(args, LIMITS)).toEqual(args);
      }),
      { numRuns: 200 },
    );
  });

  it("renders a 128k-element array as its first children and a count", () => {
    const args = { items: Array.from({ length: 128_000 }, (_, i) => i % 7) } as Json;
    const root = firstRender(args);
    const items = root.children[0]!;
    expect(items).toMatchObject({ k: "branch", type: "array", size: 128_000 });
    expect(items.k === "branch" && items.children.length).toBe(LIMITS.children);
    expect(JSON.stringify(root).length).toBeLessThan(20_000);
    const page = childrenPage((args as { items: Json[] }).items, 127_990);
    expect(page).toMatchObject({ next: null });
    expect(page.children).toHaveLength(10);
  });

  it("keeps a long string to its head and a count", () => {
    const root = firstRender({ note: "é".repeat(100_000) });
    const leaf = root.children[0]!;
    expect(leaf).toMatchObject({ k: "leaf", rest: 100_000 - LIMITS.stringHead, at: LIMITS.stringHead });
    expect(JSON.stringify(root).length).toBeLessThan(2_000);
  });

  it("survives nesting far deeper than the call stack", () => {
    let deep: Json = "\u202Edeep";
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const root = firstRender({ deep });
    expect(countNodes(root.children).nodes).toBeLessThanOrEqual(LIMITS.depth + 2);
    const w = new WarningCollector();
    w.args({ deep } as Json);
    expect(w.result().total).toBe(1);
    expect(w.result().items[0]!.what).toContain("U+202E");
  });
});

describe("warnings cover the whole request", () => {
  it("lists hidden characters in keys and in values past the first render, and counts them all", () => {
    const items = Array.from({ length: 5_000 }, (_, i) => (i === 4_321 ? "AC-\u202E9876\u202C" : `row ${i}`));
    const w = new WarningCollector();
    w.field("Summary", "Policy: auto-approved by admin\u2067", { multiline: true });
    w.args({ "amount\u200B": 10, amount: 10, items, url: "https://p\u0430ypal.com" } as Json);
    const { items: listed, total } = w.result();
    const lines = listed.map((x) => `${x.where}: ${x.what}`);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Summary: .*U\+2067/),
        expect.stringMatching(/^key arguments\["amount⟨U\+200B⟩"\]: .*U\+200B/),
        expect.stringMatching(/^arguments\.items\[4321\]: .*U\+202E/),
        expect.stringMatching(/^arguments\.url: mixes scripts in one word: Latin \+ Cyrillic/),
      ]),
    );
    expect(total).toBeGreaterThanOrEqual(5);
  });

  it("caps the list but not the count", () => {
    const w = new WarningCollector();
    w.args({ rows: Array.from({ length: 1_000 }, (_, i) => `${i}\u200B`) } as Json);
    expect(w.result().items).toHaveLength(20);
    expect(w.result().total).toBe(1_000);
  });
});
