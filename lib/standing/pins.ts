// Argument pins of a standing approval (docs/standing-approvals.md): which
// requests are "calls like this one". A pin names a value of the arguments
// by JSON Pointer (into the redacted arguments, as a reviewer sees them) and
// a test: eq (the same value), lte / gte (a number within a bound, closed on
// both sides), in (one of a list), max_length (a list of at most so many
// items). A pin on a redacted value compares keyed digests (eq only): the
// value itself is never stored. Everything no pin holds must have the
// source request's shape (lib/standing/shape.ts): the same keys, types and
// list lengths. Pure: the matcher runs in the ingest transaction, the
// wording on the standing approvals page.
import canonicalize from "canonicalize";
import { z } from "zod";
import { formatJsonPointer, getJsonPointer, parseJsonPointer } from "@countersign/client";
import type { HiddenEntry } from "../revisions/hidden-values";
import { findingsOf, reveal } from "../display/reveal";
import { freeWords } from "./free-words";
import { isShape, MAX_LIST_LENGTH, MAX_SHAPE_NODES, openLists, outlineOf, shapeMatches, shapeOf, type Shape } from "./shape";

export const MAX_PINS = 20;
export const MAX_IN_VALUES = 20;

type Leaf = string | number | boolean | null;

export type Pin =
  | { path: string; op: "eq"; value: Leaf }
  | { path: string; op: "eq"; digest: string }
  | { path: string; op: "range"; min: number; max: number }
  | { path: string; op: "in"; values: Leaf[] }
  | { path: string; op: "max_length"; value: number };

/** A one-sided bound, as stored before pins were closed: read back for its words only. */
type OpenBound = { path: string; op: "lte" | "gte"; value: number };

/**
 * A standing approval's pins and the shape of its source request. One
 * stored before closed pins has no shape (and may hold one-sided bounds): it
 * never matches.
 */
export type PinSet = { pins: Pin[]; shape: Shape } | { pins: Array<Pin | OpenBound>; shape: null };

const leafSchema = z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]);
const pointerSchema = z
  .string()
  .min(1, "must name a value, e.g. /amount")
  .max(1000)
  .refine((p) => {
    try {
      parseJsonPointer(p);
      return true;
    } catch {
      return false;
    }
  }, "must be a JSON Pointer, e.g. /amount");

/**
 * A pin as a reviewer asks for it; eq takes its value from the request
 * itself. A bound's other side is optional (`min` for lte, `max` for gte):
 * left out, it closes at zero when that still holds this request's value,
 * else at this request's value (closeBound).
 */
export const pinRequestSchema = z.discriminatedUnion("op", [
  z.strictObject({ path: pointerSchema, op: z.literal("eq") }),
  z.strictObject({ path: pointerSchema, op: z.literal("lte"), value: z.number(), min: z.number().optional() }),
  z.strictObject({ path: pointerSchema, op: z.literal("gte"), value: z.number(), max: z.number().optional() }),
  z.strictObject({ path: pointerSchema, op: z.literal("in"), values: z.array(leafSchema).min(1).max(MAX_IN_VALUES) }),
  z.strictObject({ path: pointerSchema, op: z.literal("max_length"), value: z.number().int().min(0).max(MAX_LIST_LENGTH) }),
]);
export type PinRequest = z.infer<typeof pinRequestSchema>;

const finite = z.number().refine(Number.isFinite);
/** A stored pin, read back (anything else fails the read: no pin must ever match by accident). */
export const pinSchema: z.ZodType<Pin> = z.union([
  z.strictObject({ path: z.string(), op: z.literal("eq"), value: leafSchema }),
  z.strictObject({ path: z.string(), op: z.literal("eq"), digest: z.string() }),
  z.strictObject({ path: z.string(), op: z.literal("range"), min: finite, max: finite }),
  z.strictObject({ path: z.string(), op: z.literal("in"), values: z.array(leafSchema) }),
  z.strictObject({ path: z.string(), op: z.literal("max_length"), value: z.number().int().min(0) }),
]);
const openBoundSchema = z.strictObject({ path: z.string(), op: z.enum(["lte", "gte"]), value: z.number() });
const storedSchema = z.strictObject({ pins: z.array(pinSchema).min(1).max(MAX_PINS), shape: z.unknown() });

// A number that is not finite is no value at all here: it never matches.
const isLeaf = (v: unknown): v is Leaf =>
  v === null || typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v));
const same = (a: unknown, b: unknown) => canonicalize(a) === canonicalize(b);

/** What redaction hid in one request, by pointer. */
function hiddenIndex(hidden: readonly HiddenEntry[]) {
  const values = new Map<string, string>();
  const keys = new Set<string>();
  for (const [pointer, kind, digest] of hidden) {
    if (kind === "v") values.set(pointer, digest);
    else keys.add(pointer);
  }
  return { values, keys };
}

type Found = { ok: true; value: unknown; hiddenDigest: string | null } | { ok: false; why: string };

