// Built-in text rules. Each finder reports the [start, end) ranges to hide.
//
// Every finder runs in time linear in the text length:
//   - the regexes (api_key, aws_access_key_id, bearer_token, PEM markers)
//     start with a literal, or with a lookbehind that lets a scan enter a
//     run of characters only at its first character; their quantifiers are
//     bounded or followed by characters they cannot consume, so a failed
//     attempt gives up after one pass over the run;
//   - card numbers and IBANs are hand-written scanners: from each possible
//     start they read at most ~40 characters and check every cut point's
//     checksum in O(1) with running sums;
//   - emails are scanned around each "@" and PEM blocks with one forward
//     search for the END line, so each character is visited a constant
//     number of times.

import type { BuiltinTextRule } from "./names";
import { luhnValid } from "./checksums";

export type Range = { start: number; end: number };

export type TextRule = {
  name: string;
  /** No match is shorter: shorter texts are skipped. */
  minLength: number;
  /** Appends the ranges to hide, in any order; may overlap. */
  find(text: string, out: Range[]): void;
};

const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isDigit = (c: number) => c >= 48 && c <= 57;

/** Runs a global regex and reports each match (or one capture group). */
function regexFinder(name: BuiltinTextRule, minLength: number, source: string, flags: string, group = 0): TextRule {
  const re = new RegExp(source, flags.includes("g") ? flags : `${flags}g`);
  return {
    name,
    minLength,
    find(text, out) {
      re.lastIndex = 0;
      for (let m = re.exec(text); m; m = re.exec(text)) {
        const part = m[group] ?? "";
        const end = m.index + m[0].length;
        if (m[0].length === 0) re.lastIndex++;
        else if (part.length > 0) out.push({ start: end - part.length, end });
      }
    },
  };
}

// `sk-`/`pk-` keys (OpenAI, Anthropic "sk-ant-", Stripe "sk_live_"),
// GitHub tokens (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_) and Slack tokens
// (xoxb-, xoxp-, xoxa-, ...). The lookbehind keeps "task-force..." or
// "risk-..." from matching and makes a scan enter a run only at its start.
export const API_KEY_PATTERN =
  "(?<![A-Za-z0-9])(?:(?:sk|pk)[-_][A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|xox[a-z]-[A-Za-z0-9-]{10,})";

// AWS access key ids: 4-character prefix + 16 upper-case alphanumerics.
export const AWS_ACCESS_KEY_ID_PATTERN = "(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])";

// "Bearer <token>": only the token (group 1) is hidden, so the text keeps
// "Bearer [redacted:bearer_token]". Tokens shorter than 16 characters are
// left alone ("the bearer of bad news").
export const BEARER_TOKEN_PATTERN = "\\bbearer[ \\t]+([A-Za-z0-9._~+/-]{16,}=*)";

export const PEM_BEGIN_PATTERN = "-----BEGIN [^\\r\\n-]{1,80}-----";
export const PEM_END_PATTERN = "-----END [^\\r\\n-]{1,80}-----";

const isUpperAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
const isUpper = (c: number) => c >= 65 && c <= 90;

