import { validateCustomPattern } from "./custom-pattern";
import { BUILTIN_TEXT_RULES, FAILURE_RULE, SECRET_KEY_RULE, redactionTag } from "./names";
import { BUILTIN_RULES, type TextRule, isCardNumberValue } from "./rules";
import { compileScanner, type Scanner, type Tagged } from "./scan";
import { isSecretKeyName, keepsBooleanValue } from "./secret-keys";
import { splitSecretRanges } from "./siblings";

export type CustomRule = { name: string; pattern: string };

export type RedactionResult = {
  /** A redacted copy; the input is never modified. */
  value: unknown;
  /** Number of things hidden: text matches, secret-named values, card numbers. */
  hits: number;
};

export interface Redactor {
  /** Built-in rules first, then custom rules, in the order given. */
  readonly ruleNames: readonly string[];
  /**
   * Redacts a JSON value (objects, arrays, strings, numbers, booleans, null):
   * - strings: each match is replaced in place ("mail [redacted:email] now"),
   *   also when the secret is encoded (base64, hex, %XX…) or split across
   *   neighbouring strings of the same array or object (siblings.ts);
   * - object keys are redacted like strings (a collision gets a "#2" suffix);
   * - the value of a key named like a secret is replaced whatever its type
   *   (string, number, boolean, null, object, array) by "[redacted:secret_key]";
   *   a number cannot carry the tag, so the JSON type changes to string
   *   (booleans under "private", "pin", "otp" and "key" stay: flags, not secrets);
   * - a number written as 13-19 digits that passes Luhn becomes the string
   *   "[redacted:card_number]" (other numbers, booleans and null are kept).
   * Works without recursion, so nesting depth is not limited by the stack.
   * Never throws: if reading the input fails (e.g. a throwing getter in a
   * non-JSON value), the whole result is "[redacted:error]".
   */
  redactValue(value: unknown): RedactionResult;
  /** Redacts free text such as the summary. Never throws. */
  redactText(text: string): string;
  /** The name of the first rule that would hide something in `text`, or null. */
  findSecret(text: string): string | null;
}

export class RedactionConfigError extends Error {
  override name = "RedactionConfigError";
}

// A text can need a second pass: a match can unblock a neighbour (a rule that
// refuses to start right after a digit may start after a tag). Passes stop
// when nothing changes, so redacting an output again is a no-op.
const MAX_PASSES = 4;

function customRule(name: string, pattern: string, minLength: number): TextRule {
  const re = new RegExp(pattern, "g");
  return {
    name,
    minLength,
    find(text, out) {
      re.lastIndex = 0;
      for (let m = re.exec(text); m; m = re.exec(text)) {
        if (m[0].length === 0) re.lastIndex++;
        else out.push({ start: m.index, end: m.index + m[0].length });
      }
    },
  };
}

/** Replaces ranges by their tags; overlapping ranges merge into one tag named after the first. */
function applyRanges(text: string, found: Tagged[], tags: readonly string[]): { text: string; hits: number } {
  if (found.length === 0) return { text, hits: 0 };
  found.sort((a, b) => a.start - b.start || b.end - a.end || a.rule - b.rule);
  let out = "";
  let hits = 0;
  let cursor = 0;
  let current: Tagged | undefined;
  const emit = (r: Tagged) => {
    out += text.slice(cursor, r.start) + tags[r.rule];
    cursor = r.end;
    hits++;
  };
  for (const r of found) {
    if (current && r.start < current.end) {
      if (r.end > current.end) current.end = r.end;
      continue;
    }
    if (current) emit(current);
    current = { ...r };
  }
  if (current) emit(current);
  return { text: out + text.slice(cursor), hits };
}

