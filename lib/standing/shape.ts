// The shape of a standing approval's source request (docs/standing-approvals.md,
// "Closed pins"): the keys at every level, the JSON type of every value and
// the length of every list, as the reviewer saw them (a redacted value has
// the type its redacted text shows). A standing approval matches only
// arguments of the same shape; a list the proposer gave a maximum length
// may hold fewer or more items up to it, each shaped like the source's items.
// Pure. Arguments nest at most MAX_JSON_DEPTH levels (lib/http/parse-json.ts)
// and a shape holds at most MAX_SHAPE_NODES values, so the walks recurse.
import canonicalize from "canonicalize";
import { formatJsonPointer } from "@countersign/client";
import { reveal } from "../display/reveal";
import type { Outline } from "./free-words";

export type LeafType = "string" | "number" | "boolean" | "null";
export type Shape = LeafType | { object: Array<[key: string, shape: Shape]> } | { array: Shape[] } | { items: Shape; max: number };

/** The most values a standing approval's source may hold: each ingest compares them all. */
export const MAX_SHAPE_NODES = 5000;
/** The largest maximum length a list may be given. */
export const MAX_LIST_LENGTH = 10_000;
/** How many free values an outline names (the words show fewer; pins may take some). */
export const OUTLINE_LEAVES = 60;

const LEAVES = new Set<unknown>(["string", "number", "boolean", "null"]);
const at = (pointer: string, seg: string | number) => pointer + formatJsonPointer([seg]);

/** The shape of a request's redacted arguments; null when it holds more than `budget` values or anything that is not JSON. */
export function shapeOf(view: unknown, budget = MAX_SHAPE_NODES): Shape | null {
  let nodes = 0;
  const walk = (v: unknown): Shape | null => {
    if (++nodes > budget) return null;
    if (v === null) return "null";
    if (typeof v === "string" || typeof v === "boolean") return typeof v as LeafType;
    if (typeof v === "number") return Number.isFinite(v) ? "number" : null;
    if (typeof v !== "object") return null;
    if (Array.isArray(v)) {
      const items: Shape[] = [];
      for (const item of v as unknown[]) {
        const s = walk(item);
        if (s === null) return null;
        items.push(s);
      }
      return { array: items };
    }
    const entries: Array<[string, Shape]> = [];
    for (const key of Object.keys(v)) {
      const s = walk((v as Record<string, unknown>)[key]);
      if (s === null) return null;
      entries.push([key, s]);
    }
    return { object: entries };
  };
  return walk(view);
}

class OpenListError extends Error {}

/**
 * The shape with the lists the proposer gave a maximum length (pointer →
 * max) left open up to it. Such a list must hold at least one item and
 * items of one shape (what later items must look like), and no list inside
 * it may have its own maximum (its items are no longer counted one by one).
 */
export function openLists(shape: Shape, maxes: ReadonlyMap<string, number>): { ok: true; shape: Shape } | { ok: false; message: string } {
  const walk = (s: Shape, pointer: string, insideOpen: string | null): Shape => {
    if (typeof s === "string" || "items" in s) return s;
    if ("object" in s) return { object: s.object.map(([k, c]) => [k, walk(c, at(pointer, k), insideOpen)]) };
    const max = maxes.get(pointer);
    if (max === undefined) return { array: s.array.map((c, i) => walk(c, at(pointer, i), insideOpen)) };
    if (insideOpen !== null)
      throw new OpenListError(`${pointer} is inside ${insideOpen}, whose length is already open: it cannot have its own maximum`);
    if (s.array.length === 0)
      throw new OpenListError(`${pointer} is empty here, so nothing says what its items may be: it cannot be given a maximum length`);
    if (s.array.length > max) throw new OpenListError(`${pointer}: this request has more items than the maximum`);
    const items = s.array.map((c, i) => walk(c, at(pointer, i), pointer));
    const first = canonicalize(items[0]);
    if (items.some((c) => canonicalize(c) !== first)) {
      throw new OpenListError(`${pointer}: its items differ in keys or types, so its length cannot be left open`);
    }
    return { items: items[0]!, max };
  };
  try {
    return { ok: true, shape: walk(shape, "", null) };
  } catch (e) {
    if (e instanceof OpenListError) return { ok: false, message: e.message };
    throw e;
  }
}

