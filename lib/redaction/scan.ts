// One scan of a text by every rule: on the text as a reader sees it
// (text-view.ts), and on what its encoded runs decode to (decode.ts).
// Returns ranges of the original text, each with the index of the rule name
// shown in its tag.
import { MAX_DECODE_DEPTH, decodedCandidates, throughMap } from "./decode";
import type { Range, TextRule } from "./rules";
import { textView, toOriginal } from "./text-view";

export type Tagged = { start: number; end: number; rule: number };

export type Scanner = {
  /** Every range to hide in `text`, unmerged, in no particular order. */
  find(text: string): Tagged[];
  /** The same without decoding encoded runs (for joined sibling strings). */
  findPlain(text: string): Tagged[];
};

/**
 * `names` lists every tag name in priority order; each rule reports ranges
 * under its own name or a name it gives (the vendor token rule).
 */
export function compileScanner(rules: readonly TextRule[], names: readonly string[]): Scanner {
  const index = new Map(names.map((n, k) => [n, k]));
  const ruleIndex = (name: string) => index.get(name) ?? 0;
  const minLength = Math.min(...rules.map((r) => r.minLength));

  const scanPlain = (text: string, found: Tagged[]) => {
    const scratch: Range[] = [];
    for (const rule of rules) {
      if (text.length < rule.minLength) continue;
      scratch.length = 0;
      try {
        rule.find(text, scratch);
      } catch {
        // Fail closed, e.g. if the regex engine runs out of backtrack stack.
        scratch.length = 0;
        scratch.push({ start: 0, end: text.length });
      }
      const own = ruleIndex(rule.name);
      for (const r of scratch) if (r.end > r.start) found.push({ start: r.start, end: r.end, rule: r.name === undefined ? own : ruleIndex(r.name) });
    }
  };

  const find = (text: string, depth: number, decode = true): Tagged[] => {
    if (text.length < minLength) return [];
    const view = textView(text);
    const found: Tagged[] = [];
    scanPlain(view.text, found);
    if (decode && depth < MAX_DECODE_DEPTH) {
      for (const candidate of decodedCandidates(view.text)) {
        const inner = find(candidate.text, depth + 1);
        if (inner.length === 0) continue;
        if (candidate.map) {
          for (const r of inner) found.push({ ...throughMap(candidate.map, r.start, r.end), rule: r.rule });
        } else {
          let rule = inner[0]?.rule ?? 0;
          for (const r of inner) if (r.rule < rule) rule = r.rule;
          found.push({ start: candidate.start, end: candidate.end, rule });
        }
      }
    }
    if (!view.map) return found;
    return found.map((r) => ({ ...toOriginal(view, r.start, r.end, text.length), rule: r.rule }));
  };

  return { find: (text) => find(text, 0), findPlain: (text) => find(text, 0, false) };
}
