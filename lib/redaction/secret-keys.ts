// Object keys named like secrets: their value is hidden whatever it is.
//
// A key is split into lowercase words at `-`, `_`, spaces, other ASCII
// punctuation and camelCase humps ("xApiKey", "X-API-Key", "x_api_key" all
// become x / api / key). It names a secret when it contains a secret term:
//   - a secret word (password, token, secret, cookie, authorization, ...),
//   - a word containing a long secret stem ("dbpassword", "APIKEY"),
//   - or a secret pair of words (api key, private key, session id, ...),
// unless the last word says the value only describes the secret (token_type,
// secret_name, api_key_id, password_length, token_expires_at): reviewers
// need to see which secret a tool call asks for. A term that ends on the
// last word always wins ("session_id", "access_token").

const SECRET_WORDS = new Set([
  "password",
  "passwords",
  "passwd",
  "pwd",
  "passphrase",
  "secret",
  "secrets",
  "token",
  "apikey",
  "apikeys",
  "authorization",
  "auth",
  "cookie",
  "cookies",
  "credential",
  "credentials",
  "creds",
  "privatekey",
  "secretkey",
  "accesstoken",
  "refreshtoken",
  "sessionid",
  "sessid",
  "jsessionid",
  "phpsessid",
]);

// Matched inside a single word, e.g. "dbpassword", "XAPIKEY", "mysecretkey".
const SECRET_STEMS = [
  "password",
  "passwd",
  "passphrase",
  "apikey",
  "privatekey",
  "secretkey",
  "accesstoken",
  "refreshtoken",
  "authtoken",
  "sessiontoken",
  "clientsecret",
  "authorization",
];

const SECRET_PAIRS = new Set([
  "api key",
  "api keys",
  "api token",
  "api tokens",
  "private key",
  "access key",
  "signing key",
  "encryption key",
  "master key",
  "ssh key",
  "session id",
  "session key",
  "access tokens",
  "refresh tokens",
  "auth tokens",
  "session tokens",
  "bearer tokens",
  "id tokens",
]);

// Only "tokens" alone is a secret word: "max_tokens" or "input_tokens" are
// LLM parameters, not credentials.
const SOLE_SECRET_KEYS = new Set(["tokens", "pass"]);

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
    if (!isUpper && !isLower && !isDigit && c < 128) {
      flush();
      continue;
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

/** True when the value under this key must be hidden whatever it is. */
export function isSecretKeyName(key: string): boolean {
  if (key.length > 200) return isSecretKeyName(key.slice(0, 200));
  const words = keyWords(key);
  if (words.length === 0) return false;
  if (words.length === 1 && SOLE_SECRET_KEYS.has(words[0] as string)) return true;
  const last = words.length - 1;
  let found = false;
  for (let k = 0; k < words.length; k++) {
    const word = words[k] as string;
    const pair = k < last ? `${word} ${words[k + 1]}` : undefined;
    const endsAt = pair !== undefined && SECRET_PAIRS.has(pair) ? k + 1 : SECRET_WORDS.has(word) || SECRET_STEMS.some((s) => word.includes(s)) ? k : -1;
    if (endsAt === -1) continue;
    if (endsAt === last) return true;
    found = true;
  }
  return found && !DESCRIPTIVE_LAST_WORDS.has(words[last] as string);
}