/** Whether redacted arguments have this shape: the same keys, types and list lengths (or up to an open list's maximum). Non-finite numbers never match. */
export function shapeMatches(shape: Shape, v: unknown): boolean {
  switch (shape) {
    case "string":
      return typeof v === "string";
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "boolean":
      return typeof v === "boolean";
    case "null":
      return v === null;
  }
  if (typeof v !== "object" || v === null) return false;
  if ("object" in shape) {
    if (Array.isArray(v)) return false;
    // A stored shape's keys are unique (isShape), so equal counts and every key present mean the same keys.
    const record = v as Record<string, unknown>;
    return (
      Object.keys(record).length === shape.object.length && shape.object.every(([k, s]) => Object.hasOwn(record, k) && shapeMatches(s, record[k]))
    );
  }
  if (!Array.isArray(v)) return false;
  const items = v as unknown[];
  if ("array" in shape) return items.length === shape.array.length && shape.array.every((s, i) => shapeMatches(s, items[i]));
  return items.length <= shape.max && items.every((item) => shapeMatches(shape.items, item));
}

/** A stored shape read back: anything else (an unknown node, a repeated key, too many values) is not one. */
export function isShape(x: unknown, budget = MAX_SHAPE_NODES): x is Shape {
  let nodes = 0;
  const walk = (s: unknown): boolean => {
    if (++nodes > budget) return false;
    if (typeof s === "string") return LEAVES.has(s);
    if (typeof s !== "object" || s === null || Array.isArray(s)) return false;
    const node = s as Record<string, unknown>;
    const keys = Object.keys(node);
    if (keys.length === 1 && Array.isArray(node.object)) {
      const seen = new Set<string>();
      return (node.object as unknown[]).every((e) => {
        if (!Array.isArray(e) || e.length !== 2 || typeof e[0] !== "string" || seen.has(e[0])) return false;
        seen.add(e[0]);
        return walk(e[1]);
      });
    }
    if (keys.length === 1 && Array.isArray(node.array)) return (node.array as unknown[]).every(walk);
    if (keys.length === 2 && "items" in node && Number.isSafeInteger(node.max) && (node.max as number) >= 0) return walk(node.items);
    return false;
  };
  return walk(x);
}

/**
 * The values of a shape that a pin could leave free (strings, numbers,
 * booleans: null has one value), in document order, at most `limit`; the
 * items of an open list under "*". Paths are shown with invisible and
 * direction-changing characters escaped.
 */
export function outlineOf(shape: Shape, limit = OUTLINE_LEAVES): Outline {
  const leaves: Outline["leaves"] = [];
  let more = false;
  const walk = (s: Shape, pointer: string, shown: string): void => {
    if (more) return;
    if (typeof s === "string") {
      if (s === "null") return;
      if (leaves.length === limit) more = true;
      else leaves.push({ path: pointer, shown: shown || "/", kind: s });
      return;
    }
    const down = (seg: string | number) => reveal(formatJsonPointer([seg])).text;
    if ("object" in s) for (const [k, c] of s.object) walk(c, at(pointer, k), shown + down(k));
    else if ("array" in s) s.array.forEach((c, i) => walk(c, at(pointer, i), shown + down(i)));
    else walk(s.items, `${pointer}/*`, `${shown}/*`);
  };
  walk(shape, "", "");
  return { leaves, more };
}

/** What the proposal form needs to say what stays free: the outline of this request's shape, or null when it is too large to be one. */
export function standingOutline(view: unknown): Outline | null {
  const shape = shapeOf(view);
  return shape && outlineOf(shape);
}
