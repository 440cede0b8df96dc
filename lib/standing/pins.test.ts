// Pins: built only for values the source request holds, matched by value,
// bound or list, and by keyed digest for redacted values; never through a
// redacted key, and a shown pin never matches a hidden value. Closed pins:
// only arguments of the source's shape match, bounds are closed on both
// sides, and the words say what stays free.
import canonicalize from "canonicalize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileRedactor } from "../redaction";
import { redactArguments } from "../revisions/hidden-values";
import { buildPins, parsePins, pinnablePaths, pinsMatch, pinWords, storedPins, type Pin, type PinSet } from "./pins";
import { shapeOf, type Shape } from "./shape";

const redactor = compileRedactor();
const seen = (args: unknown) => redactArguments(redactor, "svc_1", args);
const storable = (_v: unknown) => true;

describe("pins", () => {
  it("are built from the request's own values and describe themselves without redacted values", () => {
    const { view, hidden } = seen({ to: "ana@example.com", amount: 5, tags: ["a"], nested: { k: true } });
    const built = buildPins(
      view,
      hidden,
      [
        { path: "/to", op: "eq" },
        { path: "/amount", op: "lte", value: 10 },
        { path: "/nested/k", op: "eq" },
      ],
      storable,
    );
    expect(built.ok).toBe(true);
    const pins = built as PinSet;
    expect(pinWords(pins)).toEqual([
      "/to is the same redacted value",
      "0 ≤ /amount ≤ 10",
      "/nested/k = true",
      "Everything else must be exactly as in the request it came from: the same keys, the same types, lists of the same length. Free: /tags/0 (any text).",
    ]);
    expect(storedPins(built as Extract<typeof built, { ok: true }>)).not.toContain("ana@");
    expect(pinsMatch(pins, view, hidden)).toBe(true);
    const other = seen({ to: "bob@example.com", amount: 5, tags: ["a"], nested: { k: true } });
    expect(pinsMatch(pins, other.view, other.hidden)).toBe(false);
  });

  it("refuses containers, missing values, bounds the request misses, lists without its value and secrets in lists", () => {
    const { view, hidden } = seen({ amount: 5, tags: ["a"], word: "x" });
    const fail = (reqs: Parameters<typeof buildPins>[2], store = storable) => expect(buildPins(view, hidden, reqs, store).ok).toBe(false);
    fail([{ path: "/tags", op: "eq" }]);
    fail([{ path: "/nope", op: "eq" }]);
    fail([{ path: "/amount", op: "gte", value: 6 }]);
    fail([{ path: "/word", op: "lte", value: 6 }]);
    fail([{ path: "/word", op: "in", values: ["y"] }]);
    fail([{ path: "/word", op: "in", values: ["x", "sk_live_abc"] }], (v) => v !== "sk_live_abc");
    fail([]);
  });

  it("never goes through a redacted key, and a shown pin never matches a hidden value", () => {
    const source = seen({ "ana@example.com": 5 });
    expect(buildPins(source.view, source.hidden, [{ path: "/[redacted:email]", op: "eq" }], storable).ok).toBe(false);
    // A pin on a shown value that later arrives hidden (the same text under a secret-named key) does not match.
    // (Each with the shape of the arguments it is tried on, so that only the pin decides.)
    const pins: Pin[] = [{ path: "/password", op: "eq", value: "[redacted:secret_key]" }];
    const hiddenNow = seen({ password: "[redacted:secret_key]" });
    expect(hiddenNow.view).toEqual({ password: "[redacted:secret_key]" });
    expect(hiddenNow.hidden).toHaveLength(1);
    expect(pinsMatch({ pins, shape: shapeOf(hiddenNow.view)! }, hiddenNow.view, hiddenNow.hidden)).toBe(false);
    const keyRenamed = seen({ "bob@example.com": 5 });
    const renamedShape = shapeOf(keyRenamed.view)!;
    expect(pinsMatch({ pins: [{ path: "/[redacted:email]", op: "eq", value: 5 }], shape: renamedShape }, keyRenamed.view, keyRenamed.hidden)).toBe(
      false,
    );
    expect(pinsMatch({ pins: [], shape: renamedShape }, keyRenamed.view, keyRenamed.hidden)).toBe(false);
  });
});

/** Builds pins from `source` (which must succeed) and tells whether `args` would match them. */
function closed(source: unknown, requests: Parameters<typeof buildPins>[2]) {
  const from = seen(source);
  const built = buildPins(from.view, from.hidden, requests, storable);
  if (!built.ok) throw new Error(built.message);
  // Read back as stored, as the ingest does.
  const set = parsePins(storedPins(built))!;
  return { set, matches: (args: unknown) => pinsMatch(set, seen(args).view, seen(args).hidden) };
}

