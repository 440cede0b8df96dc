// Encoded text that may hide a secret: base64 / base64url and hex runs, and
// escapes (%XX, \xXX, \uXXXX, &#NN; / &#xHH;). The scanner decodes each
// candidate and runs the rules on the result; a secret inside hides the
// whole encoded run (base64, hex) or exactly the escaped characters that
// spell it (escapes keep a map back to the original).
//
// Bounded: a candidate decodes to text no longer than itself, candidates do
// not overlap, and the scanner decodes at most MAX_DECODE_DEPTH levels deep,
// so the work stays linear in the text length.

export const MAX_DECODE_DEPTH = 2;

export type Decoded = {
  start: number;
  end: number;
  text: string;
  /** For escapes: offset in the original of each decoded index (plus one past the end). */
  map?: number[];
};

const MIN_BASE64 = 12;
const MIN_HEX = 24;
const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{12,}={0,2}/g;
const HEX_ONLY = /^[0-9a-fA-F]+$/;

// In base64 of text, each 4-character group starts with the top 6 bits of a
// byte: for printable ASCII (0x20-0x7E) that is "I"-"Z" or "a"-"f", for tab
// and line breaks "C"/"D". A run whose groups mostly start otherwise cannot
// be text, and is not decoded at all (random ids, hashes, UUIDs); non-ASCII
// text (an IDN address) adds "g"-"z" and digits. What is decoded must be
// valid UTF-8 with few control characters.
const textLead = (c: number) => (c >= 73 && c <= 90) || (c >= 97 && c <= 102) || c === 67 || c === 68;
// UTF-8 lead and continuation bytes (0x80-0xF4) start with "g"-"z" or "0"-"9".
const utf8Lead = (c: number) => (c >= 103 && c <= 122) || (c >= 48 && c <= 57);

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The bytes as text if they are valid UTF-8 with few control characters. */
function asText(bytes: Uint8Array): string | undefined {
  if (bytes.length === 0) return undefined;
  let control = 0;
  for (const b of bytes) if ((b < 0x20 && b !== 9 && b !== 10 && b !== 13) || b === 0x7f) control++;
  if (control > bytes.length * 0.1) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

function base64Candidate(run: string): string | undefined {
  const body = run.replace(/=+$/, "");
  if (body.length < MIN_BASE64) return undefined;
  let groups = 0;
  let ascii = 0;
  for (let k = 0; k < body.length; k += 4) {
    groups++;
    const c = body.charCodeAt(k);
    if (textLead(c)) ascii++;
    else if (!utf8Lead(c)) return undefined;
  }
  if (ascii === 0 && groups > 2) return undefined;
  return asText(Buffer.from(body, "base64"));
}

function hexCandidate(run: string): string | undefined {
  if (run.length < MIN_HEX || run.length % 2 !== 0 || !HEX_ONLY.test(run)) return undefined;
  // Hex of text: every high nibble is 2-7 (ASCII) or 8-f (UTF-8), never 0-1
  // but for tabs and line breaks.
  let ascii = 0;
  for (let k = 0; k < run.length; k += 2) {
    const c = run.charCodeAt(k) | 0x20;
    const low = run.charCodeAt(k + 1) | 0x20;
    if (c >= 50 && c <= 55) ascii++;
    else if (c === 48 && (low === 57 || low === 97 || low === 100))
      ascii++; // tab, line feed, carriage return
    else if (!(c >= 56 && c <= 57) && !(c >= 97 && c <= 102)) return undefined; // other controls: not text
  }
  if (ascii === 0) return undefined;
  return asText(Buffer.from(run, "hex"));
}

const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2})+/y;
const ESCAPE = /%[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}|\\x[0-9A-Fa-f]{2}|&#[0-9]{1,7};|&#[xX][0-9A-Fa-f]{1,6};/g;

/** The text with its escapes decoded, and a map back, or undefined if it has none. */
function unescape(text: string): Decoded | undefined {
  ESCAPE.lastIndex = 0;
  let m = ESCAPE.exec(text);
  if (!m) return undefined;
  let out = "";
  const map: number[] = [];
  let last = 0;
  for (; m; m = ESCAPE.exec(text)) {
    for (let k = last; k < m.index; k++) {
      out += text[k];
      map.push(k);
    }
    const s = m[0];
    if (s[0] === "%") {
      // A run of %XX is UTF-8: each character maps to its first byte's escape.
      PERCENT_RUN.lastIndex = m.index;
      const run = PERCENT_RUN.exec(text)?.[0] ?? s;
      const bytes = Buffer.from(run.replace(/%/g, ""), "hex");
      for (let b = 0; b < bytes.length;) {
        const lead = bytes[b] as number;
        const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
        const chunk = bytes.subarray(b, Math.min(bytes.length, b + size));
        const char = size > 1 && chunk.length === size ? chunk.toString("utf8") : String.fromCharCode(lead);
        const step = char === String.fromCharCode(lead) ? 1 : size;
        for (let k = 0; k < char.length; k++) map.push(m.index + b * 3);
        out += char;
        b += step;
      }
      last = m.index + run.length;
      ESCAPE.lastIndex = last;
      continue;
    }
    const code =
      s[0] === "\\" ? parseInt(s.slice(2), 16) : s[2] === "x" || s[2] === "X" ? parseInt(s.slice(3, -1), 16) : parseInt(s.slice(2, -1), 10);
    const char = code <= 0x10ffff ? String.fromCodePoint(code) : "\uFFFD";
    for (let k = 0; k < char.length; k++) map.push(m.index);
    out += char;
    last = m.index + s.length;
  }
  for (let k = last; k < text.length; k++) {
    out += text[k];
    map.push(k);
  }
  map.push(text.length);
  return { start: 0, end: text.length, text: out, map };
}

/** Encoded runs in `text` that decode to text, each with its decoding. */
export function decodedCandidates(text: string): Decoded[] {
  const found: Decoded[] = [];
  BASE64_RUN.lastIndex = 0;
  for (let m = BASE64_RUN.exec(text); m; m = BASE64_RUN.exec(text)) {
    const run = m[0];
    const decoded = hexCandidate(run) ?? base64Candidate(run);
    if (decoded !== undefined) found.push({ start: m.index, end: m.index + run.length, text: decoded });
  }
  const escaped = unescape(text);
  if (escaped) found.push(escaped);
  return found;
}

/** Maps a decoded [start, end) back through an escape map to the original text. */
export function throughMap(map: number[], start: number, end: number): { start: number; end: number } {
  const s = map[start] as number;
  // The end is the original end of the last decoded character's escape.
  const lastStart = map[end - 1] as number;
  let e = lastStart + 1;
  for (let k = end; k < map.length; k++) {
    const next = map[k] as number;
    if (next !== lastStart) {
      e = next;
      break;
    }
  }
  return { start: s, end: Math.max(e, s + 1) };
}
