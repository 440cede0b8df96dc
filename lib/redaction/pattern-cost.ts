// Upper bound on the work a backtracking regex engine can do for a pattern
// that passed the shape checks of pattern-shape.ts.

import { type CharSet, EMPTY, intersects, union } from "./charset";
import type { PatternNode } from "./pattern-parse";
import { firstSet, nullable } from "./pattern-shape";

// Cost model for a backtracking matcher at one start position:
//   c = upper bound on steps to explore every way the node can match,
//   w = upper bound on the number of ways it can succeed (end states),
// so a sequence A B costs c(A) + w(A) * c(B). `stuck` is the same pair when
// the next character cannot start the node (only zero-width paths remain).
// A repeat of a fixed-width, unambiguous body with max > 1 (ensured before)
// is tried at most max + 1 times and ends in max - min + 1 ways. When such a
// repeat is followed by something that cannot start with a character the
// repeat consumes, every backtracking position but the last is "stuck",
// which keeps `\w{1,64}@` linear instead of multiplying.
export type Cost = { c: number; w: number };

export function cost(node: PatternNode): Cost {
  switch (node.kind) {
    case "char":
    case "assert":
      return { c: 1, w: 1 };
    case "alt":
      return node.branches.map(cost).reduce((a, b) => ({ c: a.c + b.c, w: a.w + b.w }), { c: 0, w: 0 });
    case "seq":
      return seqCost(node.items);
    case "repeat": {
      if (node.max === 0) return { c: 1, w: 1 };
      const body = cost(node.body);
      if (node.max === 1) return node.min === 0 ? { c: body.c + 1, w: body.w + 1 } : body;
      return { c: (node.max + 1) * body.c, w: node.max - node.min + 1 };
    }
  }
}

function stuck(node: PatternNode): Cost {
  switch (node.kind) {
    case "char":
      return { c: 1, w: 0 };
    case "assert":
      return { c: 1, w: 1 };
    case "alt":
      return node.branches.map(stuck).reduce((a, b) => ({ c: a.c + b.c, w: a.w + b.w }), { c: 0, w: 0 });
    case "seq": {
      let acc: Cost = { c: 0, w: 1 };
      for (let k = node.items.length - 1; k >= 0; k--) {
        const s = stuck(node.items[k] as PatternNode);
        acc = { c: s.c + s.w * acc.c, w: s.w * acc.w };
      }
      return acc;
    }
    case "repeat": {
      if (node.max === 0) return { c: 1, w: 1 };
      const body = stuck(node.body);
      if (node.max === 1) return node.min === 0 ? { c: body.c + 1, w: body.w + 1 } : body;
      return node.min === 0 ? { c: body.c + 1, w: 1 } : { c: body.c, w: 0 };
    }
  }
}

function seqCost(items: PatternNode[]): Cost {
  let acc: Cost = { c: 0, w: 1 }; // cost of the rest of the sequence
  let restStuck: Cost = { c: 0, w: 1 };
  let restFirst: CharSet = EMPTY;
  for (let k = items.length - 1; k >= 0; k--) {
    const item = items[k] as PatternNode;
    const own = cost(item);
    const disjoint = item.kind === "repeat" && item.max > 1 && item.max > item.min && !intersects(firstSet(item.body), restFirst);
    const next: Cost =
      disjoint && item.kind === "repeat"
        ? { c: own.c + (item.max - item.min) * restStuck.c + acc.c, w: acc.w + (item.max - item.min) * restStuck.w }
        : { c: own.c + own.w * acc.c, w: own.w * acc.w };
    const s = stuck(item);
    restStuck = { c: s.c + s.w * restStuck.c, w: s.w * restStuck.w };
    restFirst = nullable(item) ? union(firstSet(item), restFirst) : firstSet(item);
    acc = next;
  }
  return acc;
}
