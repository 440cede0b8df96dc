import { validateCustomPattern } from "./custom-pattern";
import { FAILURE_RULE, SECRET_KEY_RULE, redactionTag } from "./names";
import { BUILTIN_RULES, type Range, type TextRule, isCardNumberValue } from "./rules";
import { isSecretKeyName } from "./secret-keys";

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
   * - strings: each match is replaced in place ("mail [redacted:email] now");
   * - object keys are redacted like strings (a collision gets a "#2" suffix);
   * - the value of a key named like a secret is replaced whatever its type
   *   (string, number, boolean, null, object, array) by "[redacted:secret_key]";
   *   a number cannot carry the tag, so the JSON type changes to string;
   * - a number written as 13-19 digits that passes Luhn becomes the string
   *   "[redacted:card_number]" (other numbers, booleans and null are kept).
   * Works without recursion, so nesting depth is not limited by the stack.
   * Never throws: if reading the input fails (e.g. a throwing getter in a
   * non-JSON value), the whole result is "[redacted:error]".
   */
  redactValue(value: unknown): RedactionResult;
  /** Redacts free text such as the summary. Never throws. */
  redactText(text: string): string;
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

type Tagged = Range & { rule: number };

function textRedactor(rules: readonly TextRule[]) {
  const tags = rules.map((r) => redactionTag(r.name));
  const knownTags = [...new Set([...rules.map((r) => r.name), SECRET_KEY_RULE, FAILURE_RULE])];
  // Tags already in the text are opaque: rules never look inside them.
  const tagRe = new RegExp(`\\[redacted:(?:${knownTags.join("|")})\\]`, "g");

  const minLength = Math.min(...rules.map((r) => r.minLength));
  const segment = (text: string): { text: string; hits: number } => {
    if (text.length < minLength) return { text, hits: 0 };
    const found: Tagged[] = [];
    const scratch: Range[] = [];
    rules.forEach((rule, index) => {
      if (text.length < rule.minLength) return;
      scratch.length = 0;
      try {
        rule.find(text, scratch);
      } catch {
        // Fail closed, e.g. if the regex engine runs out of backtrack stack.
        scratch.length = 0;
        scratch.push({ start: 0, end: text.length });
      }
      for (const r of scratch) if (r.end > r.start) found.push({ start: r.start, end: r.end, rule: index });
    });
    if (found.length === 0) return { text, hits: 0 };
    found.sort((a, b) => a.start - b.start || b.end - a.end || a.rule - b.rule);
    // Overlapping matches are merged into one tag named after the first, so
    // no part of a match is left visible.
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
  };

  const pass = (text: string): { text: string; hits: number } => {
    let out = "";
    let hits = 0;
    let last = 0;
    tagRe.lastIndex = 0;
    for (let m = tagRe.exec(text); m; m = tagRe.exec(text)) {
      const r = segment(text.slice(last, m.index));
      out += r.text + m[0];
      hits += r.hits;
      last = m.index + m[0].length;
    }
    const r = segment(last === 0 ? text : text.slice(last));
    return { text: out + r.text, hits: hits + r.hits };
  };

  const redact = (text: string): { text: string; hits: number } => {
    let hits = 0;
    for (let k = 0; k < MAX_PASSES; k++) {
      const r = pass(text);
      if (r.hits === 0) break;
      hits += r.hits;
      text = r.text;
    }
    return { text, hits };
  };
  /** The text with every tag replaced by a space. */
  const withoutTags = (text: string) => text.replace(tagRe, " ");
  return { redact, withoutTags };
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
  const rules = [...BUILTIN_RULES, ...custom];
  const { redact: redactCounted, withoutTags } = textRedactor(rules);

  const redactValue = (input: unknown): RedactionResult => {
    let hits = 0;
    const text = (s: string) => {
      const r = redactCounted(s);
      hits += r.hits;
      return r.text;
    };
    // Converts a leaf, or returns a fresh container whose entries are filled
    // later from the work stack. `seen` maps input containers to their copy
    // (shared references stay shared and cycles cannot loop forever).
    const seen = new Map<object, Container>();
    const work: Array<{ source: object; target: Container }> = [];
    const convert = (value: unknown, key: string | number | undefined): unknown => {
      if (typeof value === "string") return text(value);
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

    try {
      const root = convert(input, undefined);
      for (let job = work.pop(); job; job = work.pop()) {
        const { source, target } = job;
        if (Array.isArray(target)) {
          const items = source as unknown[];
          for (let k = 0; k < target.length; k++) target[k] = convert(items[k], k);
          continue;
        }
        const record = source as Record<string, unknown>;
        for (const key of Object.keys(record)) {
          const redactedKey = text(key);
          let outKey = redactedKey;
          for (let n = 2; Object.prototype.hasOwnProperty.call(target, outKey); n++) outKey = `${redactedKey}#${n}`;
          // Decided on the redacted key, tags blanked out, so that a key that
          // became "[redacted:api_key]" is not taken for an "api key" later.
          if (isSecretKeyName(withoutTags(redactedKey))) {
            const original = record[key];
            if (original !== SECRET_TAG) hits++;
            setEntry(target, outKey, SECRET_TAG);
          } else {
            setEntry(target, outKey, convert(record[key], key));
          }
        }
      }
      return { value: root, hits };
    } catch {
      return { value: FAILURE_TAG, hits: hits + 1 };
    }
  };

  return {
    ruleNames: rules.map((r) => r.name),
    redactValue,
    redactText: (s: string) => {
      try {
        return redactCounted(String(s)).text;
      } catch {
        return FAILURE_TAG;
      }
    },
  };
}


