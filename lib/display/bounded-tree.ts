// Bounded rendering (docs/security.md): the arguments as a display tree of at most
// a fixed number of nodes and characters, whatever their size. Containers show
// their first children and how many more there are; long strings show their
// start and how many characters are left; the rest is fetched on demand, a
// page at a time, by path (GET /api/approvals/{id}/arguments). Every key and
// value is already revealed (lib/display/reveal), so the client only renders.
//
// A path is a list of child positions (array index, or position among an
// object's keys in JSON.parse order), so a long or odd key never ends up in a
// URL. Everything here is iterative: nesting depth is not limited by the stack.
import { findingsOf, flagReason, reveal, segmentText, type Segment } from "./reveal";

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** `rest`: code points not shown yet (0 when whole); `at`: where they start. */
export type KeyView = { segments: Segment[]; flag: string | null; rest: number; at: number };
/** `i`: the node's position in its container, set where a container shows only some children (search results). */
export type LeafView = {
  k: "leaf";
  i?: number;
  key: KeyView | number | null;
  type: "string" | "number" | "boolean" | "null";
  segments: Segment[];
  flag: string | null;
  redacted: boolean;
  /** Code points of the string not shown yet (0 when it is whole), and where they start. */
  rest: number;
  at: number;
};
export type BranchView = {
  k: "branch";
  i?: number;
  /** Only some children, each with its `i` (search results); the others are not counted as "more". */
  partial?: boolean;
  key: KeyView | number | null;
  type: "array" | "object";
  size: number;
  /** The first children; the others (size - children.length) come on demand. */
  children: NodeView[];
};
export type NodeView = LeafView | BranchView;

export const LIMITS = {
  /** Nodes in one render (the first one, or one page fetched on demand). */
  nodes: 300,
  /** Characters of text in one render. */
  chars: 30_000,
  /** Children shown per container in one render. */
  children: 50,
  /** Code points of a string (and of a key) shown before "… N more characters". */
  stringHead: 200,
  keyHead: 200,
  /** Code points per page when the rest of a long string is fetched. */
  stringPage: 4_000,
  /** Levels below the starting point shown open in one render. */
  depth: 12,
};
export type Limits = typeof LIMITS;

const codePoints = (s: string) => Array.from(s);
const textLength = (segments: Segment[]) => segments.reduce((n, s) => n + segmentText(s).length, 0);

export function keyView(key: string, head: number): KeyView {
  const cps = key.length > head ? codePoints(key) : null;
  const shown = cps && cps.length > head ? cps.slice(0, head).join("") : key;
  const plain = /^[\p{L}\p{N}_$.-]+$/u.test(key) && key === shown;
  // Whole value flagged; only the head revealed. Odd keys are shown quoted, like JSON.
  if (shown === key) {
    const r = reveal(key, { json: !plain });
    return { segments: r.segments, flag: flagReason(r.findings), rest: 0, at: 0 };
  }
  const r = reveal(shown, { json: true, closeQuote: false });
  return { segments: r.segments, flag: flagReason(findingsOf(key, { json: true })), rest: cps!.length - head, at: head };
}

export function leafView(key: KeyView | number | null, value: Exclude<Json, object> | null, head: number): LeafView {
  if (typeof value !== "string") {
    const type = value === null ? "null" : (typeof value as "number" | "boolean");
    return { k: "leaf", key, type, segments: [{ t: String(value) }], flag: null, redacted: false, rest: 0, at: 0 };
  }
  const cps = value.length > head ? codePoints(value) : null;
  const truncated = cps !== null && cps.length > head;
  const shown = truncated ? reveal(cps.slice(0, head).join(""), { json: true, closeQuote: false }) : reveal(value, { json: true });
  return {
    k: "leaf",
    key,
    type: "string",
    segments: shown.segments,
    flag: flagReason(truncated ? findingsOf(value, { json: true }) : shown.findings),
    redacted: value.startsWith("[redacted:"),
    rest: truncated ? cps.length - head : 0,
    at: truncated ? head : 0,
  };
}

const entriesOf = (v: Json[] | { [k: string]: Json }, from: number, count: number): Array<[string | number, Json]> =>
  Array.isArray(v)
    ? v.slice(from, from + count).map((x, i) => [from + i, x])
    : Object.keys(v)
        .slice(from, from + count)
        .map((k) => [k, v[k]!]);

