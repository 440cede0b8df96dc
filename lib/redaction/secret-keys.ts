// Object keys named like secrets: their value is hidden whatever it is.
//
// A key is first folded (key-fold.ts: NFKC-style compatibility forms,
// invisible characters and Latin lookalikes), then split into lowercase
// words at separators (any character that is not a letter or digit) and
// camelCase humps ("xApiKey", "X-API-Key", "x_api_key" all become x / api /
// key). It names a secret when it contains a secret term:
//   - a secret word, also spelled across separators ("pass_word",
//     "pass-code", "private_key", "session_id" are the words password,
//     passcode, privatekey, sessionid),
//   - a long secret stem inside a word or starting at a word ("dbpassword",
//     "APIKEY", "db_pass_word"),
//   - or, for the whole key only, a word that is a secret on its own but a
//     common part of other names: "key", "private", "pass", "tokens"
//     ("idempotency_key", "cache_key", "max_tokens" stay visible),
// unless the last word says the value only describes the secret (token_type,
// secret_name, api_key_id, password_length, otp_enabled): reviewers need to
// see which secret a tool call asks for. A term that ends on the last word
// always wins ("session_id", "access_token").
import { foldKeyName } from "./key-fold";

const SECRET_WORDS = new Set([
  "password",
  "passwords",
  "passwd",
  "pwd",
  "passphrase",
  "passcode",
  "pincode",
  "secret",
  "secrets",
  "token",
  "apikey",
  "apikeys",
  "apitoken",
  "apitokens",
  "authorization",
  "auth",
  "cookie",
  "cookies",
  "credential",
  "credentials",
  "creds",
  "privatekey",
  "secretkey",
  "accesskey",
  "signingkey",
  "encryptionkey",
  "masterkey",
  "sshkey",
  "licensekey",
  "accesstoken",
  "accesstokens",
  "refreshtoken",
  "refreshtokens",
  "authtokens",
  "sessiontokens",
  "bearertokens",
  "idtokens",
  "sessionid",
  "sessionkey",
  "sessid",
  "jsessionid",
  "phpsessid",
  // One-time codes and card security codes.
  "pin",
  "otp",
  "totp",
  "hotp",
  "mfacode",
  "cvv",
  "cvv2",
  "cvc",
  "cvc2",
  "cvn",
  "securitycode",
  // Passwords in other languages, short spellings and wallet secrets (§20):
  // "Pass-Wort", "MOT_DE_PASSE", "contraseña" (folded to contrasena),
  // "hasło" (haslo), "recovery_phrase".
  "pw",
  "pswd",
  "passwort",
  "kennwort",
  "contrasena",
  "motdepasse",
  "senha",
  "parola",
  "haslo",
  "bearer",
  "seed",
  "seedphrase",
  "mnemonic",
  "recoveryphrase",
]);

// Matched inside a single word or starting at a word, e.g. "dbpassword",
// "XAPIKEY", "db_pass_word".
const SECRET_STEMS = [
  "password",
  "passwd",
  "passphrase",
  "passcode",
  "apikey",
  "privatekey",
  "secretkey",
  "accesstoken",
  "refreshtoken",
  "authtoken",
  "sessiontoken",
  "clientsecret",
  "authorization",
  "passwort",
  "kennwort",
  "contrasena",
  "motdepasse",
  "mnemonic",
  "seedphrase",
  "recoveryphrase",
];

// Secrets only as the whole key: as part of a longer name they are common
// and harmless (idempotency_key, sort_key, is_private, max_tokens).
const SOLE_SECRET_KEYS = new Set(["tokens", "pass", "key", "keys", "private"]);

/**
 * Whole keys that are secrets but also everyday flags: `{"private": true}`
 * (a repository's visibility) or `{"pin": false}` carry no secret in a
 * boolean, and the reviewer needs to see them. Other values are hidden.
 */
const BOOLEAN_VISIBLE_KEYS = new Set(["private", "pin", "otp", "key"]);

