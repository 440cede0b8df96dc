// What the reviewer sees is what runs (docs/security.md): turns a string into
// display segments in which every invisible or direction-changing character
// is a visible escape such as ⟨U+202E⟩ and every look-alike letter (a
// Cyrillic а in a Latin word; lib/display/scripts) is marked, and says what it
// found. Pure: no React, no I/O, so pages, route handlers and tests share it.
//
// The escaped text is unambiguous: the escape brackets ⟨ ⟩ are themselves
// escaped when a value contains them, so a value cannot fake an escape.
import { scriptAnalysis, scriptFindings, type ScriptFinding } from "./scripts";

/** A run of ordinary text, of escaped characters (shown highlighted), or of look-alike letters (marked). */
export type Segment = { t: string } | { e: string; title: string } | { m: string; title: string };

export type HiddenKind = "bidi" | "invisible" | "space" | "control";

export type Finding = { kind: HiddenKind; code: number; name: string } | ScriptFinding;

export type Revealed = {
  segments: Segment[];
  /** The escaped text as one string (what the segments spell). */
  text: string;
  /** What was hidden or suspicious; empty for an ordinary value. */
  findings: Finding[];
};

export type RevealMode = {
  /** JSON string style: quotes, backslashes and control characters as JSON escapes (\n, \u0001). */
  json?: boolean;
  /** With json: leave out the opening or closing quote (a piece of a longer string). */
  openQuote?: boolean;
  closeQuote?: boolean;
  /** Keep line feeds and tabs as they are (free text such as the summary). */
  multiline?: boolean;
};

