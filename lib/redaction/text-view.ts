// The text the rules scan: invisible format characters removed and
// full-width ASCII folded to ASCII, with a map back to the original indices.
// "sk_live_\u200Babc…" or "ｓｋ＿ｌｉｖｅ＿…" must not slip past a rule that
// the same secret without the disguise would trip. Most texts have none of
// these characters and are scanned as they are.

// Soft hyphen, Mongolian vowel separator, zero-width and bidi controls,
// word joiner and invisible operators, BOM, variation selectors, full-width
// forms and the ideographic space.
const DISGUISE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFE00-\uFE0F\uFEFF\uFF01-\uFF5E\u3000]/;

export type TextView = {
  text: string;
  /** Original index of each view index; undefined when the view is the text. */
  map: number[] | undefined;
};

export function textView(text: string): TextView {
  if (!DISGUISE.test(text)) return { text, map: undefined };
  let out = "";
  const map: number[] = [];
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x3000) {
      out += " ";
    } else if (c >= 0xff01 && c <= 0xff5e) {
      out += String.fromCharCode(c - 0xfee0);
    } else if (
      c === 0xad ||
      c === 0x180e ||
      (c >= 0x200b && c <= 0x200f) ||
      (c >= 0x202a && c <= 0x202e) ||
      (c >= 0x2060 && c <= 0x206f) ||
      (c >= 0xfe00 && c <= 0xfe0f) ||
      c === 0xfeff
    ) {
      continue;
    } else {
      out += text[k];
    }
    map.push(k);
  }
  return { text: out, map };
}

/** Maps a [start, end) range of the view back to the original text. */
export function toOriginal(view: TextView, start: number, end: number, originalLength: number): { start: number; end: number } {
  const map = view.map;
  if (!map) return { start, end };
  const s = start < map.length ? (map[start] as number) : originalLength;
  // The end extends over removed characters that follow the last visible one.
  let e = end > 0 && end - 1 < map.length ? (map[end - 1] as number) + 1 : s;
  const next = end < map.length ? (map[end] as number) : originalLength;
  if (end >= map.length) e = originalLength;
  else if (next > e && end > start) e = next;
  return { start: s, end: Math.max(e, s) };
}
