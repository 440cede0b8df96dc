// The comparison behind revisions (docs/revisions.md). A "sealed view" is
// the redacted copy of a request's arguments with every hidden part replaced
// by its keyed digest: two sealed views are equal exactly when the shown
// values are equal and the hidden ones have equal digests. A revision
// matches its proposal when its sealed view equals the original's with the
// proposed patch applied.
//
// Encoding, so that no shown value can pass for a hidden one: a hidden value
// is {"#": digest}; an object's keys are "v:" + key when shown and
// "h:" + digest when hidden; arrays and shown primitives are as they are.
import canonicalize from "canonicalize";
import { applyJsonPatch, formatJsonPointer, type JsonPatch, type JsonPatchHooks } from "@countersign/client";
import type { HiddenEntry } from "./hidden-values";

const MARK = "#";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const own = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);
const setOwn = (o: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });

export function sealView(view: unknown, hidden: readonly HiddenEntry[]): unknown {
  const keys = new Map<string, string>();
  const values = new Map<string, string>();
  for (const [pointer, kind, digest] of hidden) (kind === "k" ? keys : values).set(pointer, digest);
  const seal = (node: unknown, pointer: string): unknown => {
    const digest = values.get(pointer);
    if (digest !== undefined) return { [MARK]: digest };
    if (Array.isArray(node)) return node.map((child, i) => seal(child, `${pointer}/${i}`));
    if (!isObject(node)) return node;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(node)) {
      const at = pointer + formatJsonPointer([key]);
      const hiddenKey = keys.get(at);
      setOwn(out, hiddenKey === undefined ? `v:${key}` : `h:${hiddenKey}`, seal(node[key], at));
    }
    return out;
  };
  return seal(view, "");
}

/** A value a reviewer wrote, sealed: everything in it is shown. */
function sealShown(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sealShown);
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(out, `v:${key}`, sealShown(value[key]));
  return out;
}

const isHiddenValue = (node: unknown) => isObject(node) && own(node, MARK);

function holdsHidden(node: unknown): boolean {
  if (isHiddenValue(node)) return true;
  if (Array.isArray(node)) return node.some(holdsHidden);
  if (!isObject(node)) return false;
  return Object.keys(node).some((k) => k.startsWith("h:") || holdsHidden(node[k]));
}

/** Patch hooks on a sealed view: paths name shown keys only, and nothing hidden can be changed or gone through. */
export const SEALED_PATCH_HOOKS: JsonPatchHooks = {
  key: (segment) => `v:${segment}`,
  value: sealShown,
  check(node, role) {
    if (isHiddenValue(node)) throw new Error(role === "through" ? "the path goes through a redacted value" : "a redacted value cannot be changed");
    if (role === "target" && holdsHidden(node)) throw new Error("the value holds redacted values, which cannot be changed");
  },
};

/** The sealed view a revision must have: the original's with the patch applied (throws JsonPatchError). */
export function expectedSealedView(originalView: unknown, originalHidden: readonly HiddenEntry[], patch: JsonPatch): unknown {
  return applyJsonPatch(sealView(originalView, originalHidden), patch, SEALED_PATCH_HOOKS);
}

export const sameSealedView = (a: unknown, b: unknown) => canonicalize(a) === canonicalize(b);

/**
 * Where two sealed views differ, as JSON Pointers into the views (a hidden
 * key reads "(redacted key)"), at most `limit` of them. Names no values.
 */
export function sealedDifferences(expected: unknown, actual: unknown, limit = 10): string[] {
  const found: string[] = [];
  const segment = (key: string) => (key.startsWith("v:") ? key.slice(2) : "(redacted key)");
  const walk = (a: unknown, b: unknown, path: string[]) => {
    if (found.length >= limit) return;
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length) && found.length < limit; i++) {
        if (i >= a.length || i >= b.length) found.push(formatJsonPointer([...path, String(i)]));
        else walk(a[i], b[i], [...path, String(i)]);
      }
      return;
    }
    if (isObject(a) && isObject(b) && !isHiddenValue(a) && !isHiddenValue(b)) {
      const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
      for (const key of keys) {
        if (found.length >= limit) return;
        if (!own(a, key) || !own(b, key)) found.push(formatJsonPointer([...path, segment(key)]));
        else walk(a[key], b[key], [...path, segment(key)]);
      }
      return;
    }
    if (canonicalize(a) !== canonicalize(b)) found.push(formatJsonPointer(path));
  };
  walk(expected, actual, []);
  return found;
}
