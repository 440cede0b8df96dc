import { validateCustomPattern } from "./custom-pattern";
import { BUILTIN_TEXT_RULES, FAILURE_RULE, SECRET_KEY_RULE, redactionTag } from "./names";
import { BUILTIN_RULES, type TextRule, isCardNumberValue } from "./rules";
import type { Scanner, Tagged } from "./scan";
import { isSecretKeyName, keepsBooleanValue } from "./secret-keys";
import { splitSecretRanges } from "./siblings";
import { textRedactor } from "./text-redactor";
import { eachMatch } from "./each-match";
import { formatJsonPointer } from "@countersign/client";

export type CustomRule = { name: string; pattern: string };

export type RedactionResult = {
  /** A redacted copy; the input is never modified. */
  value: unknown;
  /** Number of things hidden: text matches, secret-named values, card numbers. */
  hits: number;
};

/**
 * Called for each part of the input that the copy does not show as it is:
 * a value ("value": a string with anything hidden in it, a card number, the
 * value of a secret-named key, or the whole input when reading it failed)
 * or an object key ("key": redacted, or renamed to avoid a collision).
 * `pointer` is the JSON Pointer of the entry in the redacted copy; `raw` is
 * the input's value or key there. For tree-shaped input (parsed JSON).
 */
export type OnHidden = (pointer: string, kind: "key" | "value", raw: unknown) => void;

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
  redactValue(value: unknown, onHidden?: OnHidden): RedactionResult;
  /** Redacts free text such as the summary. Never throws. */
  redactText(text: string): string;
  /** The name of the first rule that would hide something in `text`, or null. */
  findSecret(text: string): string | null;
}

export class RedactionConfigError extends Error {
  override name = "RedactionConfigError";
}

function customRule(name: string, pattern: string, minLength: number): TextRule {
  const re = new RegExp(pattern, "g");
  return {
    name,
    minLength,
    find(text, out) {
      eachMatch(re, text, (m) => out.push({ start: m.index, end: m.index + m[0].length }));
    },
  };
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
  const siblingRules = { pem: ruleNames.indexOf("pem"), email: ruleNames.indexOf("email"), card: ruleNames.indexOf("card_number") };
  const acrossAlways = new Set([siblingRules.pem, ruleNames.indexOf("seed_phrase")]);

  const redactValue = (input: unknown, onHidden?: OnHidden): RedactionResult => {
    let hits = 0;
    // Where a node is, as links to its parent (null: the root), kept only for
    // a caller that asks where things were hidden; a pointer is spelled out
    // only for what was hidden.
    type Loc = { up: Loc; seg: string | number } | null;
    const child = (up: Loc, seg: string | number): Loc => (onHidden ? { up, seg } : null);
    const pointerOf = (loc: Loc): string => {
      const segs: Array<string | number> = [];
      for (let l = loc; l; l = l.up) segs.push(l.seg);
      return formatJsonPointer(segs.reverse());
    };
    const hidden: Array<[Loc, "key" | "value", unknown]> = [];
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
    const work: Array<{ source: object; target: Container; loc: Loc }> = [];
    const convert = (value: unknown, key: string | number | undefined, loc: Loc, extra?: Tagged[]): unknown => {
      if (typeof value === "string") {
        const shown = text(value, extra);
        if (onHidden && shown !== value) hidden.push([loc, "value", value]);
        return shown;
      }
      if (typeof value === "number" || typeof value === "bigint") {
        if (!isCardNumberValue(value)) return value;
        hits++;
        if (onHidden) hidden.push([loc, "value", value]);
        return CARD_TAG;
      }
      if (typeof value !== "object" || value === null) return value;
      const existing = seen.get(value);
      if (existing) return existing;
      const toJSON = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === "function" && !Array.isArray(value)) {
        const plain: unknown = toJSON.call(value, key === undefined ? "" : String(key));
        if (typeof plain !== "object" || plain === null) return convert(plain, key, loc);
        value = plain;
      }
      const target: Container = Array.isArray(value) ? new Array<unknown>((value as unknown[]).length) : {};
      seen.set(value as object, target);
      work.push({ source: value as object, target, loc });
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
        if (k - from >= 2)
          for (const [piece, ranges] of splitSecretRanges(pieces.slice(from, k), memoScanner, acrossAlways, siblingRules))
            runs.set(from + piece, ranges);
        from = k + 1;
      }
      return runs;
    };

    try {
      const root = convert(input, undefined, null);
      for (let job = work.pop(); job; job = work.pop()) {
        const { source, target, loc } = job;
        if (Array.isArray(target)) {
          const items = source as unknown[];
          const values = Array.from({ length: target.length }, (_, k) => items[k]);
          const split = splitRanges(values, []);
          for (let k = 0; k < target.length; k++) target[k] = convert(values[k], k, child(loc, k), split.get(k));
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
          const entry = child(loc, outKey);
          if (onHidden && outKey !== key) hidden.push([entry, "key", key]);
          const original = values[k];
          if (secret[k] && !(typeof original === "boolean" && keepsBooleanValue(withoutTags(redactedKey)))) {
            if (original !== SECRET_TAG) hits++;
            // Hidden even when it already reads as the tag: it was never shown.
            if (onHidden) hidden.push([entry, "value", original]);
            setEntry(target, outKey, SECRET_TAG);
          } else {
            setEntry(target, outKey, convert(original, key, entry, split.get(k)));
          }
        });
      }
      if (onHidden) for (const [at, kind, raw] of hidden) onHidden(pointerOf(at), kind, raw);
      return { value: root, hits };
    } catch {
      onHidden?.("", "value", input);
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