function textRedactor(rules: readonly TextRule[], names: readonly string[]) {
  const tags = names.map(redactionTag);
  const scanner = compileScanner(rules, names);
  const knownTags = [...new Set([...names, SECRET_KEY_RULE, FAILURE_RULE])];
  // Tags already in the text are opaque: rules never look inside them.
  const tagRe = new RegExp(`\\[redacted:(?:${knownTags.join("|")})\\]`, "g");

  const pass = (text: string, find: Scanner["find"]): { text: string; hits: number } => {
    let out = "";
    let hits = 0;
    let last = 0;
    tagRe.lastIndex = 0;
    const segment = (s: string) => {
      const r = applyRanges(s, find(s), tags);
      hits += r.hits;
      return r.text;
    };
    for (let m = tagRe.exec(text); m; m = tagRe.exec(text)) {
      out += segment(text.slice(last, m.index)) + m[0];
      last = m.index + m[0].length;
    }
    return { text: out + segment(last === 0 ? text : text.slice(last)), hits };
  };

  /**
   * Redacts `text`; `extra` ranges (from split secrets) are hidden first.
   * `scan` may be a memoizing scanner shared with the split-secret search.
   */
  const redact = (text: string, extra?: Tagged[], scan: Scanner = scanner): { text: string; hits: number } => {
    let hits = 0;
    if (extra && extra.length > 0) {
      const r = applyRanges(text, extra, tags);
      hits += r.hits;
      text = r.text;
    }
    for (let k = 0; k < MAX_PASSES; k++) {
      const r = pass(text, k === 0 ? scan.find : scanner.find);
      if (r.hits === 0) break;
      hits += r.hits;
      text = r.text;
    }
    return { text, hits };
  };
  /** The text with every tag replaced by a space. */
  const withoutTags = (text: string) => text.replace(tagRe, " ");
  /** The first rule (in priority order) that finds something, or null. */
  const firstRule = (text: string): string | null => {
    let best = -1;
    for (const r of scanner.find(withoutTags(text))) if (best === -1 || r.rule < best) best = r.rule;
    return best === -1 ? null : (names[best] as string);
  };
  return { redact, withoutTags, firstRule, scanner };
}

const SECRET_TAG = redactionTag(SECRET_KEY_RULE);
const CARD_TAG = redactionTag("card_number");
const FAILURE_TAG = redactionTag(FAILURE_RULE);

type Container = Record<string, unknown> | unknown[];

function setEntry(target: Container, key: string | number, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else (target as Record<string | number, unknown>)[key] = value;
}

/**
 * Compiles the built-in rules plus the admin's custom rules. Throws
 * RedactionConfigError if a custom rule fails validateCustomPattern or two
 * rules share a name: a redactor that silently skipped a rule would leak.
 */
