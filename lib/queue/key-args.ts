// One or two argument values for a queue row, so a reviewer can tell two
// calls of one tool apart without opening them: the first scalar top-level
// entries of the REDACTED arguments (what the request's page shows too, never
// a raw value). Read from a bounded prefix of the stored JSON text, so a
// 256 KiB request costs a queue page no more than a small one.

export type KeyArg = { key: string; value: string };

/** How much of redacted_args the queue reads per row. */
export const ARGS_HEAD_CHARS = 4096;
const MAX_KEY = 60;
const MAX_VALUE = 120;

const WS = new Set([" ", "\t", "\n", "\r"]);
const skipWs = (s: string, i: number) => {
  while (i < s.length && WS.has(s[i]!)) i++;
  return i;
};

/** Index just past the string literal starting at s[i] ('"'), or -1 when it is cut off. */
function stringEnd(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === "\\") j++;
    else if (s[j] === '"') return j + 1;
  }
  return -1;
}

/** Index just past the JSON value starting at s[i], or -1 when it is cut off. */
function valueEnd(s: string, i: number): number {
  const c = s[i];
  if (c === '"') return stringEnd(s, i);
  if (c === "{" || c === "[") {
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      const d = s[j];
      if (d === '"') {
        j = stringEnd(s, j) - 1;
        if (j < 0) return -1;
      } else if (d === "{" || d === "[") depth++;
      else if (d === "}" || d === "]") {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < s.length && !WS.has(s[j]!) && s[j] !== "," && s[j] !== "}") j++;
  return j < s.length ? j : -1;
}

/** At most `max` code points, with "…" when cut (never splitting a surrogate pair). */
function clip(s: string, max: number): string {
  const points = Array.from(s);
  return points.length > max ? `${points.slice(0, max).join("")}…` : s;
}

/**
 * The first `max` top-level entries of a JSON object whose values are
 * strings, numbers or booleans (objects, arrays and null are skipped), from
 * the start of its text. Anything that is not such an object gives none.
 */
export function keyArguments(head: string, max = 2): KeyArg[] {
  const out: KeyArg[] = [];
  let i = skipWs(head, 0);
  if (head[i] !== "{") return out;
  i++;
  try {
    while (out.length < max) {
      i = skipWs(head, i);
      if (head[i] !== '"') break;
      const keyEnd = stringEnd(head, i);
      if (keyEnd < 0) break;
      const key = JSON.parse(head.slice(i, keyEnd)) as string;
      i = skipWs(head, keyEnd);
      if (head[i] !== ":") break;
      i = skipWs(head, i + 1);
      const end = valueEnd(head, i);
      if (end < 0) break;
      const text = head.slice(i, end);
      if (text.startsWith('"')) out.push({ key: clip(key, MAX_KEY), value: clip(JSON.parse(text) as string, MAX_VALUE) });
      else if (/^(-?\d|true$|false$)/.test(text)) out.push({ key: clip(key, MAX_KEY), value: clip(text, MAX_VALUE) });
      i = skipWs(head, end);
      if (head[i] !== ",") break;
      i++;
    }
  } catch {
    // Not JSON after all (a cut-off escape): what was read so far stands.
  }
  return out;
}
