// Token-shaped secrets: vendor keys with a fixed prefix (one combined regex),
// PEM blocks, AWS secret access keys, HTTP credentials and URL passwords.
import type { Range, TextRule } from "./rules";
import { eachMatch } from "./each-match";

// One regex for every vendor prefix, each alternative a named group whose
// name is the tag. The lookbehind keeps "task-force…" or "risk-…" from
// matching and makes a scan enter a run only at its start; every quantifier
// either is bounded or stops at a character it cannot consume.
const TOKEN_ALTERNATIVES: Array<[name: string, source: string]> = [
  ["aws_access_key_id", "(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])"],
  ["slack_webhook", "hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{8,}"],
  ["jwt", "eyJ[A-Za-z0-9_-]{2,}\\.[A-Za-z0-9_-]{2,}\\.[A-Za-z0-9_-]*"],
  [
    "api_key",
    [
      // Stripe (sk_/rk_/pk_ live and test, webhook secrets), OpenAI and
      // Anthropic "sk-…", other "sk-"/"pk-" keys.
      "(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{8,}",
      "(?:sk|pk)[-_][A-Za-z0-9_-]{16,}",
      "whsec_[A-Za-z0-9+/=]{16,}",
      // GitHub classic, OAuth, user-to-server, server-to-server, refresh and fine-grained tokens.
      "gh[pousr]_[A-Za-z0-9]{30,}",
      "github_pat_[A-Za-z0-9_]{30,}",
      // GitLab personal access tokens.
      "glpat-[A-Za-z0-9_-]{20,}",
      // Slack bot, user, app and config tokens.
      "xox[a-z]-[A-Za-z0-9-]{10,}",
      "xapp-[0-9]+-[A-Za-z0-9-]{10,}",
      // Google API keys.
      "AIza[0-9A-Za-z_-]{35}",
      // npm and SendGrid.
      "npm_[A-Za-z0-9]{30,}",
      "SG\\.[A-Za-z0-9_-]{16,}\\.[A-Za-z0-9_-]{16,}",
      // Twilio API key and account SIDs.
      "(?:SK|AC)[0-9a-fA-F]{32}(?![A-Za-z0-9])",
    ].join("|"),
  ],
];
const TOKEN_NAMES = TOKEN_ALTERNATIVES.map(([name]) => name);
export const TOKEN_PATTERN = `(?<![A-Za-z0-9])(?:${TOKEN_ALTERNATIVES.map(([, source], k) => `(?<t${k}>${source})`).join("|")})`;
const tokenRe = new RegExp(TOKEN_PATTERN, "g");

export const tokens: TextRule = {
  name: "api_key",
  minLength: 15,
  find(text, out) {
    eachMatch(tokenRe, text, (m) => {
      const groups = m.groups as Record<string, string | undefined>;
      const k = TOKEN_NAMES.findIndex((_, i) => groups[`t${i}`] !== undefined);
      out.push({ start: m.index, end: m.index + m[0].length, name: TOKEN_NAMES[k] ?? "api_key" });
    });
  },
};

// PEM: from "-----BEGIN <any label>-----" to the next "-----END …-----"; a
// block with no END line is hidden to the end of the text: key material is
// never left visible because the block was cut. PuTTY key files likewise,
// up to their "Private-MAC" line.
const pemBegin = /-----BEGIN (?=[^\s-])[^\r\n]{0,80}?[^\s-]-----|PuTTY-User-Key-File-\d+:/gi;
const pemEnd = /-----END [^\r\n]{0,80}?-----|Private-MAC: *[0-9a-fA-F]*/gi;
export const pem: TextRule = {
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

// Secrets with nothing to tell them from other hex or base64 runs count only
// near a sign that they are one (an anchor). Each anchor's window, WINDOW
// characters either side, is scanned once, in order, on a slice, so the
// window's edges bound the work; a value cut by an edge is still caught
// because windows overlap by the value's length.
const WINDOW = 200;
type NearAnchor = {
  anchor: RegExp;
  /** Global regex for one value of exactly `length` characters. */
  value: RegExp;
  length: number;
  /** Characters that would make a value part of a longer run. */
  runChar: RegExp;
  accept?: (value: string) => boolean;
  name?: string;
};
function findNearAnchors(text: string, out: Range[], rule: NearAnchor): void {
  let scanned = 0;
  rule.anchor.lastIndex = 0;
  for (let m = rule.anchor.exec(text); m; m = rule.anchor.exec(text)) {
    const from = Math.max(scanned, m.index - WINDOW);
    const to = Math.min(text.length, m.index + m[0].length + WINDOW);
    if (to <= from) continue;
    const start = Math.max(0, from - rule.length);
    const window = text.slice(start, to);
    eachMatch(rule.value, window, (s) => {
      const begin = start + s.index;
      const end = begin + rule.length;
      // A candidate touching the slice's edges may be part of a longer run.
      if ((begin > 0 && rule.runChar.test(text[begin - 1] as string)) || (end < text.length && rule.runChar.test(text[end] as string))) return;
      if (rule.accept && !rule.accept(s[0])) return;
      out.push(rule.name ? { start: begin, end, name: rule.name } : { start: begin, end });
    });
    scanned = to;
  }
}

// AWS secret access keys are 40 characters of base64 with nothing to tell
// them from a SHA-1 in hex: one counts only within the window of an access
// key id, or of a name such as "aws_secret_access_key" / "SecretAccessKey"
// (the "name=value" form is also hidden by the secret_key rule).
const AWS_SECRET_NEAR: NearAnchor = {
  anchor:
    /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])|secret[_ .-]?access[_ .-]?key|aws[_ .-]?secret(?:[_ .-]?key)?/gi,
  value: /(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])/g,
  length: 40,
  runChar: /[A-Za-z0-9/+]/,
  accept: (v) => /[0-9/+]/.test(v) && /[a-z]/.test(v) && /[A-Z]/.test(v),
};
export const awsSecretAccessKey: TextRule = {
  name: "aws_secret_access_key",
  minLength: 40,
  find: (text, out) => findNearAnchors(text, out, AWS_SECRET_NEAR),
};

