// The decision page's argument viewer keeps the display tree it has loaded so
// far (lib/display/bounded-tree) and grows it as pages arrive: these are the
// pure steps (no React), shared by the viewer and its tests. Paths are child
// positions, as in the arguments route; a search result's containers list
// only some children, each with its position `i`. Iterative throughout.
import type { BranchView, KeyView, NodeView } from "./bounded-tree";
import type { Segment } from "./reveal";

/** Containers with more children than this start collapsed, showing their count. */
export const COLLAPSE_OVER = 20;
/** Containers this deep (the root's children are at depth 1) start collapsed. */
export const OPEN_DEPTH = 2;

export const pathKey = (path: readonly number[]) => path.join(".");

/** Whether a container starts open. */
export const openByDefault = (depth: number, size: number) => size > 0 && size <= COLLAPSE_OVER && depth <= OPEN_DEPTH;

/** "42 items", "1 key". */
export function countLabel(type: "array" | "object", size: number): string {
  const word = type === "array" ? "item" : "key";
  return `${size.toLocaleString("en-US")} ${word}${size === 1 ? "" : "s"}`;
}

/** The child at position `pos` of a container (by `i` where only some children are listed). */
function childIndex(branch: BranchView, pos: number): number {
  return branch.partial ? branch.children.findIndex((c) => c.i === pos) : pos < branch.children.length ? pos : -1;
}

/** A copy of the tree with the node at `path` replaced by `change(node)`; unchanged when the path leads nowhere. */
function update(root: BranchView, path: readonly number[], change: (n: NodeView) => NodeView): BranchView {
  const chain: BranchView[] = [root];
  const at: number[] = [];
  for (let d = 0; d < path.length; d++) {
    const parent = chain[d]!;
    const idx = childIndex(parent, path[d]!);
    if (idx < 0) return root;
    at.push(idx);
    const child = parent.children[idx]!;
    if (d < path.length - 1) {
      if (child.k !== "branch") return root;
      chain.push(child);
    } else {
      // Rebuild from the changed node up to the root.
      let node = change(child);
      for (let u = d; u >= 0; u--) {
        const p = chain[u]!;
        const children = p.children.slice();
        children[at[u]!] = node;
        node = { ...p, children };
      }
      return node as BranchView;
    }
  }
  const changed = change(root);
  return changed.k === "branch" ? changed : root;
}

/** The container at `path` with a page of children added (`from`: where the page starts). */
export function addChildren(root: BranchView, path: readonly number[], from: number, children: readonly NodeView[]): BranchView {
  return update(root, path, (n) => {
    if (n.k !== "branch") return n;
    // A search result's container loads all its children from the start, then is whole.
    if (n.partial) return from === 0 ? { ...n, partial: false, children: [...children] } : n;
    if (from !== n.children.length) return n; // a page that arrived twice or out of order
    return { ...n, children: [...n.children, ...children] };
  });
}

/** The string (or key) at `path` with more text added; `next`: where the rest starts, or null when whole. */
export function addText(
  root: BranchView,
  path: readonly number[],
  part: "value" | "key",
  segments: readonly Segment[],
  next: number | null,
): BranchView {
  const grow = <T extends { segments: Segment[]; rest: number; at: number }>(v: T): T => {
    const end = next ?? v.at + v.rest;
    return { ...v, segments: [...v.segments, ...segments], rest: v.at + v.rest - end, at: end };
  };
  return update(root, path, (n) => {
    if (part === "key") return n.key !== null && typeof n.key === "object" ? { ...n, key: grow<KeyView>(n.key) } : n;
    return n.k === "leaf" ? grow(n) : n;
  });
}

export type Unloaded = { path: number[]; from: number; remaining: number; type: "array" | "object" };

/** Containers with children not loaded yet, shallowest first (search results' partial containers excluded). */
export function unloaded(root: BranchView): Unloaded[] {
  const out: Unloaded[] = [];
  const queue: Array<{ node: BranchView; path: number[] }> = [{ node: root, path: [] }];
  for (let q = 0; q < queue.length; q++) {
    const { node, path } = queue[q]!;
    if (!node.partial && node.children.length < node.size)
      out.push({ path, from: node.children.length, remaining: node.size - node.children.length, type: node.type });
    node.children.forEach((c, idx) => {
      if (c.k === "branch") queue.push({ node: c, path: [...path, c.i ?? idx] });
    });
  }
  return out;
}

/** What is still not loaded, in words: "1,234 items and 5 keys in 3 containers", or null. */
export function notLoadedText(root: BranchView): string | null {
  const rest = unloaded(root);
  if (rest.length === 0) return null;
  const items = rest.filter((u) => u.type === "array").reduce((n, u) => n + u.remaining, 0);
  const keys = rest.filter((u) => u.type === "object").reduce((n, u) => n + u.remaining, 0);
  const parts = [items > 0 ? countLabel("array", items) : null, keys > 0 ? countLabel("object", keys) : null].filter(Boolean);
  return `${parts.join(" and ")} in ${rest.length.toLocaleString("en-US")} container${rest.length === 1 ? "" : "s"}`;
}

/** Pieces of a text with the (case-insensitive) query's occurrences marked. */
export function highlight(text: string, query: string): Array<{ text: string; hit: boolean }> {
  const q = query.toLowerCase();
  if (!q) return [{ text, hit: false }];
  const lower = text.toLowerCase();
  // Lower-casing can change lengths (rare letters): then mark nothing rather than the wrong span.
  if (lower.length !== text.length) return [{ text, hit: false }];
  const out: Array<{ text: string; hit: boolean }> = [];
  let at = 0;
  for (let found = lower.indexOf(q); found >= 0; found = lower.indexOf(q, found + q.length)) {
    if (found > at) out.push({ text: text.slice(at, found), hit: false });
    out.push({ text: text.slice(found, found + q.length), hit: true });
    at = found + q.length;
  }
  if (at < text.length) out.push({ text: text.slice(at), hit: false });
  return out;
}
