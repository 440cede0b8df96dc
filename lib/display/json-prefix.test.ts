// docs/security.md, bounded rendering on every page: the start of a stored
// JSON text read as a tree says only what the whole text says. A whole text
// reads as JSON.parse reads it; any prefix reads as a tree in which every
// value is the whole text's value there, or is marked cut (a string's start,
// a container that may have more); nothing split by the end is made up.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJsonPrefix, type PrefixNode } from "./json-prefix";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** What parseJsonPrefix should give for a whole document. */
function asNode(v: Json): PrefixNode {
  if (v === null) return { t: "null" };
  if (typeof v === "boolean") return { t: "boolean", v };
  if (typeof v === "number") return { t: "number", v };
  if (typeof v === "string") return { t: "string", v, cut: false };
  if (Array.isArray(v)) return { t: "array", items: v.map(asNode), cut: false };
  return { t: "object", entries: Object.keys(v).map((k) => [k, asNode(v[k]!)]), cut: false };
}

const same = (a: PrefixNode, b: PrefixNode) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Every value in `part` is the whole document's value at the same place: a
 * container that is not cut is whole; in a cut one, every entry but the last
 * is whole and the last is itself consistent; a cut string is a start.
 */
function consistent(part: PrefixNode, whole: PrefixNode): boolean {
  if (part.t !== whole.t) return false;
  if (part.t === "string") return part.cut ? (whole as { v: string }).v.startsWith(part.v) : same(part, whole);
  if (part.t !== "array" && part.t !== "object") return same(part, whole);
  if (!part.cut) return same(part, whole);
  const mine: Array<[string | null, PrefixNode]> = part.t === "array" ? part.items.map((x) => [null, x]) : part.entries;
  const theirs: Array<[string | null, PrefixNode]> =
    whole.t === "array" ? whole.items.map((x) => [null, x]) : (whole as Extract<PrefixNode, { t: "object" }>).entries;
  if (mine.length > theirs.length) return false;
  return mine.every(([k, x], i) => k === theirs[i]![0] && (i === mine.length - 1 ? consistent(x, theirs[i]![1]) : same(x, theirs[i]![1])));
}

// Strings with the characters the display cares about: escapes, quotes, controls, astral and hidden ones.
const text = fc.string({ unit: fc.constantFrom("a", "Z", '"', "\\", "\n", "\u0001", "\u202E", "\u200B", "а", "😀", "/", " ", "é"), maxLength: 12 });
const json: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.oneof(
      fc.integer({ min: -1e6, max: 1e6 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Object.is(d, -0)),
    ),
    text,
    fc.array(tie("v"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(text, fc.constantFrom("__proto__", "0", "12", "constructor")), tie("v"), { maxKeys: 4 }),
  ),
})).v;

describe("parseJsonPrefix", () => {
  it("reads a whole document as JSON.parse does, in the text's order", () => {
    fc.assert(
      fc.property(json, (v) => {
        const s = JSON.stringify(v);
        expect(parseJsonPrefix(s, true, Infinity)).toEqual(asNode(JSON.parse(s) as Json));
      }),
      { numRuns: 400 },
    );
  });

  it("reads every prefix of a document as a tree that says only what the document says", () => {
    fc.assert(
      fc.property(json, (v) => {
        const s = JSON.stringify(v, null, Math.random() < 0.3 ? 1 : undefined);
        const whole = asNode(JSON.parse(s) as Json);
        for (let i = 0; i < s.length; i++) {
          const part = parseJsonPrefix(s.slice(0, i), false, Infinity);
          if (part === null) continue;
          expect(consistent(part, whole), `prefix ${JSON.stringify(s.slice(0, i))} of ${s}`).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("leaves out what the end splits: a number, a literal, a key, an escape, half a surrogate pair", () => {
    expect(parseJsonPrefix('{"a":12', false)).toEqual({ t: "object", entries: [], cut: true });
    expect(parseJsonPrefix('{"a":12', true)).toEqual({ t: "object", entries: [["a", { t: "number", v: 12 }]], cut: true });
    expect(parseJsonPrefix("[1,tr", false)).toEqual({ t: "array", items: [{ t: "number", v: 1 }], cut: true });
    expect(parseJsonPrefix('{"a":1,"ke', false)).toEqual({ t: "object", entries: [["a", { t: "number", v: 1 }]], cut: true });
    expect(parseJsonPrefix('{"key":', false)).toEqual({ t: "object", entries: [], cut: true });
    expect(parseJsonPrefix('["ab\\u00', false)).toEqual({ t: "array", items: [{ t: "string", v: "ab", cut: true }], cut: true });
    expect(parseJsonPrefix('["ab\\', false)).toEqual({ t: "array", items: [{ t: "string", v: "ab", cut: true }], cut: true });
    expect(parseJsonPrefix('["x\\ud83d\\ude00', false)).toEqual({ t: "array", items: [{ t: "string", v: "x😀", cut: true }], cut: true });
    expect(parseJsonPrefix('["x\\ud83d', false)).toEqual({ t: "array", items: [{ t: "string", v: "x", cut: true }], cut: true });
    expect(parseJsonPrefix("", false)).toBeNull();
  });

  it("keeps __proto__ as an ordinary key, and survives any depth", () => {
    expect(parseJsonPrefix('{"__proto__":{"x":1}}', true)).toEqual({
      t: "object",
      entries: [["__proto__", { t: "object", entries: [["x", { t: "number", v: 1 }]], cut: false }]],
      cut: false,
    });
    const deep = "[".repeat(100_000);
    const node = parseJsonPrefix(deep, false);
    expect(node).toMatchObject({ t: "array", cut: true });
  });

  it("stops at the node budget, every open container cut", () => {
    const node = parseJsonPrefix(JSON.stringify({ a: [1, 2, 3, 4, 5], b: 1 }), true, 4);
    expect(node).toEqual({
      t: "object",
      entries: [
        [
          "a",
          {
            t: "array",
            items: [
              { t: "number", v: 1 },
              { t: "number", v: 2 },
            ],
            cut: true,
          },
        ],
      ],
      cut: true,
    });
  });

  it("refuses text that is not the start of a JSON document", () => {
    for (const bad of ["{a", "[1 2]", '{"a" 1}', "[1]x", "nul!", "01", "[1.]"]) expect(() => parseJsonPrefix(bad, true), bad).toThrow(SyntaxError);
  });
});
