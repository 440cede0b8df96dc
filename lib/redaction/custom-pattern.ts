// Validation of admin-defined redaction patterns.
//
// Approach (why not V8's linear-time engine): Node 20 can run a regex in
// linear time per exec with the `l` flag, but only after the process-wide
// V8 flag `--enable-experimental-regexp-engine` is set (Node documents
// setting V8 flags after start-up as unpredictable), the engine is
// experimental, rejects the `i` flag, and a global replace can still be
// quadratic (each exec is linear but `a.*b|a` scans to the end of the text
// for every one-character match: measured > 60 s on 200 KiB). So this
// module keeps the ordinary engine and only accepts a conservative subset
// whose worst-case backtracking is provably bounded:
//
//   1. The pattern is parsed by the strict parser below. Anything it does not
//      understand is rejected; backreferences, lookarounds, `\p{..}`, `\c`,
//      octal escapes and unescaped `{ } ]` are rejected explicitly.
//   2. A quantifier that can repeat more than once must apply to something
//      of fixed length that can match a given text in only one way: no
//      nested variable quantifiers (`(a+)+`, `(.*)*`, `(\d{1,3}\.){3}`), no
//      alternatives of different lengths (`(a|ab)*`), no overlapping
//      alternatives (`(a|a)*`, `(\w|\d)*`). This removes exponential cases.
//   3. Every quantifier needs an upper bound (`{1,64}` instead of `+`), at
//      most MAX_REPEAT: even `\w+x` is quadratic on a long word, because a
//      global scan restarts at every position and rescans the word.
//   4. With 1-3 in place, the number of steps a backtracking engine can take
//      from one start position is bounded by a computable cost (see `cost`);
//      the pattern is rejected when it exceeds COST_BUDGET. A scan of a text
//      of n characters then costs at most about n * COST_BUDGET steps
//      (measured: patterns at the budget take 0.2-0.5 s on 200 KiB of their
//      worst input on a loaded 2-core machine).
//   5. The pattern must not match the empty text (it would tag every gap).
//
// Patterns are compiled with the `g` flag only: case-sensitive, `.` does not
// match line breaks, `^`/`$` are the start/end of each string.

import { type CharSet, DIGIT, DOT, EMPTY, SPACE, WORD, charSet, complement, intersects, single, union } from "./charset";
import { RESERVED_RULE_NAMES } from "./names";

export const CUSTOM_RULE_NAME_RE = /^[a-z][a-z0-9_]{0,39}$/;
export const MAX_PATTERN_LENGTH = 500;
/** Largest allowed bound in `{n}` / `{n,m}`. */
export const MAX_REPEAT = 128;
/** Longest text a custom pattern may match. */
export const MAX_MATCH_LENGTH = 4096;
/** Worst-case backtracking steps from one start position. */
export const COST_BUDGET = 300;

export type PatternCheck =
  | { ok: true; /** Shortest text the pattern can match (at least 1). */ minLength: number }
  | { ok: false; field: "name" | "pattern"; message: string };

type Node =
  | { kind: "char"; set: CharSet }
  | { kind: "assert" }
  | { kind: "seq"; items: Node[] }
  | { kind: "alt"; branches: Node[] }
  | { kind: "repeat"; body: Node; min: number; max: number; text: string };

class PatternError extends Error {}

const fail = (message: string): never => {
  throw new PatternError(message);
};

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";
const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);
const isAsciiAlnum = (c: string) => /^[A-Za-z0-9]$/.test(c);

const LOOKAROUND_MESSAGE = "lookahead/lookbehind groups are not allowed (they can make matching slow); match the text itself instead";
const BACKREF_MESSAGE = "backreferences (\\1, \\k<name>) are not allowed: they can make matching exponentially slow";

