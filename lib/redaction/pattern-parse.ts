// Parser for the subset of JavaScript regex syntax that custom redaction
// patterns may use (no `u` flag). It builds a small tree for the analyses in
// pattern-shape.ts and pattern-cost.ts and rejects, with a message meant for
// the admin who typed the pattern, everything it does not understand.

import { type CharSet, DIGIT, DOT, EMPTY, SPACE, WORD, charSet, complement, single, union } from "./charset";

export type PatternNode =
  | { kind: "char"; set: CharSet }
  | { kind: "assert" }
  | { kind: "seq"; items: PatternNode[] }
  | { kind: "alt"; branches: PatternNode[] }
  | { kind: "repeat"; body: PatternNode; min: number; max: number; text: string };

export type RepeatNode = Extract<PatternNode, { kind: "repeat" }>;

/** A pattern outside the accepted subset; the message is safe to show. */
export class PatternError extends Error {}

const fail = (message: string): never => {
  throw new PatternError(message);
};

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";
const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);
const isAsciiAlnum = (c: string) => /^[A-Za-z0-9]$/.test(c);

const LOOKAROUND_MESSAGE = "lookahead/lookbehind groups are not allowed (they can make matching slow); match the text itself instead";
const BACKREF_MESSAGE = "backreferences (\\1, \\k<name>) are not allowed: they can make matching exponentially slow";

/** Parses `src` or throws a PatternError that says what to change. */
export function parsePattern(src: string): PatternNode {
  let i = 0;

  const parseDisjunction = (): PatternNode => {
    const branches = [parseAlternative()];
    while (src[i] === "|") {
      i++;
      branches.push(parseAlternative());
    }
    return branches.length === 1 ? (branches[0] as PatternNode) : { kind: "alt", branches };
  };

  const parseAlternative = (): PatternNode => {
    const items: PatternNode[] = [];
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
    return items.length === 1 ? (items[0] as PatternNode) : { kind: "seq", items };
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

  const parseAtom = (): { node: PatternNode; quantifiable: boolean } => {
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

  const parseGroup = (): PatternNode => {
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