const refusal = (source: unknown, requests: Parameters<typeof buildPins>[2]) => {
  const from = seen(source);
  const built = buildPins(from.view, from.hidden, requests, storable);
  return built.ok ? null : built.message;
};

/** A shape with every object's keys in one order: two shapes are the same when these are equal. */
function sorted(shape: Shape): unknown {
  if (typeof shape === "string") return shape;
  if ("object" in shape) return { object: [...shape.object].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, s]) => [k, sorted(s)]) };
  if ("array" in shape) return { array: shape.array.map(sorted) };
  return { items: sorted(shape.items), max: shape.max };
}

// Arguments as agents send them: an object with a number to bound, and anything under it.
// (Numbers too short to read as card numbers, which redaction would turn into text.)
const leaf = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer({ min: -1e6, max: 1e6 }),
  fc.double({ noNaN: true, min: -1e6, max: 1e6 }),
  fc.boolean(),
  fc.constant(null),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    leaf,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("a", "b", "note", "items", "0", "__proto__", "password"), tie("value"), { maxKeys: 3 }),
  ),
})).value;
const args = fc.record({ amount: fc.integer({ min: 0, max: 100 }), rest: json });

type Json = unknown;
/** One change to the arguments' structure somewhere under /rest, or a reordering of keys (which keeps the shape). */
const change = fc.constantFrom("add key", "drop key", "add item", "drop item", "swap container", "retype", "reorder");
/**
 * The arguments with one change at the `pick`-th place under /rest (the
 * change asked for where it fits, else a change of type), what was done,
 * and whether the place is under a secret-named key (redacted whatever it holds).
 */
function mutate(value: Json, how: string, pick: number): { changed: Json; did: string; underSecret: boolean } {
  const spots: Array<{ parent: Record<string, Json> | Json[]; key: string | number; underSecret: boolean }> = [];
  const walk = (parent: Record<string, Json> | Json[], key: string | number, underSecret: boolean) => {
    spots.push({ parent, key, underSecret });
    const v = (parent as Record<string | number, Json>)[key];
    if (Array.isArray(v)) v.forEach((_, i) => walk(v, i, underSecret));
    else if (v && typeof v === "object") for (const k of Object.keys(v)) walk(v as Record<string, Json>, k, underSecret || k === "password");
  };
  const changed = JSON.parse(JSON.stringify(value)) as Record<string, Json>;
  walk(changed, "rest", false);
  const { parent, key, underSecret } = spots[pick % spots.length]!;
  const slot = parent as Record<string | number, Json>;
  const v = slot[key];
  const isObject = v !== null && typeof v === "object" && !Array.isArray(v);
  let did = how;
  if (how === "reorder" && isObject) slot[key] = Object.fromEntries(Object.entries(v).reverse());
  else if (how === "add key" && isObject) slot[key] = { ...v, added_cents: 1 };
  else if (how === "drop key" && isObject && Object.keys(v).length) slot[key] = Object.fromEntries(Object.entries(v).slice(1));
  else if (how === "add item" && Array.isArray(v)) slot[key] = [...v, v[0] ?? 1];
  else if (how === "drop item" && Array.isArray(v) && v.length) slot[key] = v.slice(1);
  else if (how === "swap container" && v !== null && typeof v === "object") slot[key] = Array.isArray(v) ? { ...v } : Object.values(v);
  else {
    did = "retype";
    slot[key] = typeof v === "number" ? String(v) : v === null ? false : typeof v === "string" ? 0 : typeof v === "boolean" ? null : "x";
  }
  return { changed, did, underSecret };
}