// Twilio auth tokens (32 lower-case hex) near an account or API key SID.
// Reported under api_key.
const TWILIO_TOKEN_NEAR: NearAnchor = {
  anchor: /(?<![A-Za-z0-9])(?:AC|SK)[0-9a-fA-F]{32}(?![A-Za-z0-9])|twilio|auth[_ .-]?token/gi,
  value: /(?<![A-Za-z0-9])[0-9a-f]{32}(?![A-Za-z0-9])/g,
  length: 32,
  runChar: /[A-Za-z0-9]/,
  name: "api_key",
};
export const twilioAuthToken: TextRule = {
  name: "api_key",
  minLength: 32,
  find: (text, out) => findNearAnchors(text, out, TWILIO_TOKEN_NEAR),
};

// "Bearer <token>": only the token (group 1) is hidden, so the text keeps
// "Bearer [redacted:bearer_token]". Tokens shorter than 16 characters are
// left alone ("the bearer of bad news").
export const BEARER_TOKEN_PATTERN = "\\bbearer[ \\t]+([A-Za-z0-9._~+/-]{16,}=*)";
const bearerRe = new RegExp(BEARER_TOKEN_PATTERN, "gi");
export const bearerToken: TextRule = {
  name: "bearer_token",
  minLength: 23,
  find(text, out) {
    eachMatch(bearerRe, text, (m) => {
      const token = m[1] as string;
      out.push({ start: m.index + m[0].length - token.length, end: m.index + m[0].length });
    });
  },
};

// "Basic <base64 of user:password>": hidden when it decodes to text with a
// colon, so "a basic approach" stays.
const basicRe = /\bbasic[ \t]+([A-Za-z0-9+/]{6,}={0,2})(?![A-Za-z0-9+/=])/gi;
export const basicAuth: TextRule = {
  name: "basic_auth",
  minLength: 12,
  find(text, out) {
    eachMatch(basicRe, text, (m) => {
      const credential = m[1] as string;
      const decoded = Buffer.from(credential, "base64").toString("latin1");
      if (/^[\x20-\x7e]*:[\x20-\x7e]*$/.test(decoded)) out.push({ start: m.index + m[0].length - credential.length, end: m.index + m[0].length });
    });
  },
};

// Passwords in URLs: scheme://user:password@host. Only the password is
// hidden ("postgres://app:[redacted:url_password]@db:5432/x"). The user info
// ends at the last "@" before the path, query, fragment or a space, within
// 512 characters (passwords may hold a raw "@").
const USERINFO_LIMIT = 512;
const isUrlStop = (c: number) => c === 47 || c === 63 || c === 35 || c <= 32 || c === 34 || c === 39 || c === 60 || c === 62 || c === 96;
export const urlPassword: TextRule = {
  name: "url_password",
  minLength: 7,
  find(text, out) {
    let from = 0;
    for (let at = text.indexOf("://", from); at !== -1; at = text.indexOf("://", from)) {
      const begin = at + 3;
      let colon = -1;
      let lastAt = -1;
      let k = begin;
      for (; k < text.length && k - begin < USERINFO_LIMIT; k++) {
        const c = text.charCodeAt(k);
        if (isUrlStop(c)) break;
        if (c === 58 && colon === -1 && lastAt === -1) colon = k;
        if (c === 64) lastAt = k;
      }
      if (colon !== -1 && lastAt > colon + 1) out.push({ start: colon + 1, end: lastAt });
      from = Math.max(begin, k);
    }
  },
};

export type { Range };