// Direction-changing: embeddings, overrides, isolates and marks.
const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/u;
/** Everything that is escaped, in one class (checked first, as a fast path). */
const NEEDS_ESCAPE =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000\u27E8\u27E9\u115F\u1160\u3164\uFFA0\u034F\u17B4\u17B5\u180B-\u180F\u2800\uFE00-\uFE0F\u{E0100}-\u{E01EF}\u{1D159}\u{1D173}-\u{1D17A}]/u;
const NEEDS_ESCAPE_ALL = new RegExp(NEEDS_ESCAPE.source, "gu");
const UNUSUAL_SPACE = /[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/u;
const JSON_SHORT: Record<string, string> = { "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

const NAMES: Record<number, string> = {
  0x00a0: "no-break space",
  0x00ad: "soft hyphen",
  0x034f: "combining grapheme joiner",
  0x061c: "Arabic letter mark",
  0x115f: "Hangul choseong filler",
  0x1160: "Hangul jungseong filler",
  0x180e: "Mongolian vowel separator",
  0x200b: "zero width space",
  0x200c: "zero width non-joiner",
  0x200d: "zero width joiner",
  0x200e: "left-to-right mark",
  0x200f: "right-to-left mark",
  0x2028: "line separator",
  0x2029: "paragraph separator",
  0x202a: "left-to-right embedding",
  0x202b: "right-to-left embedding",
  0x202c: "pop directional formatting",
  0x202d: "left-to-right override",
  0x202e: "right-to-left override",
  0x2060: "word joiner",
  0x2066: "left-to-right isolate",
  0x2067: "right-to-left isolate",
  0x2068: "first strong isolate",
  0x2069: "pop directional isolate",
  0x2800: "braille pattern blank",
  0x3000: "ideographic space",
  0x3164: "Hangul filler",
  0xfeff: "zero width no-break space",
  0xffa0: "halfwidth Hangul filler",
};

const hex = (code: number) => code.toString(16).toUpperCase().padStart(4, "0");
/** The visible stand-in for one code point: ⟨U+202E⟩. */
export const escapeOf = (code: number) => `⟨U+${hex(code)}⟩`;

export function characterName(code: number): string {
  const known = NAMES[code];
  if (known) return known;
  if ((code >= 0xfe00 && code <= 0xfe0f) || (code >= 0xe0100 && code <= 0xe01ef)) return "variation selector";
  if (code >= 0xe0000 && code <= 0xe007f) return "tag character";
  if (/\p{Cc}/u.test(String.fromCodePoint(code))) return "control character";
  if (/\p{Co}/u.test(String.fromCodePoint(code))) return "private-use character";
  if (/\p{Cn}/u.test(String.fromCodePoint(code))) return "unassigned code point";
  if (code >= 0xd800 && code <= 0xdfff) return "lone surrogate";
  if (UNUSUAL_SPACE.test(String.fromCodePoint(code))) return "unusual space";
  return "invisible character";
}

function kindOf(ch: string): HiddenKind {
  if (BIDI.test(ch)) return "bidi";
  if (UNUSUAL_SPACE.test(ch)) return "space";
  if (/\p{Cc}/u.test(ch)) return "control";
  return "invisible";
}

/** True for a string made only of printable ASCII: nothing to escape or flag. */
export function isPlainAscii(s: string): boolean {
  return /^[\x20-\x7e]*$/.test(s);
}

/**
 * What reveal() would report, without building segments (for scanning a whole
 * argument tree). With `lookalikes: false`, hidden characters only.
 */
export function findingsOf(s: string, mode: RevealMode = {}, lookalikes = true): Finding[] {
  if (isPlainAscii(s)) return [];
  const findings: Finding[] = [];
  if (NEEDS_ESCAPE.test(s)) {
    const seen = new Set<number>();
    // exec() in a loop: matchAll() would copy this large regex on every call.
    NEEDS_ESCAPE_ALL.lastIndex = 0;
    for (let m = NEEDS_ESCAPE_ALL.exec(s); m; m = NEEDS_ESCAPE_ALL.exec(s)) {
      const ch = m[0];
      const code = ch.codePointAt(0)!;
      if (seen.has(code) || !isFinding(ch, code, mode)) continue;
      seen.add(code);
      findings.push({ kind: kindOf(ch), code, name: characterName(code) });
    }
  }
  if (lookalikes) findings.push(...scriptFindings(s));
  return findings;
}

/** Whether an escaped character is a finding: not a literal bracket, nor a control character the mode shows as itself or as a JSON escape. */
function isFinding(ch: string, code: number, mode: RevealMode): boolean {
  if (code === 0x27e8 || code === 0x27e9) return false;
  const isControl = code < 0x20 || (code >= 0x7f && code <= 0x9f);
  return !(isControl && (mode.json || (mode.multiline && (ch === "\n" || ch === "\t"))));
}

/** Whether findingsOf(s, mode, false) finds anything, stopping at the first (one regex pass at most). */
export function hasHiddenCharacters(s: string, mode: RevealMode = {}): boolean {
  if (isPlainAscii(s) || !NEEDS_ESCAPE.test(s)) return false;
  NEEDS_ESCAPE_ALL.lastIndex = 0;
  for (let m = NEEDS_ESCAPE_ALL.exec(s); m; m = NEEDS_ESCAPE_ALL.exec(s)) if (isFinding(m[0], m[0].codePointAt(0)!, mode)) return true;
  return false;
}

export function reveal(s: string, mode: RevealMode = {}): Revealed {
  const analysis = isPlainAscii(s) ? { findings: [], marks: new Map<number, string>() } : scriptAnalysis(s);
  if (!NEEDS_ESCAPE.test(s) && analysis.marks.size === 0) {
    // Nothing to escape or mark (the usual case): one run of text.
    const plainText = mode.json ? JSON.stringify(s).slice(mode.openQuote === false ? 1 : 0, mode.closeQuote === false ? -1 : undefined) : s;
    return { segments: plainText ? [{ t: plainText }] : [], text: plainText, findings: analysis.findings };
  }

  const segments: Segment[] = [];
  const findings: Finding[] = [];
  const seen = new Set<number>();
  let text = "";
  // The run being built: plain text, escapes, or marked look-alike letters.
  let kind: "t" | "e" | "m" = "t";
  let run = "";
  let titles: string[] = [];
  const flush = () => {
    const title = [...new Set(titles)].join(", ");
    if (run) segments.push(kind === "t" ? { t: run } : kind === "e" ? { e: run, title } : { m: run, title });
    run = "";
    titles = [];
  };
  const add = (k: typeof kind, x: string, title?: string) => {
    if (k !== kind) {
      flush();
      kind = k;
    }
    run += x;
    text += x;
    if (title) titles.push(title);
  };

  if (mode.json && mode.openQuote !== false) add("t", '"');
  let offset = 0;
  for (const ch of s) {
    const at = offset;
    offset += ch.length;
    const code = ch.codePointAt(0)!;
    if (code >= 0x20 && code < 0x7f) {
      add(analysis.marks.has(at) ? "m" : "t", mode.json && (ch === '"' || ch === "\\") ? `\\${ch}` : ch, analysis.marks.get(at));
      continue;
    }
    if (!NEEDS_ESCAPE.test(ch)) {
      add(analysis.marks.has(at) ? "m" : "t", ch, analysis.marks.get(at));
      continue;
    }
    if (code === 0x27e8 || code === 0x27e9) {
      // A literal escape bracket: escaped so that no value can spell a fake escape.
      add("e", escapeOf(code), "a literal bracket, escaped");
      continue;
    }
    const isControl = code < 0x20 || (code >= 0x7f && code <= 0x9f);
    if (isControl && mode.multiline && (ch === "\n" || ch === "\t")) {
      add("t", ch);
      continue;
    }
    if (isControl && mode.json) {
      // JSON's own escapes are already visible text; not a finding.
      add("t", JSON_SHORT[ch] ?? `\\u${hex(code).toLowerCase()}`);
      continue;
    }
    const name = characterName(code);
    add("e", escapeOf(code), `U+${hex(code)} ${name}`);
    if (!seen.has(code)) {
      seen.add(code);
      findings.push({ kind: kindOf(ch), code, name });
    }
  }
  if (mode.json && mode.closeQuote !== false) add("t", '"');
  flush();
  findings.push(...analysis.findings);
  return { segments, text, findings };
}

/** The text one segment shows. */
export const segmentText = (seg: Segment) => ("t" in seg ? seg.t : "e" in seg ? seg.e : seg.m);

/** One line of what was found, for a warning or a badge: "right-to-left override (U+202E)". */
export function describeFinding(f: Finding): string {
  switch (f.kind) {
    case "bidi":
      return `direction-changing character ${f.name} (U+${hex(f.code)})`;
    case "space":
      return `look-alike space ${f.name} (U+${hex(f.code)})`;
    case "control":
      return `control character (U+${hex(f.code)})`;
    case "invisible":
      return `invisible character ${f.name} (U+${hex(f.code)})`;
    default:
      return f.reason;
  }
}

/** A short reason for a per-value flag: "mixes scripts: Latin + Cyrillic; invisible character …", at most `max` findings and a count. */
export function flagReason(findings: readonly Finding[], max = 3): string | null {
  if (findings.length === 0) return null;
  const parts = [...new Set(findings.map(describeFinding))];
  return parts.length > max ? `${parts.slice(0, max).join("; ")}; and ${parts.length - max} more` : parts.join("; ");
}