// Parser for the accepted subset of JavaScript regex syntax (no `u` flag).
function parse(src: string): Node {
  let i = 0;

  const parseDisjunction = (): Node => {
    const branches = [parseAlternative()];
    while (src[i] === "|") {
      i++;
      branches.push(parseAlternative());
    }
    return branches.length === 1 ? (branches[0] as Node) : { kind: "alt", branches };
  };

  const parseAlternative = (): Node => {
    const items: Node[] = [];
    while (i < src.length && src[i] !== "|" && src[i] !== ")") {
      const start = i;
      const atom = parseAtom();
      const quantifier = parseQuantifier();
      if (!quantifier) {
        items.push(atom.node);
        continue;
      }
      if (!atom.quantifiable) fail(`quantifier after an assertion at position ${start + 1}`);
      items.push({ kind: "repeat", body: atom.node, min: quantifier.min, max: quantifier.max, text: src.slice(start, i) });
    }
    return items.length === 1 ? (items[0] as Node) : { kind: "seq", items };
  };

  const parseQuantifier = (): { min: number; max: number } | undefined => {
    const c = src[i];
    let min: number;
    let max: number;
    if (c === "*") [min, max] = [0, Infinity];
    else if (c === "+") [min, max] = [1, Infinity];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(i, i + 32));
      if (!m) return fail(`unescaped "{" at position ${i + 1} (write \\{ for a literal brace)`);
      min = toBound(m[1] as string);
      max = m[2] === undefined ? min : m[3] === "" ? Infinity : toBound(m[3] as string);
      if (max < min) fail(`quantifier ${m[0]} has its bounds in the wrong order`);
      i += m[0].length - 1;
    } else return undefined;
    i++;
    if (src[i] === "?") i++; // lazy: same worst case as greedy
    return { min, max };
  };

  // Numbers beyond the limit only need to be recognised as too large.
  const toBound = (digits: string) => (digits.length > 6 ? 10_000_000 : Number(digits));

  const parseAtom = (): { node: Node; quantifiable: boolean } => {
    const c = src[i] as string;
    switch (c) {
      case "^":
      case "$":
        i++;
        return { node: { kind: "assert" }, quantifiable: false };
      case ".":
        i++;
        return { node: { kind: "char", set: DOT }, quantifiable: true };
      case "(":
        return { node: parseGroup(), quantifiable: true };
      case "[":
        return { node: { kind: "char", set: parseClass() }, quantifiable: true };
      case "*":
      case "+":
      case "?":
        return fail(`nothing to repeat before "${c}" at position ${i + 1}`);
      case "{":
      case "}":
      case "]":
        return fail(`unescaped "${c}" at position ${i + 1} (write \\${c} for a literal)`);
      case "\\": {
        const next = src[i + 1];
        if (next === "b" || next === "B") {
          i += 2;
          return { node: { kind: "assert" }, quantifiable: false };
        }
        i++;
        return { node: { kind: "char", set: parseEscape(false) }, quantifiable: true };
      }
      default:
        i++;
        return { node: { kind: "char", set: single(c.charCodeAt(0)) }, quantifiable: true };
    }
  };

  const parseGroup = (): Node => {
    i++; // (
    if (src[i] === "?") {
      const head = src.slice(i, i + 3);
      if (head.startsWith("?:")) i += 2;
      else if (head.startsWith("?=") || head.startsWith("?!") || head === "?<=" || head === "?<!") fail(LOOKAROUND_MESSAGE);
      else if (head.startsWith("?<")) {
        const m = /^\?<([A-Za-z_$][A-Za-z0-9_$]*)>/.exec(src.slice(i, i + 64));
        if (!m) fail(`unsupported group name at position ${i}`);
        i += (m as RegExpExecArray)[0].length;
      } else fail(`unsupported group syntax "(${head}" at position ${i}`);
    }
    const body = parseDisjunction();
    if (src[i] !== ")") fail("missing closing parenthesis");
    i++;
    return body;
  };

  // After the backslash. Returns the set of characters the escape matches.
  const parseEscape = (inClass: boolean): CharSet => {
    const c = src[i];
    if (c === undefined) return fail("pattern ends with a backslash");
    i++;
    switch (c) {
      case "d":
        return DIGIT;
      case "D":
        return complement(DIGIT);
      case "w":
        return WORD;
      case "W":
        return complement(WORD);
      case "s":
        return SPACE;
      case "S":
        return complement(SPACE);
      case "t":
        return single(0x09);
      case "n":
        return single(0x0a);
      case "v":
        return single(0x0b);
      case "f":
        return single(0x0c);
      case "r":
        return single(0x0d);
      case "b": // only reached inside a class: backspace
        return single(0x08);
      case "0":
        if (isDigit(src[i])) return fail("octal escapes are not supported");
        return single(0);
      case "x": {
        const hex = src.slice(i, i + 2);
        if (hex.length < 2 || !isHex(hex[0]) || !isHex(hex[1])) return fail("\\x must be followed by two hex digits");
        i += 2;
        return single(parseInt(hex, 16));
      }
      case "u": {
        const hex = src.slice(i, i + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) return fail("\\u must be followed by four hex digits (\\u{...} needs the unsupported u flag)");
        i += 4;
        return single(parseInt(hex, 16));
      }
      case "k":
        return fail(BACKREF_MESSAGE);
      case "p":
      case "P":
        return fail("\\p{...} property escapes are not supported (they need the u flag)");
      case "c":
        return fail("\\c control escapes are not supported");
      default:
        if (isDigit(c)) return fail(inClass ? "octal escapes are not supported" : BACKREF_MESSAGE);
        if (isAsciiAlnum(c)) return fail(`unknown escape "\\${c}"`);
        return single(c.charCodeAt(0)); // \. \- \/ \[ ...
    }
  };

  const parseClass = (): CharSet => {
    i++; // [
    let negate = false;
    if (src[i] === "^") {
      negate = true;
      i++;
    }
    let set: CharSet = EMPTY;
    // One class atom: a single character (code) or a class escape (set).
    const classAtom = (): { code?: number; set: CharSet } => {
      const c = src[i];
      if (c === undefined) return fail("missing closing bracket");
      if (c === "\\") {
        i++;
        const escaped = src[i];
        const s = parseEscape(true);
        const isClassEscape = escaped !== undefined && "dDwWsS".includes(escaped);
        return isClassEscape ? { set: s } : { code: s[0] as number, set: s };
      }
      i++;
      return { code: c.charCodeAt(0), set: single(c.charCodeAt(0)) };
    };
    while (src[i] !== "]") {
      const from = classAtom();
      if (src[i] === "-" && src[i + 1] !== "]" && src[i + 1] !== undefined) {
        i++;
        const to = classAtom();
        if (from.code === undefined || to.code === undefined) fail("a character range cannot start or end with \\d, \\w or \\s");
        if ((from.code as number) > (to.code as number)) fail("character range out of order");
        set = union(set, charSet([[from.code as number, to.code as number]]));
      } else {
        set = union(set, from.set);
      }
    }
    i++; // ]
    return negate ? complement(set) : set;
  };

  const node = parseDisjunction();
  if (i < src.length) fail(`unmatched ")" at position ${i + 1}`);
  return node;
}

