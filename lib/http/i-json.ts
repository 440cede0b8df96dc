// RFC 7493 (I-JSON) checks that JSON.parse does not make (docs/security.md):
// JSON.parse keeps the last of duplicate keys, rounds 9007199254740993 to
// …992, turns 1e400 into Infinity and lets lone surrogates through, so what a
// reviewer sees and what is digested could differ from what was sent.
//
// One pass over text that JSON.parse has already accepted (so the grammar is
// known to be right), with an explicit stack: no recursion on deep input.
// No npm package does this check (lossless-json and momoa parse into their own
// trees; secure-json-parse drops `__proto__`, which here is an ordinary key).
import type { Issue } from "../errors";

/** Digits of 2^53−1: up to it every integer is exact in a double (RFC 7493 docs/api.md). */
const MAX_SAFE_INTEGER_DIGITS = String(Number.MAX_SAFE_INTEGER).length;
const MIN_NORMAL = 2.2250738585072014e-308;

type ObjectFrame = { kind: "object"; keys: Set<string>; key: string | undefined; member: number; expectKey: boolean };
type ArrayFrame = { kind: "array"; index: number };
type Frame = ObjectFrame | ArrayFrame;

/** Outside the arguments, field names are the contract's; inside, keys are data and may be secret. */
const ENVELOPE_KEY = /^[a-z_]{1,32}$/;

function pathOf(stack: readonly Frame[]): string {
  const parts: string[] = [];
  let inArguments = false;
  for (const frame of stack) {
    if (frame.kind === "array") {
      parts.push(String(frame.index));
      continue;
    }
    if (frame.key === undefined) break;
    // A key is never echoed from inside `arguments`: it is shown as its position.
    parts.push(!inArguments && ENVELOPE_KEY.test(frame.key) ? frame.key : `#${frame.member}`);
    if (parts.length === 2 && parts[0] === "data" && parts[1] === "arguments") inArguments = true;
  }
  return parts.join(".");
}

/**
 * A decimal literal's exact value as "digits e exponent", without leading or
 * trailing zeros ("0" for zero), so two spellings of one number compare equal.
 */
function exactDecimal(literal: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (!m) return literal;
  const [, sign, int, frac = "", exp = "0"] = m;
  let digits = (int + frac).replace(/^0+/, "");
  if (digits === "") return "0";
  let exponent = BigInt(exp) - BigInt(frac.length);
  const trimmed = digits.replace(/0+$/, "");
  exponent += BigInt(digits.length - trimmed.length);
  digits = trimmed;
  return `${sign}${digits}e${exponent}`;
}

/** Why a number literal would not survive parsing to a double unchanged, if it would not. */
function numberProblem(literal: string, integer: boolean, significantDigits: number): string | undefined {
  if (integer) {
    const digits = literal.charCodeAt(0) === 0x2d ? literal.length - 1 : literal.length;
    if (digits < MAX_SAFE_INTEGER_DIGITS) return undefined;
    if (digits > MAX_SAFE_INTEGER_DIGITS || Math.abs(Number(literal)) > Number.MAX_SAFE_INTEGER) {
      return "integers must be within ±(2^53−1)";
    }
    return undefined;
  }
  const value = Number(literal);
  if (!Number.isFinite(value)) return "number is outside the range of a double";
  // Fast path: up to 15 significant digits survive a normal double exactly (DBL_DIG).
  if (significantDigits === 0 || (significantDigits <= 15 && Math.abs(value) >= MIN_NORMAL)) return undefined;
  // The shortest form of the parsed double is what JCS digests and the page
  // shows: it must denote the very number that was written.
  const shown = String(value);
  if (shown !== literal && exactDecimal(shown) !== exactDecimal(literal)) {
    return "number has more precision or a smaller magnitude than a double holds";
  }
  return undefined;
}

const isHigh = (u: number) => u >= 0xd800 && u <= 0xdbff;
const isLow = (u: number) => u >= 0xdc00 && u <= 0xdfff;

/**
 * Scans the string token starting at the opening quote `start`; returns the
 * index after its closing quote and whether its decoded UTF-16 is well formed
 * (escaped and raw surrogates alike, since JSON.parse joins "\ud83d" + raw low).
 */
function scanString(text: string, start: number): { end: number; wellFormed: boolean; escaped: boolean } {
  let pendingHigh = false;
  let wellFormed = true;
  let escaped = false;
  let i = start + 1;
  for (;;) {
    let u = text.charCodeAt(i);
    if (u === 0x22) break; // closing quote
    if (u === 0x5c) {
      escaped = true;
      // \uXXXX is one UTF-16 unit; any other escape is a non-surrogate unit.
      if (text.charCodeAt(i + 1) === 0x75) {
        u = parseInt(text.slice(i + 2, i + 6), 16);
        i += 6;
      } else {
        u = 0;
        i += 2;
      }
    } else {
      i++;
    }
    if (isHigh(u)) {
      if (pendingHigh) wellFormed = false;
      pendingHigh = true;
    } else if (isLow(u)) {
      if (!pendingHigh) wellFormed = false;
      pendingHigh = false;
    } else if (pendingHigh) {
      wellFormed = false;
      pendingHigh = false;
    }
  }
  if (pendingHigh) wellFormed = false;
  return { end: i + 1, wellFormed, escaped };
}

/**
 * The first I-JSON violation in `text`, or null. `text` must be JSON that
 * JSON.parse accepts. Messages never include the offending value or key.
 */
export function findIJsonViolation(text: string): Issue | null {
  const stack: Frame[] = [];
  const top = () => stack[stack.length - 1];
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */) {
      stack.push({ kind: "object", keys: new Set(), key: undefined, member: 0, expectKey: true });
      i++;
    } else if (c === 0x5b /* [ */) {
      stack.push({ kind: "array", index: 0 });
      i++;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      i++;
    } else if (c === 0x2c /* , */) {
      const frame = top();
      if (frame?.kind === "array") frame.index++;
      else if (frame) frame.expectKey = true;
      i++;
    } else if (c === 0x22 /* " */) {
      const { end, wellFormed, escaped } = scanString(text, i);
      const frame = top();
      if (frame?.kind === "object" && frame.expectKey) {
        frame.expectKey = false;
        frame.member++;
        const key = escaped ? (JSON.parse(text.slice(i, end)) as string) : text.slice(i + 1, end - 1);
        frame.key = key;
        if (!wellFormed) return { path: pathOf(stack), message: "object key contains a lone surrogate" };
        if (frame.keys.has(key)) return { path: pathOf(stack), message: "duplicate object key" };
        frame.keys.add(key);
      } else if (!wellFormed) {
        return { path: pathOf(stack), message: "string contains a lone surrogate" };
      }
      i = end;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      let end = i;
      let integer = true;
      let inExponent = false;
      let significant = 0; // mantissa digits from the first non-zero one
      for (; end < text.length; end++) {
        const d = text.charCodeAt(end);
        if (d >= 0x30 && d <= 0x39) {
          if (!inExponent && (significant > 0 || d !== 0x30)) significant++;
        } else if (d === 0x65 || d === 0x45) {
          integer = false;
          inExponent = true;
        } else if (d === 0x2e || ((d === 0x2b || d === 0x2d) && end > i)) {
          integer = false;
        } else if (d !== 0x2d) {
          break;
        }
      }
      const problem = numberProblem(text.slice(i, end), integer, significant);
      if (problem) return { path: pathOf(stack), message: problem };
      i = end;
    } else {
      i++; // whitespace, ':' and the letters of true / false / null
    }
  }
  return null;
}
