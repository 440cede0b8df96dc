// fast-check generators of secrets in every class the redactor must catch
// (docs/security.md, "Redaction gaps"), each in a bit of surrounding text,
// with random key material of the right shape, random separators and case,
// BIP-39 seed phrases, and of disguised secret key names (also the short,
// foreign and wallet names). secret-hiding.ts encodes,
// splits and nests them; secret-checks.ts holds what the properties assert with. Shared
// by the unit properties (lib/redaction) and the end-to-end property
// (test/redaction).
import fc from "fast-check";
import { wordlist } from "@scure/bip39/wordlists/english.js";

/**
 * A text holding a secret: `whole` is the secret as written in the text (cut
 * by the split tests, encoded alone by the encoding tests); `secrets` are
 * its parts that must never be seen (key material, without fixed prefixes
 * that pages and logs may hold anyway, such as "hooks.slack.com/services/").
 */
export type SecretSample = { kind: string; text: string; whole: string; secrets: string[] };

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const from = (alphabet: string, min: number, max = min) =>
  fc.array(fc.constantFrom(...alphabet.split("")), { minLength: min, maxLength: max }).map((xs) => xs.join(""));
const alnum = (min: number, max = min) => from(ALNUM, min, max);
const hex = (n: number) => from("0123456789abcdef", n);
const upperAlnum = (n: number) => from("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", n);
const b64url = (s: string) => Buffer.from(s).toString("base64url");
const randomCase = (s: string) =>
  fc.array(fc.boolean(), { minLength: s.length, maxLength: s.length }).map((flips) =>
    s
      .split("")
      .map((c, k) => (flips[k] ? c.toUpperCase() : c.toLowerCase()))
      .join(""),
  );
// The checks look for runs of the key material, without the vendor's fixed
// prefix ("sk_live_", "github_pat_"), which no page or log holds by chance.
const around = (secret: fc.Arbitrary<string>, kind: string, contexts: Array<(s: string) => string>, prefix = /^$/) =>
  fc
    .tuple(secret, fc.constantFrom(...contexts))
    .map(([s, ctx]): SecretSample => ({ kind, text: ctx(s), whole: s, secrets: [s.replace(prefix, "")] }));
const plain = [(s: string) => s, (s: string) => `use ${s} for this`, (s: string) => `value:\n${s}\n`];

function luhnComplete(body: number[]): number[] {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = body[body.length - 1 - i] as number;
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return [...body, (10 - (sum % 10)) % 10];
}

const IBAN_COUNTRIES: Array<[string, number]> = [
  ["DE", 22],
  ["GB", 22],
  ["FR", 27],
  ["NL", 18],
  ["ES", 24],
  ["IT", 27],
  ["NO", 15],
  ["CH", 21],
  ["BE", 16],
  ["PL", 28],
];
function ibanWithCheck(country: string, bban: string): string {
  const digits = (bban + country + "00").replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rest = 0;
  for (const c of digits) rest = (rest * 10 + Number(c)) % 97;
  return `${country}${String(98 - rest).padStart(2, "0")}${bban}`;
}

// BIP-39 seed phrases: 12-24 different list words (the rule does not ask
// for a checksum; checksummed phrases are in secret-classes.test.ts),
// written the ways people keep them. Only words of at most five letters:
// every six-character run the checks look for (secret-checks.ts) then spans
// two words, while a single dictionary word may show anywhere without
// anything leaking ("amount" is a key of the end-to-end test's own
// arguments, "secret" a word of the app's refusal message).
const SEED_LAYOUTS: Array<(words: string[]) => string> = [
  (w) => w.join(" "),
  (w) => w.join(" ").toUpperCase(),
  (w) => w.map((x) => x[0]!.toUpperCase() + x.slice(1)).join(" "),
  (w) => w.join("\n"),
  (w) => w.map((x, k) => `${k + 1}. ${x}`).join("\n"),
  (w) => w.map((x, k) => `${k + 1}) ${x}`).join(" "),
  (w) => w.join(", "),
];
// Without the words of the contexts around a sample ("use … for this",
// "value:", the tests' own "data … end"): a phrase of them would share a
// run of characters with the text around it, and the checks that look for
// parts of the secret would find the context, not a leak.
const CONTEXT_WORDS = new Set(["use", "for", "this", "value", "data", "end"]);
const seedWords = fc.shuffledSubarray(
  wordlist.filter((w) => w.length <= 5 && !CONTEXT_WORDS.has(w)),
  { minLength: 12, maxLength: 24 },
);