/**
 * The value at `path` in a request's redacted arguments, refusing a path
 * that goes through a hidden key or value (two different hidden keys read
 * alike, so a path through one could name the other).
 */
function valueAt(view: unknown, index: ReturnType<typeof hiddenIndex>, path: string): Found {
  const segments = parseJsonPointer(path);
  if (segments.length === 0) return { ok: false, why: "it names all the arguments" };
  for (let i = 1; i <= segments.length; i++) {
    const prefix = formatJsonPointer(segments.slice(0, i));
    if (index.keys.has(prefix)) return { ok: false, why: "its key is redacted" };
    if (i < segments.length && index.values.has(prefix)) return { ok: false, why: "it is inside a redacted value" };
  }
  const found = getJsonPointer(view, path);
  if (!found.found) return { ok: false, why: "there is no such value" };
  return { ok: true, value: found.value, hiddenDigest: index.values.get(path) ?? null };
}

export type PinsBuilt = { ok: true; pins: Pin[]; shape: Shape } | { ok: false; message: string };

const typeOf = (v: Leaf) => (v === null ? "null" : typeof v);

/**
 * Both sides of a bound on this request's number `v`. The side the proposer
 * left open closes at zero when that still holds `v` (a non-negative amount
 * with at most 100: 0 to 100; a negative one with at least -50: -50 to 0),
 * else at `v` itself (at least 10 on an amount of 40: 10 to 40).
 */
function closeBound(r: Extract<PinRequest, { op: "lte" | "gte" }>, v: number): { min: number; max: number } | null {
  const [min, max] = r.op === "lte" ? [r.min ?? (v >= 0 ? 0 : v), r.value] : [r.value, r.max ?? (v <= 0 ? 0 : v)];
  return min <= v && v <= max ? { min, max } : null;
}

/**
 * The pins of a standing approval proposed from this request, and its shape:
 * each must hold for the request itself (it is "calls like this one").
 * `storable` says whether a value may be stored (no redaction rule would
 * hide it).
 */
export function buildPins(view: unknown, hidden: readonly HiddenEntry[], requests: readonly PinRequest[], storable: (v: Leaf) => boolean): PinsBuilt {
  if (requests.length === 0) return { ok: false, message: "pin at least one argument value" };
  if (requests.length > MAX_PINS) return { ok: false, message: `at most ${MAX_PINS} pins` };
  const index = hiddenIndex(hidden);
  const pins: Pin[] = [];
  const maxes = new Map<string, number>();
  for (const r of requests) {
    const found = valueAt(view, index, r.path);
    if (!found.ok) return { ok: false, message: `${r.path} cannot be pinned: ${found.why}` };
    if (found.hiddenDigest !== null) {
      if (r.op !== "eq") return { ok: false, message: `${r.path} is redacted: it can only be pinned to the same value` };
      pins.push({ path: r.path, op: "eq", digest: found.hiddenDigest });
      continue;
    }
    if (r.op === "max_length") {
      if (!Array.isArray(found.value)) return { ok: false, message: `${r.path} is not a list, so it cannot be given a maximum length` };
      if (maxes.has(r.path)) return { ok: false, message: `${r.path} is given a maximum length twice` };
      if (found.value.length > r.value) return { ok: false, message: `${r.path}: this request has more items than the maximum` };
      maxes.set(r.path, r.value);
      pins.push({ path: r.path, op: "max_length", value: r.value });
      continue;
    }
    if (!isLeaf(found.value)) return { ok: false, message: `${r.path} cannot be pinned: pin a single value, not an object or a list` };
    const value = found.value;
    if (r.op === "eq") pins.push({ path: r.path, op: "eq", value });
    else if (r.op === "in") {
      if (!r.values.every(storable)) return { ok: false, message: `${r.path}: a value in the list holds something a redaction rule hides` };
      if (!r.values.some((v) => same(v, value))) return { ok: false, message: `${r.path}: the list must include this request's value` };
      // Another type could never match (the shape keeps it), so the list would say more than it does.
      if (!r.values.every((v) => typeOf(v) === typeOf(value))) {
        return { ok: false, message: `${r.path}: every value in the list must be a ${typeOf(value)}, like this request's` };
      }
      pins.push({ path: r.path, op: "in", values: [...r.values] });
    } else {
      if (typeof value !== "number") return { ok: false, message: `${r.path} is not a number, so it cannot be bounded` };
      const bound = closeBound(r, value);
      if (!bound) return { ok: false, message: `${r.path}: this request's value is outside the bound` };
      pins.push({ path: r.path, op: "range", ...bound });
    }
  }
  const exact = shapeOf(view);
  if (!exact) return { ok: false, message: `this request holds more than ${MAX_SHAPE_NODES} values: too many for a standing approval to compare` };
  const shape = openLists(exact, maxes);
  if (!shape.ok) return { ok: false, message: shape.message };
  return { ok: true, pins, shape: shape.shape };
}

