// Argument pins of a standing approval (docs/standing-approvals.md): which
// requests are "calls like this one". A pin names a value of the arguments
// by JSON Pointer (into the redacted arguments, as a reviewer sees them) and
// a test: eq (the same value), lte / gte (a number within a bound), in (one
// of a list). A pin on a redacted value compares keyed digests (eq only):
// the value itself is never stored. Pure: the matcher runs in the ingest
// transaction, the wording on the standing approvals page.
import canonicalize from "canonicalize";
import { z } from "zod";
import { formatJsonPointer, getJsonPointer, parseJsonPointer } from "@countersign/client";
import type { HiddenEntry } from "../revisions/hidden-values";
import { findingsOf } from "../display/reveal";

export const MAX_PINS = 20;
export const MAX_IN_VALUES = 20;

type Leaf = string | number | boolean | null;

export type Pin =
  | { path: string; op: "eq"; value: Leaf }
  | { path: string; op: "eq"; digest: string }
  | { path: string; op: "lte" | "gte"; value: number }
  | { path: string; op: "in"; values: Leaf[] };

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

/** A pin as a reviewer asks for it; eq takes its value from the request itself. */
export const pinRequestSchema = z.discriminatedUnion("op", [
  z.strictObject({ path: pointerSchema, op: z.literal("eq") }),
  z.strictObject({ path: pointerSchema, op: z.enum(["lte", "gte"]), value: z.number() }),
  z.strictObject({ path: pointerSchema, op: z.literal("in"), values: z.array(leafSchema).min(1).max(MAX_IN_VALUES) }),
]);
export type PinRequest = z.infer<typeof pinRequestSchema>;

/** A stored pin, read back (anything else fails the read: no pin must ever match by accident). */
export const pinSchema: z.ZodType<Pin> = z.union([
  z.strictObject({ path: z.string(), op: z.literal("eq"), value: leafSchema }),
  z.strictObject({ path: z.string(), op: z.literal("eq"), digest: z.string() }),
  z.strictObject({ path: z.string(), op: z.enum(["lte", "gte"]), value: z.number() }),
  z.strictObject({ path: z.string(), op: z.literal("in"), values: z.array(leafSchema) }),
]);

const isLeaf = (v: unknown): v is Leaf => v === null || ["string", "number", "boolean"].includes(typeof v);
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

export type PinsBuilt = { ok: true; pins: Pin[] } | { ok: false; message: string };

/**
 * The pins of a standing approval proposed from this request: each must hold
 * for the request itself (it is "calls like this one"). `storable` says
 * whether a value may be stored (no redaction rule would hide it).
 */
export function buildPins(view: unknown, hidden: readonly HiddenEntry[], requests: readonly PinRequest[], storable: (v: Leaf) => boolean): PinsBuilt {
  if (requests.length === 0) return { ok: false, message: "pin at least one argument value" };
  if (requests.length > MAX_PINS) return { ok: false, message: `at most ${MAX_PINS} pins` };
  const index = hiddenIndex(hidden);
  const pins: Pin[] = [];
  for (const r of requests) {
    const found = valueAt(view, index, r.path);
    if (!found.ok) return { ok: false, message: `${r.path} cannot be pinned: ${found.why}` };
    if (found.hiddenDigest !== null) {
      if (r.op !== "eq") return { ok: false, message: `${r.path} is redacted: it can only be pinned to the same value` };
      pins.push({ path: r.path, op: "eq", digest: found.hiddenDigest });
      continue;
    }
    if (!isLeaf(found.value)) return { ok: false, message: `${r.path} cannot be pinned: pin a single value, not an object or a list` };
    const value = found.value;
    if (r.op === "eq") pins.push({ path: r.path, op: "eq", value });
    else if (r.op === "in") {
      if (!r.values.every(storable)) return { ok: false, message: `${r.path}: a value in the list holds something a redaction rule hides` };
      if (!r.values.some((v) => same(v, value))) return { ok: false, message: `${r.path}: the list must include this request's value` };
      pins.push({ path: r.path, op: "in", values: [...r.values] });
    } else {
      if (typeof value !== "number") return { ok: false, message: `${r.path} is not a number, so it cannot be bounded` };
      if (r.op === "lte" ? value > r.value : value < r.value) {
        return { ok: false, message: `${r.path}: this request's value is outside the bound` };
      }
      pins.push({ path: r.path, op: r.op, value: r.value });
    }
  }
  return { ok: true, pins };
}

/** Does a request (its redacted arguments and what they hide) satisfy every pin? */
export function pinsMatch(pins: readonly Pin[], view: unknown, hidden: readonly HiddenEntry[]): boolean {
  if (pins.length === 0) return false;
  const index = hiddenIndex(hidden);
  return pins.every((pin) => {
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
      case "lte":
        return typeof v === "number" && v <= pin.value;
      case "gte":
        return typeof v === "number" && v >= pin.value;
    }
  });
}

/** A pin in words, for pages and the CLI: values as JSON, a redacted one never shown. */
export function pinWords(pin: Pin): string {
  if ("digest" in pin) return `${pin.path} is the same redacted value`;
  if (pin.op === "eq") return `${pin.path} = ${JSON.stringify(pin.value)}`;
  if (pin.op === "in") return `${pin.path} is one of ${pin.values.map((v) => JSON.stringify(v)).join(", ")}`;
  return `${pin.path} ${pin.op === "lte" ? "≤" : "≥"} ${pin.value}`;
}

export function parsePins(text: string): Pin[] | null {
  try {
    const parsed = z.array(pinSchema).safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** JSON Pointers of the single values a pin can name (redacted ones included), in document order, at most `limit`. */
export function pinnablePaths(view: unknown, hidden: readonly HiddenEntry[], limit = 300): string[] {
  const index = hiddenIndex(hidden);
  const out: string[] = [];
  const stack: Array<{ node: unknown; pointer: string }> = [{ node: view, pointer: "" }];
  while (stack.length && out.length < limit) {
    const { node, pointer } = stack.pop()!;
    if (index.keys.has(pointer)) continue;
    if (pointer && (index.values.has(pointer) || isLeaf(node))) {
      // Offered as text to pick: a path with invisible or direction-changing characters is left out.
      if (findingsOf(pointer).length === 0) out.push(pointer);
      continue;
    }
    const at = (seg: string | number) => pointer + formatJsonPointer([seg]);
    // At most `limit` children of any one container: nothing past them could be listed anyway.
    if (Array.isArray(node)) for (let i = Math.min(node.length, limit) - 1; i >= 0; i--) stack.push({ node: node[i], pointer: at(i) });
    else if (typeof node === "object" && node !== null) {
      const keys = Object.keys(node).slice(0, limit);
      for (let i = keys.length - 1; i >= 0; i--) stack.push({ node: (node as Record<string, unknown>)[keys[i]!], pointer: at(keys[i]!) });
    }
  }
  return out;
}