export const secretSample: fc.Arbitrary<SecretSample> = fc.oneof(
  fc.tuple(seedWords, fc.constantFrom(...SEED_LAYOUTS), fc.constantFrom(...plain)).map(([words, layout, ctx]): SecretSample => {
    const phrase = layout(words);
    return { kind: "seed_phrase", text: ctx(phrase), whole: phrase, secrets: [phrase] };
  }),
  // JWT: real base64url JSON header and payload, random signature.
  around(
    fc
      .tuple(fc.constantFrom("HS256", "RS256", "ES256", "none"), alnum(4, 12), fc.nat(), from(`${ALNUM}-_`, 0, 60))
      .map(([alg, sub, iat, sig]) => `${b64url(JSON.stringify({ alg, typ: "JWT" }))}.${b64url(JSON.stringify({ sub, iat }))}.${sig}`),
    "jwt",
    plain,
  ),
  // AWS secret access key, in free text after its name or next to its key id.
  fc
    .tuple(
      from("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 16),
      from(`${ALNUM}/+`, 37),
      fc.constantFrom("aws_secret_access_key=", "AWS_SECRET_ACCESS_KEY: ", "SecretAccessKey ", "key id AKIA{ID} secret "),
    )
    .map(([id, body, ctx]): SecretSample => {
      const secret = `${body}a1Z`;
      return { kind: "aws_secret_access_key", text: `${ctx.replace("{ID}", id)}${secret}`, whole: secret, secrets: [secret] };
    }),
  around(
    alnum(35).map((s) => `AIza${s}`),
    "google_api_key",
    plain,
    /^AIza/,
  ),
  around(
    fc.tuple(fc.constantFrom("sk", "rk", "pk"), fc.constantFrom("live", "test"), alnum(10, 99)).map(([p, m, s]) => `${p}_${m}_${s}`),
    "stripe",
    plain,
    /^[a-z]{2}_[a-z]{4}_/,
  ),
  fc.tuple(upperAlnum(9), upperAlnum(11), alnum(24), fc.constantFrom("https://", "", "<")).map(([t, b, s, lead]): SecretSample => {
    const hook = `hooks.slack.com/services/T${t}/B${b}/${s}`;
    return { kind: "slack_webhook", text: `post to ${lead}${hook}`, whole: hook, secrets: [`T${t}/B${b}/${s}`] };
  }),
  around(
    fc.tuple(fc.constantFrom("b", "p", "a", "o", "r", "s"), from("0123456789", 10, 13), alnum(24)).map(([t, n, s]) => `xox${t}-${n}-${s}`),
    "slack_token",
    plain,
    /^xox.-/,
  ),
  around(
    fc.tuple(alnum(22), alnum(59)).map(([a, b]) => `github_pat_${a}_${b}`),
    "github_pat",
    plain,
    /^github_pat_/,
  ),
  around(
    fc.tuple(fc.constantFrom("ghp", "gho", "ghu", "ghs", "ghr"), alnum(36)).map(([p, s]) => `${p}_${s}`),
    "github_token",
    plain,
    /^gh._/,
  ),
  around(
    alnum(36).map((s) => `npm_${s}`),
    "npm",
    plain,
    /^npm_/,
  ),
  around(
    fc.tuple(from(`${ALNUM}-_`, 22), from(`${ALNUM}-_`, 43)).map(([a, b]) => `SG.${a}.${b}`),
    "sendgrid",
    plain,
    /^SG\./,
  ),
  around(
    fc.tuple(fc.constantFrom("SK", "AC"), hex(32)).map(([p, h]) => `${p}${h}`),
    "twilio_sid",
    plain,
    /^(SK|AC)/,
  ),
  fc.tuple(hex(32), hex(32)).map(([sid, token]): SecretSample => ({
    kind: "twilio_auth_token",
    text: `account AC${sid} auth ${token}`,
    whole: `AC${sid}`,
    secrets: [sid, token],
  })),
  // Private keys under any PEM label.
  fc
    .tuple(
      fc.constantFrom(
        "RSA PRIVATE KEY",
        "PRIVATE KEY",
        "EC PRIVATE KEY",
        "OPENSSH PRIVATE KEY",
        "ENCRYPTED PRIVATE KEY",
        "PGP PRIVATE KEY BLOCK",
        "X-CUSTOM KEY",
      ),
      fc.array(from(`${ALNUM}+/`, 64), { minLength: 1, maxLength: 4 }),
    )
    .map(([label, lines]): SecretSample => ({
      kind: "pem",
      text: `key:\n-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`,
      whole: lines[0] as string,
      secrets: lines,
    })),
  // Passwords in URLs.
  fc
    .tuple(
      fc.constantFrom("postgres", "postgresql", "mysql", "redis", "amqp", "mongodb+srv", "https"),
      alnum(1, 12),
      from(`${ALNUM}!$*~.-`, 8, 24),
      alnum(3, 12),
    )
    .map(([scheme, user, pass, host]): SecretSample => ({
      kind: "url_password",
      text: `connect to ${scheme}://${user}:${pass}@${host}.internal:5432/app now`,
      whole: pass,
      secrets: [pass],
    })),
  // Connection strings.
  fc
    .tuple(fc.constantFrom("Password", "password", "PWD", "Pwd", "pass_word"), from(`${ALNUM}!$*~.-`, 8, 24), fc.boolean())
    .map(([name, pass, trailing]): SecretSample => ({
      kind: "connection_string",
      text: `Server=db.internal;Database=app;User Id=app;${name}=${pass}${trailing ? ";Encrypt=true" : ""}`,
      whole: pass,
      secrets: [pass],
    })),
  // Card numbers with any separators.
  fc
    .tuple(
      fc.constantFrom(13, 15, 16, 19),
      fc.integer({ min: 2, max: 6 }),
      fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 18, maxLength: 18 }),
      fc.constantFrom("", " ", "-", ".", "  ", " - ", "\u00a0"),
    )
    .map(([length, network, digits, sep]): SecretSample => {
      const card = luhnComplete([network, ...digits.slice(0, length - 2)]).join("");
      const grouped = (card.match(/.{1,4}/g) ?? []).join(sep);
      return { kind: "card_number", text: `pay with ${grouped} today`, whole: grouped, secrets: [grouped, card] };
    }),
  // IBANs in any case, grouped or not.
  fc
    .tuple(
      fc.constantFrom(...IBAN_COUNTRIES),
      fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 30, maxLength: 30 }),
      fc.constantFrom("upper", "lower", "mixed"),
      fc.boolean(),
    )
    .chain(([[country, length], digits, mode, grouped]) => {
      const iban = ibanWithCheck(country, digits.slice(0, length - 4).join(""));
      const cased = mode === "upper" ? fc.constant(iban) : mode === "lower" ? fc.constant(iban.toLowerCase()) : randomCase(iban);
      return cased.map((s): SecretSample => {
        const text = grouped ? (s.match(/.{1,4}/g) ?? []).join(" ") : s;
        return { kind: "iban", text: `IBAN ${text}.`, whole: text, secrets: [text] };
      });
    }),
  // Emails, also with international local parts and domains.
  fc
    .tuple(
      fc.constantFrom("ana", "jo.smith", "пользователь", "müller", "用户", "o'neil"),
      alnum(2, 6),
      fc.constantFrom("bücher", "例え", "пример", "example", "xn--bcher-kva", "münchen-shop"),
      fc.constantFrom("de", "jp", "рф", "com", "中国", "xn--p1ai"),
      fc.constantFrom("@", "＠"),
    )
    .map(([local, tag, domain, tld, at]): SecretSample => {
      const address = `${local.replace("'", "")}${tag}${at}${domain}.${tld}`;
      return { kind: "email", text: `write to ${address} please`, whole: address, secrets: [address] };
    }),
);

