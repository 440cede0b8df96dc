// Search within a request's arguments (the decision page's search box): every
// key and value whose shown text (as revealed: escapes such as ⟨U+202E⟩, JSON
// escapes, no quotes) contains the query, case-insensitively, anywhere in the
// arguments, not only in the first bounded render. The answer is a tree of
// just the matches and the containers leading to them, each node carrying its
// position (`i`) so the page can fetch more of it by path; bounded like a page.
// Iterative: nesting depth is not limited by the stack.
import { keyView, leafView, LIMITS, type BranchView, type Json, type Limits, type NodeView } from "./bounded-tree";
import { isPlainAscii, reveal } from "./reveal";

export const SEARCH_LIMITS = { matches: 100, nodes: LIMITS.nodes };

export type SearchResult = {
  /** Nodes whose key or value matches, in the whole arguments. */
  total: number;
  /** Matches in `tree` (the first ones in document order, within the bounds). */
  shown: number;
  tree: BranchView;
};

/** The text a reviewer reads for a key or string value, without quotes. */
export function shownText(s: string): string {
  if (isPlainAscii(s)) return JSON.stringify(s).slice(1, -1);
  return reveal(s, { json: true, openQuote: false, closeQuote: false }).text;
}

const scalarText = (v: Exclude<Json, object>) => (typeof v === "string" ? shownText(v) : String(v));

type Visit = { value: Json; key: string | number | null; parent: Visit | null; pos: number };

const container = (v: Json): v is Json[] | { [k: string]: Json } => v !== null && typeof v === "object";

/** The matches of `query` in `args`, as a pruned display tree. */
export function searchArguments(args: Json, query: string, limits: Limits = LIMITS, bounds = SEARCH_LIMITS): SearchResult {
  const q = query.toLowerCase();
  const hits: Visit[] = [];
  let total = 0;
  // Depth first, in document order (children pushed in reverse).
  const stack: Visit[] = container(args) ? [{ value: args, key: null, parent: null, pos: -1 }] : [];
  while (stack.length) {
    const at = stack.pop()!;
    if (at.parent) {
      const keyHit = typeof at.key === "string" && shownText(at.key).toLowerCase().includes(q);
      const valueHit = !container(at.value) && scalarText(at.value).toLowerCase().includes(q);
      if (keyHit || valueHit) {
        total += 1;
        if (hits.length < bounds.matches) hits.push(at);
      }
    }
    if (!container(at.value)) continue;
    const entries: Array<[string | number, Json]> = Array.isArray(at.value) ? at.value.map((v, i) => [i, v]) : Object.entries(at.value);
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], key: entries[i]![0], parent: at, pos: i });
  }
  return { total, ...prunedTree(args, hits, limits, bounds.nodes) };
}

/** The root with only the hits and their ancestors, within a node budget. */
function prunedTree(args: Json, hits: Visit[], limits: Limits, budget: number): { shown: number; tree: BranchView } {
  const size = (v: Json) => (Array.isArray(v) ? v.length : container(v) ? Object.keys(v).length : 0);
  const tree: BranchView = { k: "branch", key: null, type: Array.isArray(args) ? "array" : "object", size: size(args), children: [], partial: true };
  const made = new Map<Visit, BranchView>();
  let nodes = 0;
  let shown = 0;
  for (const hit of hits) {
    // The chain from the root's child down to the hit; ancestors already made are reused.
    const chain: Visit[] = [];
    for (let v: Visit | null = hit; v && v.parent; v = v.parent) chain.push(v);
    chain.reverse();
    const fresh = chain.filter((v) => !made.has(v)).length;
    if (nodes + fresh > budget) break;
    nodes += fresh;
    shown += 1;
    let into = tree;
    for (const v of chain) {
      const existing = made.get(v);
      if (existing) {
        into = existing;
        continue;
      }
      const key = typeof v.key === "number" ? v.key : keyView(v.key!, limits.keyHead);
      if (container(v.value)) {
        const branch: BranchView = {
          k: "branch",
          i: v.pos,
          key,
          type: Array.isArray(v.value) ? "array" : "object",
          size: size(v.value),
          children: [],
          partial: true,
        };
        made.set(v, branch);
        into.children.push(branch);
        into = branch;
      } else {
        into.children.push({ ...leafView(key, v.value as Exclude<Json, object>, limits.stringHead), i: v.pos });
      }
    }
  }
  return { shown, tree };
}

/** Every node of a display tree, depth first (for tests and counts). */
export function* walkNodes(root: BranchView): Generator<NodeView> {
  const stack: NodeView[] = [...root.children].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    yield n;
    if (n.k === "branch") for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
}
