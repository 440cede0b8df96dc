// Secrets written as "name=value" or "name: value" in text: connection
// strings ("Server=db;User Id=app;Password=s3cret;", "PWD={a;b}"), query
// strings ("?access_token=…&x=1"), headers ("Authorization: Bearer …"),
// config lines ("aws_secret_access_key = …") and JSON held in a string
// (`{"password":"…"}`, also with escaped quotes). The name is matched like an
// object key (secret-keys.ts); only the value is hidden.
import type { Range, TextRule } from "./rules";
import { SECRET_KEY_RULE } from "./names";
import { isSecretKeyName, keepsBooleanValue } from "./secret-keys";

const MAX_NAME = 64;
const MAX_VALUE = 1024;
const BOOLEAN_WORDS = /^(?:true|false|yes|no|on|off|null|none|0|1)$/i;
// HTTP auth schemes: "Authorization: Bearer xyz" keeps the scheme visible.
const AUTH_SCHEME = /^(?:bearer|basic|token|digest|negotiate|ntlm|apikey)[ \t]+/i;

const isNameChar = (c: number) =>
  (c >= 48 && c <= 57) ||
  (c >= 65 && c <= 90) ||
  (c >= 97 && c <= 122) ||
  c === 95 ||
  c === 45 ||
  c === 46 ||
  (c >= 0xc0 && c !== 0xd7 && c !== 0xf7 && (c < 0x2000 || c > 0x206f) && c !== 0x3000);
const isSpace = (c: number) => c === 32 || c === 9;
// Where an unquoted value ends.
const isValueStop = (c: number) =>
  c <= 32 ||
  c === 59 ||
  c === 38 ||
  c === 44 ||
  c === 34 ||
  c === 39 ||
  c === 60 ||
  c === 62 ||
  c === 41 ||
  c === 125 ||
  c === 93 ||
  c === 96 ||
  c === 0x85 ||
  c === 0x2028 ||
  c === 0x2029;

/** End of a quoted value opened at `open` (the quote itself), or -1. */
function quotedEnd(text: string, open: number, escaped: boolean): number {
  const quote = text.charCodeAt(open);
  const limit = Math.min(text.length, open + MAX_VALUE);
  for (let k = open + 1; k < limit; k++) {
    const c = text.charCodeAt(k);
    if (c === 10 || c === 13) return -1;
    if (c === 92) {
      if (escaped && text.charCodeAt(k + 1) === quote) return k;
      k++;
      continue;
    }
    if (c === quote && !escaped) return k;
  }
  return -1;
}

/** The [start, end) of the value that follows the separator at `sep`, or undefined. */
function valueAfter(text: string, sep: number): Range | undefined {
  let v = sep + 1;
  while (v < text.length && v - sep <= 8 && isSpace(text.charCodeAt(v))) v++;
  const c = text.charCodeAt(v);
  if (c === 92 && (text.charCodeAt(v + 1) === 34 || text.charCodeAt(v + 1) === 39)) {
    const end = quotedEnd(text, v + 1, true);
    return end === -1 ? undefined : { start: v + 2, end };
  }
  if (c === 34 || c === 39 || c === 96) {
    const end = quotedEnd(text, v, false);
    return end === -1 ? undefined : { start: v + 1, end };
  }
  if (c === 123) {
    const end = text.indexOf("}", v);
    return end === -1 || end - v > MAX_VALUE ? undefined : { start: v + 1, end };
  }
  const scheme = AUTH_SCHEME.exec(text.slice(v, v + 16));
  if (scheme) v += scheme[0].length;
  let end = v;
  const limit = Math.min(text.length, v + MAX_VALUE);
  while (end < limit && !isValueStop(text.charCodeAt(end))) end++;
  // "Password=my secret pass;Server=…": a value with spaces runs to the
  // next ";" when one comes before the next "=" or the end of the line.
  if (end < text.length && isSpace(text.charCodeAt(end))) {
    for (let k = end; k < limit; k++) {
      const d = text.charCodeAt(k);
      if (d === 59) {
        end = k;
        break;
      }
      if (d === 61 || d === 10 || d === 13 || d === 34 || d === 39) break;
    }
  }
  return end > v ? { start: v, end } : undefined;
}

const SEPARATORS = /[:=]/g;

export const secretAssignment: TextRule = {
  name: SECRET_KEY_RULE,
  minLength: 4,
  find(text, out) {
    SEPARATORS.lastIndex = 0;
    let floor = 0;
    for (let m = SEPARATORS.exec(text); m; m = SEPARATORS.exec(text)) {
      const sep = m.index;
      if (sep < floor) continue;
      // "https://…" is a scheme, not a name.
      if (text.charCodeAt(sep) === 58 && text.charCodeAt(sep + 1) === 47 && text.charCodeAt(sep + 2) === 47) continue;
      let k = sep - 1;
      while (k >= 0 && sep - k <= 4 && isSpace(text.charCodeAt(k))) k--;
      const q = text.charCodeAt(k);
      if (q === 34 || q === 39) {
        k--;
        if (text.charCodeAt(k) === 92) k--;
      }
      const nameEnd = k + 1;
      while (k >= 0 && nameEnd - k <= MAX_NAME && isNameChar(text.charCodeAt(k))) k--;
      if (nameEnd - k > MAX_NAME || nameEnd - (k + 1) === 0) continue;
      const name = text.slice(k + 1, nameEnd);
      if (!isSecretKeyName(name)) continue;
      const value = valueAfter(text, sep);
      if (!value) continue;
      if (value.end - value.start <= 5 && BOOLEAN_WORDS.test(text.slice(value.start, value.end)) && keepsBooleanValue(name)) continue;
      out.push(value);
      floor = value.end;
    }
  },
};