// ---------------------------------------------------------------------------
// Analysis

type Width = { min: number; max: number };

function width(node: Node): Width {
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

function* walk(node: Node): Generator<Node> {
  yield node;
  if (node.kind === "seq") for (const item of node.items) yield* walk(item);
  else if (node.kind === "alt") for (const branch of node.branches) yield* walk(branch);
  else if (node.kind === "repeat") yield* walk(node.body);
}

// For a fixed-width node: the set of characters allowed at each position.
function positionSets(node: Node): CharSet[] {
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
function repeatedBodyProblem(rep: Extract<Node, { kind: "repeat" }>): string | undefined {
  const w = width(rep.body);
  if (w.max === 0) return `"${rep.text}" repeats an empty or zero-width group`;
  if (w.min !== w.max) {
    const inner = [...walk(rep.body)].find((n): n is Extract<Node, { kind: "repeat" }> => n.kind === "repeat" && width(n).min !== width(n).max);
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

function nullable(node: Node): boolean {
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

function firstSet(node: Node): CharSet {
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
type Cost = { c: number; w: number };

function cost(node: Node): Cost {
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

function stuck(node: Node): Cost {
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
        const s = stuck(node.items[k] as Node);
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

function seqCost(items: Node[]): Cost {
  let acc: Cost = { c: 0, w: 1 }; // cost of the rest of the sequence
  let restStuck: Cost = { c: 0, w: 1 };
  let restFirst: CharSet = EMPTY;
  for (let k = items.length - 1; k >= 0; k--) {
    const item = items[k] as Node;
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

function analyse(root: Node): string | undefined {
  const nodes = [...walk(root)];
  const reps = nodes.filter((n): n is Extract<Node, { kind: "repeat" }> => n.kind === "repeat");
  for (const rep of reps)
    if ((rep.max !== Infinity && rep.max > MAX_REPEAT) || rep.min > MAX_REPEAT)
      return `quantifier "${rep.text}" is too large (bounds up to ${MAX_REPEAT} are allowed)`;
  const w = width(root);
  if (w.max !== Infinity && w.max > MAX_MATCH_LENGTH) return `pattern can match texts longer than ${MAX_MATCH_LENGTH} characters`;
  for (const rep of reps) {
    if (rep.max <= 1) continue;
    const problem = repeatedBodyProblem(rep);
    if (problem) return problem;
  }
  for (const rep of reps)
    if (rep.max === Infinity)
      return `unbounded quantifier "${rep.text}": give it an upper bound such as {1,64} (at most ${MAX_REPEAT}), so that matching stays linear on long inputs`;
  if (nullable(root)) return "pattern can match empty text; it must always match at least one character";
  const { c } = cost(root);
  if (c > COST_BUDGET)
    return `pattern is too expensive to run on long inputs: up to ${c > 1e6 ? "millions of" : Math.round(c)} backtracking steps per position (limit ${COST_BUDGET}); use smaller bounds or fewer optional parts`;
  return undefined;
}

/**
 * Checks a custom rule before it is stored. Never throws.
 * Returns which field is wrong so a form can point at it.
 */
export function validateCustomPattern(name: string, pattern: string): PatternCheck {
  if (typeof name !== "string" || !CUSTOM_RULE_NAME_RE.test(name))
    return { ok: false, field: "name", message: "name must be 1-40 characters: a lowercase letter, then lowercase letters, digits or underscores" };
  if (RESERVED_RULE_NAMES.has(name)) return { ok: false, field: "name", message: `name "${name}" is used by a built-in rule` };
  if (typeof pattern !== "string" || pattern.length === 0) return { ok: false, field: "pattern", message: "pattern is empty" };
  if (pattern.length > MAX_PATTERN_LENGTH) return { ok: false, field: "pattern", message: `pattern is longer than ${MAX_PATTERN_LENGTH} characters` };
  try {
    new RegExp(pattern, "g");
  } catch (error) {
    return { ok: false, field: "pattern", message: error instanceof Error ? error.message : "invalid regular expression" };
  }
  try {
    const root = parse(pattern);
    const problem = analyse(root);
    return problem ? { ok: false, field: "pattern", message: problem } : { ok: true, minLength: Math.max(1, width(root).min) };
  } catch (error) {
    if (error instanceof PatternError) return { ok: false, field: "pattern", message: error.message };
    return { ok: false, field: "pattern", message: "pattern could not be analysed" };
  }
}

/** For tests and diagnostics: the per-position cost bound of an accepted-shape pattern. */
export function patternCost(pattern: string): number {
  return cost(parse(pattern)).c;
}