describe("closed pins", () => {
  const source = { amount: 40, note: "refund", items: [{ sku: "A-1" }], target: { env: "staging" } };
  const pins = [{ path: "/amount", op: "lte" as const, value: 100 }];

  it("the four open-pin samples do not match; the source and values within the pins do", () => {
    const { matches } = closed(source, pins);
    expect(matches(source)).toBe(true);
    expect(matches({ ...source, amount: 0, note: "anything at all" })).toBe(true);
    // A number far below the bound, an extra key, an extra item, a list where the source had an object.
    expect(matches({ ...source, amount: -1e300 })).toBe(false);
    expect(matches({ ...source, amount_cents: 4000 })).toBe(false);
    expect(matches({ ...source, items: [{ sku: "A-1" }, { sku: "B-2" }] })).toBe(false);
    expect(matches({ ...source, target: ["production"] })).toBe(false);
    // And the other way round: an object where the source had a list (a pointer /items/0 reads both alike).
    const byIndex = closed(source, [{ path: "/items/0/sku", op: "eq" }]);
    expect(byIndex.matches({ ...source, items: { 0: { sku: "A-1" }, 1: { sku: "B-2" } } })).toBe(false);
    // A key left out, a type changed.
    const { note: _note, ...noNote } = source;
    expect(matches(noNote)).toBe(false);
    expect(matches({ ...source, note: 7 })).toBe(false);
    expect(matches({ ...source, target: { env: null } })).toBe(false);
  });

  it("property: the source matches its own pins, and a change of keys, list lengths or types never does", () => {
    fc.assert(
      fc.property(args, change, fc.nat(), (src, how, pick) => {
        const { matches } = closed(src, [{ path: "/amount", op: "lte", value: 100 }]);
        expect(matches(src)).toBe(true);
        const { changed, did, underSecret } = mutate(src, how, pick);
        const sameShape = canonicalize(sorted(shapeOf(seen(changed).view)!)) === canonicalize(sorted(shapeOf(seen(src).view)!));
        expect(matches(changed)).toBe(sameShape);
        // Reordering keys keeps the shape; every other change alters it, unless a secret-named key redacts the place whatever it holds.
        if (did === "reorder") expect(sameShape).toBe(true);
        else if (!underSecret) expect(sameShape).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  it("property: bounds are closed on both sides; the side left open closes at zero, or at the source's value", () => {
    const finite = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
    fc.assert(
      fc.property(finite, finite, finite, fc.constantFrom("lte" as const, "gte" as const), (v, bound, x, op) => {
        const from = seen({ amount: v });
        const built = buildPins(from.view, from.hidden, [{ path: "/amount", op, value: bound }], storable);
        const holds = op === "lte" ? v <= bound : v >= bound;
        expect(built.ok).toBe(holds);
        if (!built.ok) return;
        const [min, max] = op === "lte" ? [v >= 0 ? 0 : v, bound] : [bound, v <= 0 ? 0 : v];
        expect(pinsMatch(built, { amount: x }, [])).toBe(min <= x && x <= max);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(finite, finite, finite, finite, (v, a, b, x) => {
        const [min, max] = a <= b ? [a, b] : [b, a];
        fc.pre(min <= v && v <= max);
        const from = seen({ amount: v });
        for (const request of [
          { path: "/amount", op: "lte" as const, value: max, min },
          { path: "/amount", op: "gte" as const, value: min, max },
        ]) {
          const built = buildPins(from.view, from.hidden, [request], storable);
          expect(built.ok).toBe(true);
          if (built.ok) expect(pinsMatch(built, { amount: x }, [])).toBe(min <= x && x <= max);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("bounds: the examples in words, the other side given or refused, and non-finite numbers never match", () => {
    const words = (v: number, request: Parameters<typeof buildPins>[2][number]) => pinWords(closed({ amount: v }, [request]).set)[0];
    expect(words(40, { path: "/amount", op: "lte", value: 100 })).toBe("0 ≤ /amount ≤ 100");
    expect(words(-20, { path: "/amount", op: "gte", value: -50 })).toBe("-50 ≤ /amount ≤ 0");
    expect(words(40, { path: "/amount", op: "gte", value: 10 })).toBe("10 ≤ /amount ≤ 40");
    expect(words(-30, { path: "/amount", op: "lte", value: -10 })).toBe("-30 ≤ /amount ≤ -10");
    expect(words(40, { path: "/amount", op: "gte", value: 10, max: 500 })).toBe("10 ≤ /amount ≤ 500");
    expect(words(40, { path: "/amount", op: "lte", value: 100, min: -5 })).toBe("-5 ≤ /amount ≤ 100");
    expect(refusal({ amount: 40 }, [{ path: "/amount", op: "lte", value: 100, min: 41 }])).toMatch(/outside the bound/);
    expect(refusal({ amount: 40 }, [{ path: "/amount", op: "gte", value: 10, max: 39 }])).toMatch(/outside the bound/);
    const { set } = closed({ amount: 40, other: null }, [{ path: "/amount", op: "lte", value: 100 }]);
    for (const x of [Infinity, -Infinity, NaN]) expect(pinsMatch(set, { amount: x, other: null }, [])).toBe(false);
    // Nor under eq or in, nor as a value the shape leaves free.
    const eq = closed({ amount: 40, other: 1 }, [{ path: "/amount", op: "eq" }]).set;
    expect(pinsMatch(eq, { amount: 40, other: Infinity }, [])).toBe(false);
    expect(pinsMatch(closed({ v: null, w: 1 }, [{ path: "/w", op: "eq" }]).set, { v: Infinity, w: 1 }, [])).toBe(false);
  });

  it("a list given a maximum length holds up to it, each item shaped like the source's items", () => {
    const src = { items: [{ sku: "A" }, { sku: "B" }], note: "x" };
    const { set, matches } = closed(src, [
      { path: "/items", op: "max_length", value: 3 },
      { path: "/note", op: "eq" },
    ]);
    expect(matches(src)).toBe(true);
    expect(matches({ ...src, items: [] })).toBe(true);
    expect(matches({ ...src, items: [{ sku: "C" }, { sku: "D" }, { sku: "E" }] })).toBe(true);
    expect(matches({ ...src, items: [{ sku: "C" }, { sku: "D" }, { sku: "E" }, { sku: "F" }] })).toBe(false);
    expect(matches({ ...src, items: [{ sku: "C", qty: 1 }] })).toBe(false);
    expect(matches({ ...src, items: [{ sku: 5 }] })).toBe(false);
    expect(matches({ ...src, items: { 0: { sku: "A" } } })).toBe(false);
    expect(pinWords(set)).toEqual([
      '/note = "x"',
      "Everything else must be exactly as in the request it came from: the same keys, the same types, lists of the same length (/items: at most 3 items, each with the keys and types of its items there). Free: /items/*/sku (any text).",
    ]);
    // The form offers the lists after the values, so that its first pin names a value.
    expect(pinnablePaths(seen(src).view, seen(src).hidden)).toEqual(["/items/0/sku", "/items/1/sku", "/note", "/items"]);
    expect(refusal(src, [{ path: "/items", op: "max_length", value: 1 }])).toMatch(/more items than the maximum/);
    expect(refusal({ items: [] }, [{ path: "/items", op: "max_length", value: 3 }])).toMatch(/empty/);
    expect(refusal({ items: [1, "a"] }, [{ path: "/items", op: "max_length", value: 3 }])).toMatch(/differ/);
    expect(refusal({ items: { a: 1 } }, [{ path: "/items", op: "max_length", value: 3 }])).toMatch(/not a list/);
    expect(
      refusal({ items: [{ tags: ["a"] }] }, [
        { path: "/items", op: "max_length", value: 3 },
        { path: "/items/0/tags", op: "max_length", value: 3 },
      ]),
    ).toMatch(/already open/);
  });

  it("a list of values must hold values of the source's type", () => {
    expect(refusal({ currency: "EUR" }, [{ path: "/currency", op: "in", values: ["EUR", 5] }])).toMatch(/must be a string/);
    expect(refusal({ currency: "EUR" }, [{ path: "/currency", op: "in", values: ["EUR", "USD"] }])).toBeNull();
  });

  it("one stored before closed pins, or with a shape that cannot be read, never matches", () => {
    const { view, hidden } = seen({ amount: 5 });
    const before = parsePins(JSON.stringify([{ path: "/amount", op: "lte", value: 10 }]));
    expect(before).toEqual({ pins: [{ path: "/amount", op: "lte", value: 10 }], shape: null });
    expect(pinsMatch(before!, view, hidden)).toBe(false);
    expect(pinWords(before)).toEqual(["/amount ≤ 10", "made before pins were closed (it keeps no shape of its request): it no longer applies"]);
    const pin = [{ path: "/amount", op: "range", min: 0, max: 10 }];
    for (const shape of [
      {
        object: [
          ["amount", "number"],
          ["amount", "number"],
        ],
      },
      { object: [["amount", "integer"]] },
      { object: [["amount", "number"]], extra: 1 },
      { items: "number", max: -1 },
      null,
    ]) {
      expect(parsePins(JSON.stringify({ pins: pin, shape }))).toBeNull();
    }
    // A one-sided bound is no stored pin of a closed standing approval.
    expect(parsePins(JSON.stringify({ pins: [{ path: "/amount", op: "lte", value: 10 }], shape: { object: [["amount", "number"]] } }))).toBeNull();
    expect(pinWords(null)).toEqual(["its pins cannot be read: it never applies"]);
  });

  it("say in words what stays free, with invisible characters escaped", () => {
    const src = { account: "AC-1", amount: 3, urgent: false, memo: null, "n\u202ete": "x" };
    const { set } = closed(src, [{ path: "/account", op: "eq" }]);
    expect(pinWords(set).at(-1)).toBe(
      "Everything else must be exactly as in the request it came from: the same keys, the same types, lists of the same length. Free: /amount (any number), /urgent (true or false), /n⟨U+202E⟩te (any text).",
    );
    const all = closed({ a: 1 }, [{ path: "/a", op: "eq" }]).set;
    expect(pinWords(all).at(-1)).toMatch(/Nothing else is free\.$/);
    const many = closed(Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`k${i}`, i])), [{ path: "/k0", op: "eq" }]).set;
    expect(pinWords(many).at(-1)).toMatch(/\/k20 \(any number\), and more values, each within its type\.$/);
  });
});