// Card numbers: 13-19 digits with optional single spaces or dashes between
// digits, not preceded by a digit nor by "<digit>." (the fraction of a
// decimal number), ending where no digit follows. From each possible start,
// the longest Luhn-valid cut wins. Hand-written scanner: each start looks at
// no more than 37 characters, so the whole scan is linear.
const cardNumber: TextRule = {
  name: "card_number",
  minLength: 13,
  find(text, out) {
    const n = text.length;
    const ends: number[] = new Array<number>(20).fill(0);
    // Running sums over the first k digits, split by index parity, of the
    // digits as they are (plain) and doubled Luhn-style (dbl). In a prefix of
    // len digits, digits with the parity of len - 1 stay plain, the others
    // are doubled, so every cut's Luhn sum is one addition.
    const plainEven: number[] = new Array<number>(20).fill(0);
    const plainOdd: number[] = new Array<number>(20).fill(0);
    const dblEven: number[] = new Array<number>(20).fill(0);
    const dblOdd: number[] = new Array<number>(20).fill(0);
    for (let i = 0; i < n; i++) {
      if (!isDigit(text.charCodeAt(i))) continue;
      if (i > 0 && isDigit(text.charCodeAt(i - 1))) continue;
      if (i > 1 && text.charCodeAt(i - 1) === 46 && isDigit(text.charCodeAt(i - 2))) continue;
      let count = 0;
      let j = i;
      while (count < 19) {
        const c = text.charCodeAt(j);
        if (isDigit(c)) {
          const d = c - 48;
          const dd = d < 5 ? d * 2 : d * 2 - 9;
          const even = (count & 1) === 0;
          plainEven[count + 1] = (plainEven[count] as number) + (even ? d : 0);
          plainOdd[count + 1] = (plainOdd[count] as number) + (even ? 0 : d);
          dblEven[count + 1] = (dblEven[count] as number) + (even ? dd : 0);
          dblOdd[count + 1] = (dblOdd[count] as number) + (even ? 0 : dd);
          ends[count++] = ++j;
        } else if ((c === 32 || c === 45) && count > 0 && isDigit(text.charCodeAt(j + 1))) {
          j++;
        } else break;
      }
      for (let len = count; len >= 13; len--) {
        const end = ends[len - 1] as number;
        if (end < n && isDigit(text.charCodeAt(end))) continue;
        const sum =
          ((len - 1) & 1) === 0 ? (plainEven[len] as number) + (dblOdd[len] as number) : (plainOdd[len] as number) + (dblEven[len] as number);
        if (sum % 10 === 0) {
          out.push({ start: i, end });
          i = end - 1;
          break;
        }
      }
    }
  },
};

// IBANs: two upper-case letters, two check digits (02-98), then 11-30 upper
// case letters or digits, optionally grouped with single spaces; not
// preceded by a letter or digit, ending where no letter or digit follows.
// The mod-97 remainder of every BBAN prefix is kept as the scan goes, so all
// cut points are checked in O(1) each (the country code and check digits
// are appended last: remainder * 10^6 + their six digits).
const MOD97_SHIFT6 = 1_000_000 % 97;
const iban: TextRule = {
  name: "iban",
  minLength: 15,
  find(text, out) {
    const n = text.length;
    const ends: number[] = new Array<number>(30).fill(0);
    const rests: number[] = new Array<number>(30).fill(0);
    for (let i = 0; i + 3 < n; i++) {
      if (i > 0 && isAlnum(text.charCodeAt(i - 1))) continue;
      const c0 = text.charCodeAt(i);
      const c1 = text.charCodeAt(i + 1);
      const d0 = text.charCodeAt(i + 2);
      const d1 = text.charCodeAt(i + 3);
      if (!isUpper(c0) || !isUpper(c1) || !isDigit(d0) || !isDigit(d1)) continue;
      const check = (d0 - 48) * 10 + (d1 - 48);
      if (check < 2 || check > 98) continue;
      const tail = (((c0 - 55) * 100 + (c1 - 55)) * 100 + check) % 97;
      let count = 0;
      let rest = 0;
      let j = i + 4;
      while (count < 30) {
        let c = text.charCodeAt(j);
        if (c === 32 && isUpperAlnum(text.charCodeAt(j + 1))) c = text.charCodeAt(++j);
        if (!isUpperAlnum(c)) break;
        rest = c <= 57 ? (rest * 10 + (c - 48)) % 97 : (rest * 100 + (c - 55)) % 97;
        rests[count] = rest;
        ends[count++] = ++j;
      }
      for (let len = count; len >= 11; len--) {
        const end = ends[len - 1] as number;
        if (end < n && isAlnum(text.charCodeAt(end))) continue;
        if (((rests[len - 1] as number) * MOD97_SHIFT6 + tail) % 97 === 1) {
          out.push({ start: i, end });
          i = end - 1;
          break;
        }
      }
    }
  },
};

