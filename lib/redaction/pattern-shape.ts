// Structural facts about a parsed pattern: how long its matches can be,
// whether it can match the empty text, which characters can start a match,
// and whether a repeated part can match the same text in more than one way
// (the shape that makes a backtracking engine explode).

import { type CharSet, EMPTY, intersects, union } from "./charset";
import type { PatternNode, RepeatNode } from "./pattern-parse";

export type Width = { min: number; max: number };

export function width(node: PatternNode): Width {
  switch (node.kind) {
    case "char":
      return { min: 1, max: 1 };
    case "assert":
      return { min: 0, max: 0 };
    case "seq":
      return node.items.map(width).reduce((a, b) => ({ min: a.min + b.min, max: a.max + b.max }), { min: 0, max: 0 });
    case "alt": {
      const ws = node.branches.map(width);
      return { min: Math.min(...ws.map((w) => w.min)), max: Math.max(...ws.map((w) => w.max)) };
    }
    case "repeat": {
      const w = width(node.body);
      return { min: w.min * node.min, max: node.max === 0 || w.max === 0 ? 0 : w.max * node.max };
    }
  }
}

export function* walk(node: PatternNode): Generator<PatternNode> {
  yield node;
  if (node.kind === "seq") for (const item of node.items) yield* walk(item);
  else if (node.kind === "alt") for (const branch of node.branches) yield* walk(branch);
  else if (node.kind === "repeat") yield* walk(node.body);
}

// For a fixed-width node: the set of characters allowed at each position.
function positionSets(node: PatternNode): CharSet[] {
  switch (node.kind) {
    case "char":
      return [node.set];
    case "assert":
      return [];
    case "seq":
      return node.items.flatMap(positionSets);
    case "alt": {
      const [first, ...rest] = node.branches.map(positionSets);
      return rest.reduce((acc, sets) => acc.map((s, k) => union(s, sets[k] ?? EMPTY)), first ?? []);
    }
    case "repeat": {
      const body = positionSets(node.body);
      return Array.from({ length: node.max }, () => body).flat();
    }
  }
}

function mayOverlap(a: CharSet[], b: CharSet[]): boolean {
  return a.length === b.length && a.every((s, k) => intersects(s, b[k] ?? EMPTY));
}

/** Reason a repeating quantifier's body is unsafe, if it is. */
export function repeatedBodyProblem(rep: RepeatNode): string | undefined {
  const w = width(rep.body);
  if (w.max === 0) return `"${rep.text}" repeats an empty or zero-width group`;
  if (w.min !== w.max) {
    const inner = [...walk(rep.body)].find((n): n is RepeatNode => n.kind === "repeat" && width(n).min !== width(n).max);
    if (inner)
      return `nested quantifier: "${rep.text}" repeats a group containing "${inner.text}" (like (a+)+ or (.*)*), which can backtrack catastrophically; unroll the group or use a single quantifier`;
    return `"${rep.text}" repeats alternatives of different lengths (like (a|ab)*), which can backtrack catastrophically`;
  }
  for (const n of walk(rep.body)) {
    if (n.kind !== "alt") continue;
    const sets = n.branches.map(positionSets);
    for (let a = 0; a < sets.length; a++)
      for (let b = a + 1; b < sets.length; b++)
        if (mayOverlap(sets[a] as CharSet[], sets[b] as CharSet[]))
          return `"${rep.text}" repeats alternatives that can match the same text (like (a|a)* or (\\w|\\d)*), which can backtrack catastrophically; use a character class`;
  }
  return undefined;
}

export function nullable(node: PatternNode): boolean {
  switch (node.kind) {
    case "char":
      return false;
    case "assert":
      return true;
    case "seq":
      return node.items.every(nullable);
    case "alt":
      return node.branches.some(nullable);
    case "repeat":
      return node.min === 0 || nullable(node.body);
  }
}

export function firstSet(node: PatternNode): CharSet {
  switch (node.kind) {
    case "char":
      return node.set;
    case "assert":
      return EMPTY;
    case "seq": {
      let set: CharSet = EMPTY;
      for (const item of node.items) {
        set = union(set, firstSet(item));
        if (!nullable(item)) break;
      }
      return set;
    }
    case "alt":
      return node.branches.map(firstSet).reduce(union, EMPTY);
    case "repeat":
      return node.max === 0 ? EMPTY : firstSet(node.body);
  }
}
