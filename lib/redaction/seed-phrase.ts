// BIP-39 seed phrases: the 12–24 words that restore a crypto wallet, from
// the English BIP-39 list (taken from @scure/bip39, not copied here). Anyone
// who reads them owns the wallet, so a run of them is hidden wherever it
// appears: a whole value, inside a sentence, one word per line, numbered
// ("1. abandon 2. ability …"), in lower, upper or capitalised case, or as
// an array of single words (siblings.ts scans neighbouring strings joined
// with nothing between them, so a run of letters that splits into list
// words counts word by word).
//
// What is hidden: a run of at least MIN_WORDS list words, at most MAX_GAP
// characters that are not letters between two of them (spaces, line
// breaks, commas, quotes, digits), at least MIN_DISTINCT of them different.
//   - Any count from 12 up, not only the standard 12/15/18/21/24: a phrase
//     with a word missing or one added (a passphrase written after it, two
//     phrases in a row) gives the wallet away as well.
//   - The checksum is not required: Electrum seeds use the same words with
//     another checksum, and a phrase copied with one word wrong is still
//     nearly all of the secret.
//   - At least 11 different words: a random phrase rarely repeats a word
//     (a 12-word one has two repeats in about 0.04 % of cases, a longer one
//     practically never), while code and markup that happen to use list
//     words repeat them ("never, never | any, never", "key0: Key0, key1:
//     Key1"). English prose almost never strings twelve list words
//     together: "the", "and", "of", "is", "to" and most short words are not
//     on the list (measured: no match in 10 MB of package READMEs nor in
//     30 MB of TypeScript declarations).
//   - A run of letters counts, as one word or several, only when it is
//     written in one case ("abandon", "abandonability", "ABANDONABILITY",
//     "Abandonability"): camelCase names ("ResponseInputItem") are not
//     phrases.
//
// Linear: one native scan for ASCII letter runs, and each run is split with
// a table over its positions. Every BIP-39 word is known by its first four
// letters (a property of the list), so from each position at most two words
// can start there (a three-letter word and the word of its four-letter
// prefix): no substring is built or looked up.
import { wordlist } from "@scure/bip39/wordlists/english.js";
import type { TextRule } from "./rules";

export const SEED_PHRASE_RULE = "seed_phrase";
/** The fewest words in a row that are hidden: the shortest standard phrase. */
export const MIN_WORDS = 12;
/** The fewest different words among them. */
const MIN_DISTINCT = MIN_WORDS - 1;
/** The most characters between two words of one phrase: a line break, a number, a column's padding. */
const MAX_GAP = 16;

const A = 97;
const letter = (c: number) => (c | 0x20) - A; // 0–25 for an ASCII letter of either case
// Word index + 1 by its first four letters, and by its three letters for the
// three-letter words; 0: none.
const BY_PREFIX4 = new Uint16Array(26 ** 4);
const BY_WORD3 = new Uint16Array(26 ** 3);
const key3 = (w: string, i: number) => (letter(w.charCodeAt(i)) * 26 + letter(w.charCodeAt(i + 1))) * 26 + letter(w.charCodeAt(i + 2));
wordlist.forEach((w, k) => {
  if (!/^[a-z]{3,8}$/.test(w)) throw new Error("unexpected BIP-39 word list");
  if (w.length === 3) BY_WORD3[key3(w, 0)] = k + 1;
  else {
    const key = key3(w, 0) * 26 + letter(w.charCodeAt(3));
    if (BY_PREFIX4[key]) throw new Error("BIP-39 words are no longer unique by four letters");
    BY_PREFIX4[key] = k + 1;
  }
});

// Scratch space shared by every call (finders never run concurrently): for
// each position of a run, the most list words the letters before it split
// into (-1: they do not split) and where the last of them starts. Longer
// runs get arrays of their own, dropped after the call.
const SCRATCH = 1024;
const bestScratch = new Int32Array(SCRATCH);
const fromScratch = new Int32Array(SCRATCH);
// The phrase each word was last counted in (by number), to count different words.
const seenIn = new Int32Array(wordlist.length + 1);
let phrase = 1;

const LENGTH = Uint8Array.from(wordlist, (w) => w.length);

/** The list word (index + 1) of four letters or more spelled at text[at…end), or 0; `k3` is key3(text, at). */
function longWordAt(text: string, at: number, end: number, k3: number): number {
  if (at + 4 > end) return 0;
  const index = BY_PREFIX4[k3 * 26 + letter(text.charCodeAt(at + 3))] as number;
  if (index === 0) return 0;
  const w = wordlist[index - 1] as string;
  if (at + w.length > end) return 0;
  for (let k = 4; k < w.length; k++) if ((text.charCodeAt(at + k) | 0x20) !== w.charCodeAt(k)) return 0;
  return index;
}

