// The first lines of a request's arguments, for the top of its page (the
// "what will run" card): the arguments as an indented listing, one line per
// key or item (a container shows its count, its entries follow on their own
// lines), depth first, at most a few lines, each value's start revealed and
// flagged like in the tree below it (lib/display/bounded-tree). `more` counts
// the lines left out, so the card can say "and 1,203 more lines".
import { keyView, leafView, type Json, type KeyView, type LeafView } from "./bounded-tree";

export type GlanceLine =
  | { depth: number; kind: "leaf"; leaf: LeafView }
  | { depth: number; kind: "branch"; key: KeyView | number | null; type: "array" | "object"; size: number };

export type ArgumentGlance = { lines: GlanceLine[]; more: number; total: number };

/** Lines of the card, by default. */
export const GLANCE_LINES = 6;
/** Code points of a key or value a line shows (it is one screen line; the tree below has the rest). */
const GLANCE_HEAD = 80;

const entriesOf = (v: Json[] | { [k: string]: Json }): Array<[string | number, Json]> =>
  Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);

/** The first `max` lines of `args` and how many more there are (every key and item counts as one line). */
export function argumentGlance(args: Json, max = GLANCE_LINES): ArgumentGlance {
  const lines: GlanceLine[] = [];
  let total = 0;
  if (args === null || typeof args !== "object") return { lines, more: 0, total };
  // Iterative, depth first in document order: nesting depth is not limited by the stack.
  const stack: Array<[string | number, Json, number]> = entriesOf(args)
    .reverse()
    .map(([k, v]) => [k, v, 0]);
  while (stack.length > 0) {
    const [name, value, depth] = stack.pop()!;
    total += 1;
    const container = value !== null && typeof value === "object";
    if (lines.length < max) {
      const key = typeof name === "number" ? name : keyView(name, GLANCE_HEAD);
      if (container) {
        const size = Array.isArray(value) ? value.length : Object.keys(value).length;
        lines.push({ depth, kind: "branch", key, type: Array.isArray(value) ? "array" : "object", size });
      } else lines.push({ depth, kind: "leaf", leaf: leafView(key, value, GLANCE_HEAD) });
    }
    if (container) {
      const children = entriesOf(value);
      for (let i = children.length - 1; i >= 0; i--) stack.push([children[i]![0], children[i]![1], depth + 1]);
    }
  }
  return { lines, more: total - lines.length, total };
}