export function compileRedactor(customRules: ReadonlyArray<CustomRule> = []): Redactor {
  const names = new Set<string>();
  const custom = customRules.map(({ name, pattern }) => {
    const check = validateCustomPattern(name, pattern);
    if (!check.ok) throw new RedactionConfigError(`custom redaction rule "${name}": ${check.message}`);
    if (names.has(name)) throw new RedactionConfigError(`custom redaction rule "${name}" is defined twice`);
    names.add(name);
    return customRule(name, pattern, check.minLength);
  });
  const ruleNames = [...BUILTIN_TEXT_RULES, ...custom.map((r) => r.name)];
  const { redact: redactCounted, withoutTags, firstRule, scanner } = textRedactor([...BUILTIN_RULES, ...custom], ruleNames);
  const acrossAlways = new Set([ruleNames.indexOf("pem")]);
  const emailRule = ruleNames.indexOf("email");

  const redactValue = (input: unknown): RedactionResult => {
    let hits = 0;
    // Strings scanned for split secrets are scanned once: the results are
    // kept for their own redaction.
    const memo = new Map<string, Tagged[]>();
    const memoScanner: Scanner = {
      find: (t) => {
        let found = memo.get(t);
        if (!found) {
          found = scanner.find(t);
          memo.set(t, found);
        }
        return found.slice();
      },
      findPlain: scanner.findPlain,
    };
    const text = (s: string, extra?: Tagged[]) => {
      const r = redactCounted(s, extra, memo.size > 0 ? memoScanner : undefined);
      hits += r.hits;
      return r.text;
    };
    // Converts a leaf, or returns a fresh container whose entries are filled
    // later from the work stack. `seen` maps input containers to their copy
    // (shared references stay shared and cycles cannot loop forever).
    const seen = new Map<object, Container>();
    const work: Array<{ source: object; target: Container }> = [];
    const convert = (value: unknown, key: string | number | undefined, extra?: Tagged[]): unknown => {
      if (typeof value === "string") return text(value, extra);
      if (typeof value === "number" || typeof value === "bigint") {
        if (!isCardNumberValue(value)) return value;
        hits++;
        return CARD_TAG;
      }
      if (typeof value !== "object" || value === null) return value;
      const existing = seen.get(value);
      if (existing) return existing;
      const toJSON = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === "function" && !Array.isArray(value)) {
        const plain: unknown = toJSON.call(value, key === undefined ? "" : String(key));
        if (typeof plain !== "object" || plain === null) return convert(plain, key);
        value = plain;
      }
      const target: Container = Array.isArray(value) ? new Array<unknown>((value as unknown[]).length) : {};
      seen.set(value as object, target);
      work.push({ source: value as object, target });
      return target;
    };
    // Ranges of secrets split across the strings of one container, by position.
    const splitRanges = (values: readonly unknown[], hidden: readonly boolean[]): Map<number, Tagged[]> => {
      let strings = 0;
      for (const v of values) if (typeof v === "string") strings++;
      if (strings < 2) return new Map();
      // A value that is not a string, or is hidden by its key, separates runs.
      const pieces = values.map((v, k) => (typeof v === "string" && !hidden[k] ? v : ""));
      const runs: Map<number, Tagged[]> = new Map();
      let from = 0;
      for (let k = 0; k <= values.length; k++) {
        if (k < values.length && typeof values[k] === "string" && !hidden[k]) continue;
        if (k - from >= 2) for (const [piece, ranges] of splitSecretRanges(pieces.slice(from, k), memoScanner, acrossAlways, emailRule)) runs.set(from + piece, ranges);
        from = k + 1;
      }
      return runs;
    };

    try {
      const root = convert(input, undefined);
      for (let job = work.pop(); job; job = work.pop()) {
        const { source, target } = job;
        if (Array.isArray(target)) {
          const items = source as unknown[];
          const values = Array.from({ length: target.length }, (_, k) => items[k]);
          const split = splitRanges(values, []);
          for (let k = 0; k < target.length; k++) target[k] = convert(values[k], k, split.get(k));
          continue;
        }
        const record = source as Record<string, unknown>;
        const keys = Object.keys(record);
        const redactedKeys = keys.map((key) => text(key));
        // Decided on the redacted key, tags blanked out, so that a key that
        // became "[redacted:api_key]" is not taken for an "api key" later.
        const secret = redactedKeys.map((k) => isSecretKeyName(withoutTags(k)));
        const values = keys.map((key) => record[key]);
        const split = splitRanges(values, secret);
        keys.forEach((key, k) => {
          const redactedKey = redactedKeys[k] as string;
          let outKey = redactedKey;
          for (let n = 2; Object.prototype.hasOwnProperty.call(target, outKey); n++) outKey = `${redactedKey}#${n}`;
          const original = values[k];
          if (secret[k] && !(typeof original === "boolean" && keepsBooleanValue(withoutTags(redactedKey)))) {
            if (original !== SECRET_TAG) hits++;
            setEntry(target, outKey, SECRET_TAG);
          } else {
            setEntry(target, outKey, convert(original, key, split.get(k)));
          }
        });
      }
      return { value: root, hits };
    } catch {
      return { value: FAILURE_TAG, hits: hits + 1 };
    }
  };

  return {
    ruleNames,
    redactValue,
    redactText: (s: string) => {
      try {
        return redactCounted(String(s)).text;
      } catch {
        return FAILURE_TAG;
      }
    },
    findSecret: (s: string) => {
      try {
        return firstRule(String(s));
      } catch {
        return FAILURE_RULE;
      }
    },
  };
}

let builtinOnly: Redactor | undefined;

/**
 * The name of the first built-in rule that would hide something in `text`,
 * or null: for values that are refused rather than redacted (ids stored in
 * the audit chain). Never echoes the text.
 */
export function findSecret(text: string): string | null {
  builtinOnly ??= compileRedactor();
  return builtinOnly.findSecret(text);
}