// Email: local part [A-Za-z0-9._%+-]+ @ domain with at least one dot and a
// TLD starting with 2+ letters (the match ends after those letters).
// Scanned around each "@": the local part backwards (stopping at the
// previous match or at any character a local part cannot contain, such as
// "@"), the domain forwards (stopping at "@" too), so no character is
// visited by more than two "@"s.
const isLocalChar = (c: number) => isAlnum(c) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45;
const isLabelChar = (c: number) => isAlnum(c) || c === 45;
const isAlpha = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

const email: TextRule = {
  name: "email",
  minLength: 6,
  find(text, out) {
    let floor = 0; // nothing before this index belongs to a new match
    let at = text.indexOf("@");
    while (at !== -1) {
      let start = at;
      while (start > floor && isLocalChar(text.charCodeAt(start - 1))) start--;
      let end = -1;
      if (start < at) {
        // Domain: labels of [A-Za-z0-9-] separated by single dots.
        let k = at + 1;
        let dots = 0;
        for (;;) {
          const labelStart = k;
          let alphaEnd = -1; // end of the label's leading letters
          while (k < text.length && isLabelChar(text.charCodeAt(k))) {
            if (alphaEnd === -1 && !isAlpha(text.charCodeAt(k))) alphaEnd = k;
            k++;
          }
          if (k === labelStart) break;
          if (alphaEnd === -1) alphaEnd = k;
          // "ana@example.com2024": the TLD is "com", the digits stay visible.
          if (dots > 0 && alphaEnd - labelStart >= 2) end = alphaEnd;
          if (text.charCodeAt(k) !== 46) break;
          dots++;
          k++;
        }
      }
      if (end === -1) {
        at = text.indexOf("@", at + 1);
      } else {
        out.push({ start, end });
        floor = end;
        at = text.indexOf("@", end);
      }
    }
  },
};

// PEM: from "-----BEGIN X-----" to the next "-----END Y-----". A block with
// no END line is hidden to the end of the text: key material is never left
// visible because the block was cut.
const pemBegin = new RegExp(PEM_BEGIN_PATTERN, "g");
const pemEnd = new RegExp(PEM_END_PATTERN, "g");
const pem: TextRule = {
  name: "pem",
  minLength: 17,
  find(text, out) {
    pemBegin.lastIndex = 0;
    for (let m = pemBegin.exec(text); m; m = pemBegin.exec(text)) {
      pemEnd.lastIndex = m.index + m[0].length;
      const end = pemEnd.exec(text);
      const blockEnd = end ? end.index + end[0].length : text.length;
      out.push({ start: m.index, end: blockEnd });
      pemBegin.lastIndex = blockEnd;
    }
  },
};

/** Built-in rules, in priority order (used to name overlapping matches). */
export const BUILTIN_RULES: readonly TextRule[] = [
  pem,
  regexFinder("aws_access_key_id", 20, AWS_ACCESS_KEY_ID_PATTERN, "g"),
  regexFinder("api_key", 15, API_KEY_PATTERN, "g"),
  regexFinder("bearer_token", 23, BEARER_TOKEN_PATTERN, "gi", 1),
  email,
  iban,
  cardNumber,
];

/**
 * Whether a JSON number is written as a card number: an integer of 13-19
 * digits (sign ignored) that passes Luhn. Above 2^53 a number has already
 * lost digits when it was parsed; its shortest decimal form is checked.
 */
export function isCardNumberValue(value: number | bigint): boolean {
  if (typeof value === "number" && !Number.isInteger(value)) return false;
  const digits = String(value).replace(/^-/, "");
  return /^[0-9]{13,19}$/.test(digits) && luhnValid(digits);
}
