// Email addresses, including international ones (ana@bücher.de,
// пользователь@пример.рф, user@例え。jp): a local part, "@" (or its full-width
// and small forms), a domain with at least one dot (also the ideographic and
// full-width dots IDNA accepts) and a top-level label starting with 2+
// letters; the match ends after those letters ("ana@example.com2024" keeps
// the digits), or after a whole "xn--" label.
//
// Scanned around each "@": the local part backwards (stopping at the
// previous match or at any character a local part cannot contain, such as
// "@"), the domain forwards (stopping at "@" too), so no character is
// visited by more than two "@"s.
import type { TextRule } from "./rules";

const isAsciiAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isAsciiAlpha = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const UNICODE_WORD = /[\p{L}\p{N}\p{M}]/u;
const UNICODE_LETTER = /[\p{L}\p{M}]/u;
const isAt = (c: number) => c === 64 || c === 0xff20 || c === 0xfe6b;
const isDot = (c: number) => c === 46 || c === 0x3002 || c === 0xff0e || c === 0xff61;
const AT = /[@\uFF20\uFE6B]/g;

/** A letter, digit or mark beyond ASCII (one UTF-16 unit; surrogates count as letters). */
function isWideWord(text: string, k: number): boolean {
  const c = text.charCodeAt(k);
  if (c < 128) return false;
  if (c >= 0xd800 && c <= 0xdfff) return true;
  if (isAt(c) || isDot(c)) return false;
  return UNICODE_WORD.test(text[k] as string);
}
const isLocalChar = (text: string, k: number) => {
  const c = text.charCodeAt(k);
  return isAsciiAlnum(c) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45 || isWideWord(text, k);
};
const isLabelChar = (text: string, k: number) => {
  const c = text.charCodeAt(k);
  return isAsciiAlnum(c) || c === 45 || isWideWord(text, k);
};
const isLetterAt = (text: string, k: number) => {
  const c = text.charCodeAt(k);
  if (c < 128) return isAsciiAlpha(c);
  return (c >= 0xd800 && c <= 0xdfff) || UNICODE_LETTER.test(text[k] as string);
};

export const email: TextRule = {
  name: "email",
  minLength: 6,
  find(text, out) {
    let floor = 0; // nothing before this index belongs to a new match
    AT.lastIndex = 0;
    for (let m = AT.exec(text); m; m = AT.exec(text)) {
      const at = m.index;
      let start = at;
      while (start > floor && isLocalChar(text, start - 1)) start--;
      let end = -1;
      if (start < at) {
        // Domain: labels separated by single dots.
        let k = at + 1;
        let dots = 0;
        for (;;) {
          const labelStart = k;
          let alphaEnd = -1; // end of the label's leading letters
          while (k < text.length && isLabelChar(text, k)) {
            if (alphaEnd === -1 && !isLetterAt(text, k)) alphaEnd = k;
            k++;
          }
          if (k === labelStart) break;
          if (alphaEnd === -1) alphaEnd = k;
          const punycode = text.slice(labelStart, labelStart + 4).toLowerCase() === "xn--";
          if (dots > 0 && (punycode || alphaEnd - labelStart >= 2)) end = punycode ? k : alphaEnd;
          if (!isDot(text.charCodeAt(k))) break;
          dots++;
          k++;
        }
      }
      if (end !== -1) {
        out.push({ start, end });
        floor = end;
        AT.lastIndex = end;
      }
    }
  },
};
