// Built-in text rules. Each finder reports the [start, end) ranges to hide.
//
// Every finder runs in time linear in the text length:
//   - the regexes start with a literal, or with a lookbehind that lets a scan
//     enter a run of characters only at its first character; their
//     quantifiers are bounded or followed by characters they cannot consume,
//     so a failed attempt gives up after one pass over the run;
//   - card numbers and IBANs are hand-written scanners: from each possible
//     start they read a bounded number of characters and check every cut
//     point's checksum in O(1) with running sums;
//   - emails are scanned around each "@" and PEM blocks with one forward
//     search for the END line, so each character is visited a constant
//     number of times;
//   - seed phrases (seed-phrase.ts) are read one run of letters at a time,
//     at most two table lookups per letter.
// The vendor tokens share one combined regex (tokens.ts), so adding a vendor
// does not add a pass over the text.

import { luhnValid } from "./checksums";
import { email } from "./email";
import { IBAN_LENGTHS } from "./iban-countries";
import { secretAssignment } from "./assignments";
import { awsSecretAccessKey, basicAuth, bearerToken, pem, tokens, twilioAuthToken, urlPassword } from "./tokens";
import { eachMatch } from "./each-match";
import { seedPhrase } from "./seed-phrase";

export type Range = { start: number; end: number; /** Rule shown in the tag, when not the finder's own. */ name?: string };

export type TextRule = {
  name: string;
  /** No match is shorter: shorter texts are skipped. */
  minLength: number;
  /** Appends the ranges to hide, in any order; may overlap. */
  find(text: string, out: Range[]): void;
};

const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isDigit = (c: number) => c >= 48 && c <= 57;

// Separators people and systems put between card digit groups: spaces (also
// no-break and thin ones), dashes, dots, underscores and slashes.
export const isCardSeparator = (c: number): boolean =>
  c === 32 ||
  c === 9 ||
  c === 45 ||
  c === 46 ||
  c === 95 ||
  c === 47 ||
  c === 0xa0 ||
  c === 0x2007 ||
  c === 0x2009 ||
  c === 0x202f ||
  (c >= 0x2010 && c <= 0x2015);
const MAX_SEPARATOR_RUN = 3;

// Card numbers: 13-19 digits starting with 2-6 (the issuer ranges of card
// networks: Visa, Mastercard, Amex, Discover, JCB, UnionPay, Diners; a
// millisecond timestamp starts with 1), optionally separated by runs of up
// to three separator characters, not preceded by a digit nor by "<digit>."
// (the fraction of a decimal number), ending where no digit follows, and
// not inside a UUID. A cut that
// uses dots must use at least two ("4111.1111.1111.1111"), so a decimal
// number with one dot is not a card. From each possible start, the longest
// Luhn-valid cut wins. Each start reads at most 19 digits and 18 separator
// runs, so the whole scan is linear.
// UUIDs hold dash-separated digit groups that can pass Luhn by chance
// ("…3f62-5829-8627-496a…"): digits inside one are never a card.
const UUID = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g;
function uuidRanges(text: string): number[] {
  const out: number[] = [];
  eachMatch(UUID, text, (m) => out.push(m.index, m.index + m[0].length));
  return out;
}
const insideUuid = (ranges: number[], start: number, end: number) => {
  for (let k = 0; k < ranges.length; k += 2) if (start < (ranges[k + 1] as number) && end > (ranges[k] as number)) return true;
  return false;
};

// Scratch space shared by every call (finders never run concurrently).
// Running sums over the first k digits, split by index parity, of the
// digits as they are (plain) and doubled Luhn-style (dbl). In a prefix of
// len digits, digits with the parity of len - 1 stay plain, the others are
// doubled, so every cut's Luhn sum is one addition.
const ends = new Int32Array(32);
const dots = new Int32Array(32);
const plainEven = new Int32Array(32);
const plainOdd = new Int32Array(32);
const dblEven = new Int32Array(32);
const dblOdd = new Int32Array(32);
// The first digit of each run of digits, found natively.
const DIGIT_RUN = /(?<![0-9])[0-9]/g;