/**
 * Children `from`… of a container as display nodes, breadth first within the
 * budget: every shown container lists its first children before any grandchild
 * is expanded, so the top of the tree is always visible.
 */
export function childrenPage(
  container: Json[] | { [k: string]: Json },
  from: number,
  limits: Limits = LIMITS,
): { children: NodeView[]; next: number | null } {
  const budget = { nodes: limits.nodes, chars: limits.chars };
  const size = Array.isArray(container) ? container.length : Object.keys(container).length;
  const out: NodeView[] = [];
  type Job = { source: Json[] | { [k: string]: Json }; from: number; into: NodeView[]; depth: number };
  const queue: Job[] = [{ source: container, from, into: out, depth: 0 }];
  for (let q = 0; q < queue.length; q++) {
    const job = queue[q]!;
    if (budget.nodes <= 0 || budget.chars <= 0 || job.depth > limits.depth) continue; // shown collapsed; fetched on demand
    for (const [name, value] of entriesOf(job.source, job.from, limits.children)) {
      if (budget.nodes <= 0 || budget.chars <= 0) break;
      const key = typeof name === "number" ? name : keyView(name, limits.keyHead);
      budget.nodes -= 1;
      if (typeof key !== "number") budget.chars -= textLength(key.segments);
      if (value !== null && typeof value === "object") {
        const branch: BranchView = {
          k: "branch",
          key,
          type: Array.isArray(value) ? "array" : "object",
          size: Array.isArray(value) ? value.length : Object.keys(value).length,
          children: [],
        };
        job.into.push(branch);
        if (branch.size > 0) queue.push({ source: value, from: 0, into: branch.children, depth: job.depth + 1 });
      } else {
        const leaf = leafView(key, value, limits.stringHead);
        budget.chars -= textLength(leaf.segments) + (leaf.flag?.length ?? 0);
        if (typeof key !== "number") budget.chars -= key.flag?.length ?? 0;
        job.into.push(leaf);
      }
    }
  }
  const next = from + out.length;
  return { children: out, next: next < size ? next : null };
}

/** The whole first render: the root (an object) with its bounded children. */
export function firstRender(args: Json, limits: Limits = LIMITS): BranchView {
  if (args === null || typeof args !== "object") return { k: "branch", key: null, type: "object", size: 0, children: [] };
  const { children } = childrenPage(args, 0, limits);
  return {
    k: "branch",
    key: null,
    type: Array.isArray(args) ? "array" : "object",
    size: Array.isArray(args) ? args.length : Object.keys(args).length,
    children,
  };
}

export type Target = { kind: "container"; value: Json[] | { [k: string]: Json } } | { kind: "string"; value: string } | { kind: "other" };

/** The value at a path of child positions, or null when the path leads nowhere. With `key`, the last step's key. */
export function resolvePath(root: Json, path: readonly number[], key = false): Target | null {
  let at: Json = root;
  let lastKey: string | null = null;
  for (const step of path) {
    if (at === null || typeof at !== "object") return null;
    if (Array.isArray(at)) {
      if (step >= at.length) return null;
      at = at[step]!;
      lastKey = null;
    } else {
      const keys = Object.keys(at);
      if (step >= keys.length) return null;
      lastKey = keys[step]!;
      at = at[lastKey]!;
    }
  }
  if (key) return lastKey === null ? null : { kind: "string", value: lastKey };
  if (at !== null && typeof at === "object") return { kind: "container", value: at };
  return typeof at === "string" ? { kind: "string", value: at } : { kind: "other" };
}

/** A page of a long string (or key) from code point `from`, revealed; the closing quote comes with the last page. */
export function stringPage(s: string, from: number, limits: Limits = LIMITS): { segments: Segment[]; next: number | null } {
  const cps = codePoints(s);
  const end = Math.min(from + limits.stringPage, cps.length);
  const last = end >= cps.length;
  const r = reveal(cps.slice(from, end).join(""), { json: true, openQuote: false, closeQuote: last });
  return { segments: r.segments, next: last ? null : end };
}

/** Whether a render left anything out: a container with unshown children, or a string or key cut short. */
export function isTruncated(node: NodeView): boolean {
  if (node.key !== null && typeof node.key !== "number" && node.key.rest > 0) return true;
  if (node.k === "leaf") return node.rest > 0;
  if (!node.partial && node.children.length < node.size) return true;
  return node.children.some(isTruncated);
}