/** One case throughout, or a capital then lower case: "abandon", "ABANDON", "Abandon"; not "keyBox", "aBandon" or "aBANDON". */
function oneCase(text: string, s: number, e: number): boolean {
  let upper = 0;
  for (let k = s + 1; k < e; k++) if (text.charCodeAt(k) < A) upper++;
  return upper === 0 || (upper === e - s - 1 && text.charCodeAt(s) < A);
}

/** The words of the last run split (splitRun), and how many of them are new to the phrase. */
let splitWords = 0;
let splitFresh = 0;

function countWord(index: number): void {
  splitWords++;
  if (seenIn[index] !== phrase) {
    seenIn[index] = phrase;
    splitFresh++;
  }
}

/**
 * Splits text[s…e) (ASCII letters) into list words, counting them into
 * splitWords and splitFresh: a list word is one, a longer run as many as it
 * splits into at most; false when it does not split.
 */
function splitRun(text: string, s: number, e: number): boolean {
  splitWords = 0;
  splitFresh = 0;
  const n = e - s;
  if (n < 3) return false;
  // Most runs are not a list word, nor start with one: one or two lookups.
  const k3 = key3(text, s);
  const short = BY_WORD3[k3] as number;
  const long = longWordAt(text, s, e, k3);
  if (short === 0 && long === 0) return false;
  if (!oneCase(text, s, e)) return false;
  // A list word counts as one (only 11 list words are two others run
  // together, "artwork", "network"…); other runs of six letters or more are split.
  if (long && LENGTH[long - 1] === n) countWord(long);
  else if (short && n === 3) countWord(short);
  if (splitWords > 0 || n < 6) return splitWords > 0;
  const best = n < SCRATCH ? bestScratch : new Int32Array(n + 1);
  const from = n < SCRATCH ? fromScratch : new Int32Array(n + 1);
  for (let j = 1; j <= n; j++) best[j] = -1;
  best[0] = 0;
  for (let i = 0; i + 3 <= n; i++) {
    const here = (best[i] as number) + 1;
    if (here === 0) continue;
    const k = key3(text, s + i);
    if (BY_WORD3[k] !== 0 && here > (best[i + 3] as number)) {
      best[i + 3] = here;
      from[i + 3] = i;
    }
    const w = longWordAt(text, s + i, e, k);
    if (w !== 0) {
      const j = i + (LENGTH[w - 1] as number);
      if (here > (best[j] as number)) {
        best[j] = here;
        from[j] = i;
      }
    }
  }
  if ((best[n] as number) <= 0) return false;
  for (let j = n; j > 0; j = from[j] as number) {
    const i = from[j] as number;
    const k = key3(text, s + i);
    countWord(j - i === 3 ? (BY_WORD3[k] as number) : longWordAt(text, s + i, e, k));
  }
  return true;
}

const isAsciiLetter = (c: number) => ((c | 0x20) - A) >>> 0 < 26;
const OTHER_LETTER = /[\p{L}\p{M}]/u;
/** A letter or mark outside ASCII: the run is part of a word that is not on the list ("abandoné"). */
const isOtherLetter = (text: string, k: number) => k >= 0 && k < text.length && text.charCodeAt(k) >= 0x80 && OTHER_LETTER.test(text[k] as string);

function gapHasLetters(text: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (isOtherLetter(text, k)) return true;
  return false;
}

export const seedPhrase: TextRule = {
  name: SEED_PHRASE_RULE,
  minLength: MIN_WORDS * 3,
  find(text, out) {
    const n = text.length;
    let start = -1;
    let end = -1;
    let words = 0;
    let distinct = 0;
    const close = () => {
      if (words >= MIN_WORDS && distinct >= MIN_DISTINCT) out.push({ start, end });
      words = 0;
      distinct = 0;
      // A new number for the next phrase; before they could repeat, every mark is cleared.
      if (++phrase === 0x7fffffff) {
        seenIn.fill(0);
        phrase = 1;
      }
    };
    // Each run of ASCII letters, found by hand: a regex match per word costs an allocation.
    for (let k = 0; k < n;) {
      if (!isAsciiLetter(text.charCodeAt(k))) {
        k++;
        continue;
      }
      const s = k;
      while (k < n && isAsciiLetter(text.charCodeAt(k))) k++;
      const e = k;
      if (words > 0 && (s - end > MAX_GAP || gapHasLetters(text, end, s))) close();
      if (isOtherLetter(text, s - 1) || isOtherLetter(text, e) || !splitRun(text, s, e)) {
        if (words > 0) close();
        continue;
      }
      if (words === 0) start = s;
      words += splitWords;
      distinct += splitFresh;
      end = e;
    }
    if (words > 0) close();
  },
};