const DESCRIPTIVE_LAST_WORDS = new Set([
  "id",
  "ids",
  "name",
  "names",
  "arn",
  "type",
  "types",
  "kind",
  "count",
  "limit",
  "length",
  "size",
  "ttl",
  "at",
  "expiry",
  "expires",
  "expiration",
  "url",
  "uri",
  "endpoint",
  "enabled",
  "required",
  "policy",
  "version",
  "format",
  "method",
  "mode",
  "scheme",
  "provider",
  "path",
  "file",
  "location",
]);

const MAX_TERM = 24;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** Splits a key into lowercase words ("X-API-Key" -> ["x", "api", "key"]). */
export function keyWords(key: string): string[] {
  const words: string[] = [];
  let word = "";
  const flush = () => {
    if (word) words.push(word.toLowerCase());
    word = "";
  };
  for (let k = 0; k < key.length; k++) {
    const c = key.charCodeAt(k);
    const isUpper = c >= 65 && c <= 90;
    const isLower = c >= 97 && c <= 122;
    const isDigit = c >= 48 && c <= 57;
    if (!isUpper && !isLower && !isDigit && (c < 128 || !LETTER_OR_DIGIT.test(key[k] as string))) {
      // Surrogate halves of astral letters are kept (they are rare in keys).
      if (c < 0xd800 || c > 0xdfff) {
        flush();
        continue;
      }
    }
    if (isUpper && word) {
      const prev = word.charCodeAt(word.length - 1);
      const prevUpper = prev >= 65 && prev <= 90;
      const next = key.charCodeAt(k + 1);
      const nextLower = next >= 97 && next <= 122;
      // "apiKey" -> api|Key ; "APIKey" -> API|Key ; "API" stays whole.
      if (!prevUpper || nextLower) flush();
    }
    word += key[k];
  }
  flush();
  return words;
}

/** The folded words of a key, or [] when it has none. */
function foldedWords(key: string): string[] {
  return keyWords(foldKeyName(key.length > 200 ? key.slice(0, 200) : key));
}

function secretIn(words: string[]): boolean {
  if (words.length === 0) return false;
  if (SOLE_SECRET_KEYS.has(words.join(""))) return true;
  const last = words.length - 1;
  let found = false;
  const found_at = (endsAt: number) => {
    if (endsAt === last) return true;
    found = true;
    return false;
  };
  // Secret words, alone or spelled across consecutive words.
  for (let i = 0; i <= last; i++) {
    let joined = "";
    for (let j = i; j <= last && joined.length < MAX_TERM; j++) {
      joined += words[j] as string;
      if (SECRET_WORDS.has(joined) && found_at(j)) return true;
    }
  }
  // Stems: inside one word, or starting at a word and running across the next ones.
  const joined = words.join("");
  const wordOf: number[] = [];
  const wordStart = new Set<number>();
  words.forEach((w, k) => {
    wordStart.add(wordOf.length);
    for (let c = 0; c < w.length; c++) wordOf.push(k);
  });
  for (const stem of SECRET_STEMS) {
    for (let at = joined.indexOf(stem); at !== -1; at = joined.indexOf(stem, at + 1)) {
      const endWord = wordOf[at + stem.length - 1] as number;
      if (wordOf[at] !== endWord && !wordStart.has(at)) continue;
      if (found_at(endWord)) return true;
    }
  }
  return found && !DESCRIPTIVE_LAST_WORDS.has(words[last] as string);
}

// Keys repeat (every row of a table has the same ones): answers are cached,
// and the cache starts over when it is full.
const CACHE_LIMIT = 10_000;
const answers = new Map<string, boolean>();

/** True when the value under this key must be hidden whatever it is. */
export function isSecretKeyName(key: string): boolean {
  let answer = answers.get(key);
  if (answer === undefined) {
    answer = secretIn(foldedWords(key));
    if (answers.size >= CACHE_LIMIT) answers.clear();
    answers.set(key, answer);
  }
  return answer;
}

/** True when a boolean under this secret key may stay visible (see BOOLEAN_VISIBLE_KEYS). */
export function keepsBooleanValue(key: string): boolean {
  return BOOLEAN_VISIBLE_KEYS.has(foldedWords(key).join(""));
}
