// Redaction of one text: every rule's ranges replaced by tags, repeated until
// nothing changes; tags already present are left alone.
import { FAILURE_RULE, SECRET_KEY_RULE, redactionTag } from "./names";
import type { TextRule } from "./rules";
import { compileScanner, type Scanner, type Tagged } from "./scan";

// A text can need a second pass: a match can unblock a neighbour (a rule that
// refuses to start right after a digit may start after a tag). Passes stop
// when nothing changes, so redacting an output again is a no-op.
const MAX_PASSES = 4;

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

export function textRedactor(rules: readonly TextRule[], names: readonly string[]) {
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