/** A secret-named key, disguised: separators, case, full-width, lookalikes, zero-width. */
export const secretKeyName: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(
      "password",
      "passcode",
      "pin",
      "otp",
      "cvv",
      "cvc",
      "key",
      "private",
      "private_key",
      "secret",
      "api_key",
      "token",
      "client_secret",
      // §20: short, foreign and wallet spellings.
      "pw",
      "pswd",
      "passwort",
      "kennwort",
      "contraseña",
      "mot_de_passe",
      "senha",
      "parola",
      "hasło",
      "bearer",
      "seed",
      "mnemonic",
      "recovery_phrase",
    ),
    fc.constantFrom("none", "separators", "upper", "fullwidth", "cyrillic", "zerowidth"),
    fc.nat(),
  )
  .map(([name, disguise, seed]) => {
    const letters = name.replace(/_/g, "").split("");
    switch (disguise) {
      case "separators":
        return letters.map((c, k) => (k > 0 && (seed >> k) % 3 === 0 ? ["_", "-", "."][k % 3] : "") + c).join("");
      case "upper":
        return name.toUpperCase();
      case "fullwidth":
        return name.replace(/[a-z_]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
      case "cyrillic":
        return name.replace(/[aeopcx]/, (c) => ({ a: "а", e: "е", o: "о", p: "р", c: "с", x: "х" })[c] as string);
      case "zerowidth":
        return letters.length > 1
          ? `${letters.slice(0, 1 + (seed % (letters.length - 1))).join("")}\u200B${letters.slice(1 + (seed % (letters.length - 1))).join("")}`
          : name;
      default:
        return name;
    }
  });