/**
 * Does a request (its redacted arguments and what they hide) have the
 * standing approval's shape and satisfy every pin? One without a shape
 * (stored before closed pins) never matches.
 */
export function pinsMatch(set: PinSet, view: unknown, hidden: readonly HiddenEntry[]): boolean {
  if (set.shape === null || set.pins.length === 0 || !shapeMatches(set.shape, view)) return false;
  const index = hiddenIndex(hidden);
  return set.pins.every((pin) => {
    const found = valueAt(view, index, pin.path);
    if (!found.ok) return false;
    if ("digest" in pin) return found.hiddenDigest === pin.digest;
    // A shown pin never matches a hidden value, whatever its redacted text reads.
    if (found.hiddenDigest !== null) return false;
    const v = found.value;
    switch (pin.op) {
      case "eq":
        return isLeaf(v) && same(v, pin.value);
      case "in":
        return isLeaf(v) && pin.values.some((x) => same(x, v));
      case "range":
        return typeof v === "number" && Number.isFinite(v) && pin.min <= v && v <= pin.max;
      case "max_length":
        return Array.isArray(v) && v.length <= pin.value;
    }
  });
}

/** One pin in words: values as JSON, a redacted one never shown. */
function onePinWords(pin: Pin | OpenBound): string {
  if ("digest" in pin) return `${pin.path} is the same redacted value`;
  switch (pin.op) {
    case "eq":
      return `${pin.path} = ${JSON.stringify(pin.value)}`;
    case "in":
      return `${pin.path} is one of ${pin.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "range":
      return `${pin.min} ≤ ${pin.path} ≤ ${pin.max}`;
    case "max_length":
      return `${pin.path} has at most ${pin.value} items`;
    case "lte":
    case "gte":
      return `${pin.path} ${pin.op === "lte" ? "≤" : "≥"} ${pin.value}`;
  }
}

/**
 * A standing approval's pins in words, for pages and the CLI: each value
 * pin, then what the shape keeps and leaves free (free-words.ts, as on the
 * proposal form), as in `source`. Invisible and direction-changing
 * characters are escaped.
 */
export function pinWords(set: PinSet | null, source = "the request it came from"): string[] {
  if (!set) return ["its pins cannot be read: it never applies"];
  const words = set.pins.filter((p) => p.op !== "max_length").map((p) => reveal(onePinWords(p)).text);
  if (set.shape === null) return [...words, "made before pins were closed (it keeps no shape of its request): it no longer applies"];
  const pins = set.pins.map((p) => ({ ...p, shown: reveal(p.path).text }));
  return [...words, freeWords(outlineOf(set.shape), pins, source)];
}

/** The text a standing approval stores for its pins and shape (read back by parsePins). */
export function storedPins(set: { pins: Pin[]; shape: Shape }): string {
  return JSON.stringify({ pins: set.pins, shape: set.shape });
}

/** A standing approval's stored pins; a list of pins alone is one stored before closed pins (shape: null). */
export function parsePins(text: string): PinSet | null {
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    return null;
  }
  if (Array.isArray(stored)) {
    const before = z.array(z.union([pinSchema, openBoundSchema])).safeParse(stored);
    return before.success ? { pins: before.data, shape: null } : null;
  }
  const parsed = storedSchema.safeParse(stored);
  return parsed.success && isShape(parsed.data.shape) ? { pins: parsed.data.pins, shape: parsed.data.shape } : null;
}

/**
 * JSON Pointers a pin can name, at most `limit`: single values (redacted ones
 * included) in document order, then lists (for a maximum length), so that
 * the first is always a value.
 */
export function pinnablePaths(view: unknown, hidden: readonly HiddenEntry[], limit = 300): string[] {
  const index = hiddenIndex(hidden);
  const out: string[] = [];
  const lists: string[] = [];
  const stack: Array<{ node: unknown; pointer: string }> = [{ node: view, pointer: "" }];
  while (stack.length && out.length < limit) {
    const { node, pointer } = stack.pop()!;
    if (index.keys.has(pointer)) continue;
    if (pointer && (index.values.has(pointer) || isLeaf(node))) {
      // Offered as text to pick: a path with invisible or direction-changing characters is left out.
      if (findingsOf(pointer).length === 0) out.push(pointer);
      continue;
    }
    if (pointer && Array.isArray(node) && lists.length < limit && findingsOf(pointer).length === 0) lists.push(pointer);
    const at = (seg: string | number) => pointer + formatJsonPointer([seg]);
    // At most `limit` children of any one container: nothing past them could be listed anyway.
    if (Array.isArray(node)) for (let i = Math.min(node.length, limit) - 1; i >= 0; i--) stack.push({ node: node[i], pointer: at(i) });
    else if (typeof node === "object" && node !== null) {
      const keys = Object.keys(node).slice(0, limit);
      for (let i = keys.length - 1; i >= 0; i--) stack.push({ node: (node as Record<string, unknown>)[keys[i]!], pointer: at(keys[i]!) });
    }
  }
  return [...out, ...lists].slice(0, limit);
}