const cardNumber: TextRule = {
  name: "card_number",
  minLength: 13,
  find(text, out) {
    const n = text.length;
    const uuids = text.includes("-") ? uuidRanges(text) : [];
    DIGIT_RUN.lastIndex = 0;
    for (let m = DIGIT_RUN.exec(text); m; m = DIGIT_RUN.exec(text)) {
      const i = m.index;
      const first = text.charCodeAt(i);
      if (first < 50 || first > 54) continue;
      if (i > 1 && text.charCodeAt(i - 1) === 46 && isDigit(text.charCodeAt(i - 2))) continue;
      let count = 0;
      let dotCount = 0;
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
          dots[count] = dotCount;
          ends[count++] = ++j;
          continue;
        }
        if (count === 0 || !isCardSeparator(c)) break;
        let k = j;
        let runDots = 0;
        for (; k < n && k - j < MAX_SEPARATOR_RUN && isCardSeparator(text.charCodeAt(k)); k++) {
          const sep = text.charCodeAt(k);
          if (sep === 46) runDots++;
        }
        if (!isDigit(text.charCodeAt(k))) break;
        dotCount += runDots;
        j = k;
      }
      for (let len = count; len >= 13; len--) {
        const end = ends[len - 1] as number;
        if (end < n && isDigit(text.charCodeAt(end))) continue;
        if (uuids.length > 0 && insideUuid(uuids, i, end)) continue;
        if (dots[len - 1] === 1) continue;
        const sum =
          ((len - 1) & 1) === 0 ? (plainEven[len] as number) + (dblOdd[len] as number) : (plainOdd[len] as number) + (dblEven[len] as number);
        if (sum % 10 === 0) {
          out.push({ start: i, end });
          DIGIT_RUN.lastIndex = end;
          break;
        }
      }
    }
  },
};

// IBANs: two letters, two check digits (02-98), then 11-30 letters or
// digits, optionally grouped with single spaces; not preceded by a letter
// or digit, ending where no letter or digit follows. Upper case as
// ISO 13616 writes it, any length; in any other case ("de89 3704 …",
// "gb82west…") only a known country's exact length counts, so lower-case
// hex and ids rarely pass by chance. The mod-97 remainder of every BBAN
// prefix is kept as the scan goes, so all cut points are checked in O(1)
// each (the country code and check digits are appended last: remainder *
// 10^6 + their six digits).
const MOD97_SHIFT6 = 1_000_000 % 97;
const upper = (c: number) => (c >= 97 ? c - 32 : c);
const rests = new Int32Array(32);
const allUpper = new Uint8Array(32);
const IBAN_START = /(?<![A-Za-z0-9])[A-Za-z]{2}[0-9]{2}/g;
const iban: TextRule = {
  name: "iban",
  minLength: 15,
  find(text, out) {
    const n = text.length;
    IBAN_START.lastIndex = 0;
    for (let m = IBAN_START.exec(text); m; m = IBAN_START.exec(text)) {
      const i = m.index;
      const c0 = text.charCodeAt(i);
      const c1 = text.charCodeAt(i + 1);
      const d0 = text.charCodeAt(i + 2);
      const d1 = text.charCodeAt(i + 3);
      const check = (d0 - 48) * 10 + (d1 - 48);
      if (check < 2 || check > 98) continue;
      const country = String.fromCharCode(upper(c0), upper(c1));
      const tail = (((upper(c0) - 55) * 100 + (upper(c1) - 55)) * 100 + check) % 97;
      let upperSoFar = c0 <= 90 && c1 <= 90;
      let count = 0;
      let rest = 0;
      let j = i + 4;
      while (count < 30) {
        let c = text.charCodeAt(j);
        if (c === 32 && isAlnum(text.charCodeAt(j + 1))) c = text.charCodeAt(++j);
        if (!isAlnum(c)) break;
        if (c >= 97) upperSoFar = false;
        const u = upper(c);
        rest = u <= 57 ? (rest * 10 + (u - 48)) % 97 : (rest * 100 + (u - 55)) % 97;
        rests[count] = rest;
        allUpper[count] = upperSoFar ? 1 : 0;
        ends[count++] = ++j;
      }
      const known = IBAN_LENGTHS[country];
      for (let len = count; len >= 11; len--) {
        const end = ends[len - 1] as number;
        if (end < n && isAlnum(text.charCodeAt(end))) continue;
        if (allUpper[len - 1] === 0 && known !== len + 4) continue;
        if (((rests[len - 1] as number) * MOD97_SHIFT6 + tail) % 97 === 1) {
          out.push({ start: i, end });
          IBAN_START.lastIndex = end;
          break;
        }
      }
    }
  },
};

/** Built-in rules, in priority order (used to name overlapping matches). */
export const BUILTIN_RULES: readonly TextRule[] = [
  pem,
  tokens,
  awsSecretAccessKey,
  twilioAuthToken,
  bearerToken,
  basicAuth,
  urlPassword,
  secretAssignment,
  seedPhrase,
  email,
  iban,
  cardNumber,
];

/**
 * Whether a JSON number is written as a card number: an integer of 13-19
 * digits starting with 2-6 (sign ignored) that passes Luhn. Above 2^53 a number has already
 * lost digits when it was parsed; its shortest decimal form is checked.
 */
export function isCardNumberValue(value: number | bigint): boolean {
  if (typeof value === "number" && !Number.isInteger(value)) return false;
  const digits = String(value).replace(/^-/, "");
  return /^[2-6][0-9]{12,18}$/.test(digits) && luhnValid(digits);
}
