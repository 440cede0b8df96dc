// Sets of UTF-16 code units, used by the custom-pattern analyser to decide
// whether two parts of a regex can match the same character. A set is a flat,
// sorted list of inclusive ranges: [lo0, hi0, lo1, hi1, ...], disjoint and
// non-adjacent. Patterns run without the `u` flag, so a "character" is one
// code unit in 0..0xFFFF.

export type CharSet = readonly number[];

export const MAX_CODE_UNIT = 0xffff;

export const EMPTY: CharSet = [];
export const ANY: CharSet = [0, MAX_CODE_UNIT];

export function charSet(ranges: ReadonlyArray<readonly [number, number]>): CharSet {
  const sorted = ranges.filter(([lo, hi]) => lo <= hi).map(([lo, hi]) => [lo, hi] as [number, number]);
  sorted.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [lo, hi] of sorted) {
    const last = out.length - 1;
    if (last > 0 && lo <= (out[last] as number) + 1) {
      if (hi > (out[last] as number)) out[last] = hi;
    } else {
      out.push(lo, hi);
    }
  }
  return out;
}

export function single(code: number): CharSet {
  return [code, code];
}

function pairs(set: CharSet): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i + 1 < set.length; i += 2) out.push([set[i] as number, set[i + 1] as number]);
  return out;
}

export function union(a: CharSet, b: CharSet): CharSet {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  return charSet([...pairs(a), ...pairs(b)]);
}

export function complement(set: CharSet): CharSet {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of pairs(set)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_UNIT) out.push([next, MAX_CODE_UNIT]);
  return charSet(out);
}

export function intersects(a: CharSet, b: CharSet): boolean {
  let i = 0;
  let j = 0;
  while (i + 1 < a.length && j + 1 < b.length) {
    const aLo = a[i] as number;
    const aHi = a[i + 1] as number;
    const bLo = b[j] as number;
    const bHi = b[j + 1] as number;
    if (aHi < bLo) i += 2;
    else if (bHi < aLo) j += 2;
    else return true;
  }
  return false;
}

export const DIGIT: CharSet = charSet([[0x30, 0x39]]);
export const WORD: CharSet = charSet([
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
]);
// ECMAScript WhiteSpace + LineTerminator (what \s matches).
export const SPACE: CharSet = charSet([
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]);
const LINE_TERMINATORS: CharSet = charSet([
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
]);
/** What `.` matches without the `s` flag. */
export const DOT: CharSet = complement(LINE_TERMINATORS);
