// The redaction classes of docs/security.md, each with generated variants:
// random key material of the right shape, separators, case, encodings, split
// points and nesting. Most of these slipped past the redactor before these
// classes were added (JWTs, AWS secret keys, Google keys, rk_ keys, Slack
// webhooks, URL passwords, connection strings, npm/SendGrid/Twilio, dotted
// cards, lower-case IBANs, IDN emails, every encoding and split).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SELF_EVIDENT, showsPartOf, visible } from "../../test/helpers/secret-checks";
import { encode, encoding, nest, splitAt } from "../../test/helpers/secret-hiding";
import { secretKeyName, secretSample } from "../../test/helpers/secret-samples";
import { compileRedactor, findSecret } from "./index";

const redactor = compileRedactor([{ name: "employee_id", pattern: "\\bEMP-\\d{5}\\b" }]);
const RUNS = { numRuns: 400 };

/** Undoes %XX, \uXXXX and &#N; so a half-hidden escaped secret would show. */
const unescapeAll = (s: string) =>
  s
    .replace(/(?:%[0-9A-F]{2})+/gi, (run) => Buffer.from(run.replace(/%/g, ""), "hex").toString("utf8"))
    .replace(/\\u([0-9a-f]{4})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)));

const nesting = fc.array(fc.constantFrom<"array" | "object">("array", "object"), { maxLength: 6 });

describe("redaction classes (generated)", () => {
  it("every class is hidden in free text, and findSecret names it", () => {
    fc.assert(
      fc.property(secretSample, (sample) => {
        const out = visible(redactor.redactText(sample.text));
        for (const secret of sample.secrets) expect(showsPartOf(out, secret), `${sample.kind}: ${out}`).toBe(false);
        expect(findSecret(sample.text), sample.kind).not.toBeNull();
      }),
      RUNS,
    );
  });

  it("every class is hidden at any depth of a JSON value", () => {
    fc.assert(
      fc.property(secretSample, nesting, (sample, path) => {
        const out = JSON.stringify(redactor.redactValue(nest({ note: sample.text }, path)).value);
        for (const secret of sample.secrets)
          expect(showsPartOf(visible(out), JSON.stringify(secret).slice(1, -1)), `${sample.kind}: ${out}`).toBe(false);
      }),
      RUNS,
    );
  });

  it("an encoded secret is hidden: base64, base64url and hex as a whole, escapes exactly", () => {
    fc.assert(
      fc.property(secretSample, encoding, fc.boolean(), (sample, how, alone) => {
        // Alone: the secret without its context, for the classes that need none.
        const source = alone && SELF_EVIDENT.has(sample.kind) ? sample.whole : sample.text;
        const encoded = encode(source, how);
        const out = visible(redactor.redactText(`data ${encoded} end`));
        if (how === "base64" || how === "base64url" || how === "hex") {
          expect(out, `${sample.kind} ${how}`).toBe("data \u0000 end");
        } else {
          const decoded = unescapeAll(out);
          for (const secret of sample.secrets) expect(showsPartOf(decoded, secret), `${sample.kind} ${how}: ${decoded}`).toBe(false);
        }
      }),
      RUNS,
    );
  });

  it("a secret split across sibling strings is hidden in every piece", () => {
    fc.assert(
      fc.property(secretSample, fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), fc.boolean(), nesting, (sample, cuts, asObject, path) => {
        // An email cut inside its local part cannot be told from a name next
        // to an address ({"name": "Ana", "email": "ana@…"}): it is cut at or
        // after its "@" (siblings.ts).
        const secret = sample.kind === "email" ? sample.whole.replace(/^[^@＠]*/, "") : sample.whole;
        const pieces = splitAt(sample.text, secret, cuts);
        const container = asObject ? Object.fromEntries(pieces.map((p, k) => [`part${k}`, p])) : pieces;
        const out = redactor.redactValue(nest(container, path)).value;
        const json = JSON.stringify(out);
        // No piece shows 6 characters of the secret, nor does the whole.
        for (const s of sample.secrets) expect(showsPartOf(visible(json), JSON.stringify(s).slice(1, -1)), `${sample.kind}: ${json}`).toBe(false);
      }),
      RUNS,
    );
  });

  it("secret-named keys are hidden however they are spelled", () => {
    fc.assert(
      fc.property(secretKeyName, fc.string({ minLength: 1, maxLength: 20 }), nesting, (key, value, path) => {
        const marker = `VALUE-${value}`;
        const out = redactor.redactValue(nest({ [key]: marker, [`${key} note`]: "x" }, path)).value;
        const json = JSON.stringify(out);
        expect(json, key).toContain("[redacted:secret_key]");
        expect(json.includes("VALUE-"), `${JSON.stringify(key)}: ${json}`).toBe(false);
      }),
      RUNS,
    );
  });
});

describe("redaction class examples and near misses", () => {
  const redact = (s: string) => redactor.redactText(s);

  it("names the rule in the tag", () => {
    expect(redact("postgres://app:s3cr3t@db:5432/x")).toBe("postgres://app:[redacted:url_password]@db:5432/x");
    expect(redact("Server=db;Password=my secret pass;Encrypt=true")).toBe("Server=db;Password=[redacted:secret_key];Encrypt=true");
    expect(redact("Driver={x};Uid=u;PWD={a;b};")).toBe("Driver={x};Uid=u;PWD={[redacted:secret_key]};");
    expect(redact("https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX")).toBe("https://[redacted:slack_webhook]");
    expect(redact("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc")).toBe("[redacted:jwt]");
    expect(redact("ana@bücher.de, user@例え。jp")).toBe("[redacted:email], [redacted:email]");
    expect(redact("Authorization: Basic dXNlcjpwYXNz")).toBe("Authorization: Basic [redacted:basic_auth]");
    expect(redact('{"password":"hunter2","user":"ana"}')).toBe('{"password":"[redacted:secret_key]","user":"ana"}');
  });

  it("hides every digit of a card number split where one piece holds a card alone", () => {
    const split = (parts: string[]) => JSON.stringify(redactor.redactValue({ parts }).value);
    // The first piece alone is a card from "2385" on; the join is one from "2000" (a run found by a property test).
    expect(split(["pay with 2000 - 2385 - 7935 - 1488 - 88", "2 today"])).toBe(
      '{"parts":["pay with [redacted:card_number]","[redacted:card_number] today"]}',
    );
    // Only the later piece is a card alone; the separator at the cut says the number goes on.
    // (2004 followed by the 15-digit card passes Luhn too.)
    expect(split(["pay with 2004 - ", "411111111111116 today"])).toBe('{"parts":["pay with [redacted:card_number]","[redacted:card_number] today"]}');
    expect(split(["pay with 2004", " - 411111111111116"])).toBe('{"parts":["pay with [redacted:card_number]","[redacted:card_number]"]}');
    // Or six digits of it are in the first piece.
    expect(split(["ref 200424", "4111111111119"])).toBe('{"parts":["ref [redacted:card_number]","[redacted:card_number]"]}');
    // Digits that only happen to make a longer valid number stay visible ("26" + the card passes Luhn).
    expect(JSON.stringify(redactor.redactValue({ amount: "26", pan: "4111111111111111" }).value)).toBe(
      '{"amount":"26","pan":"[redacted:card_number]"}',
    );
  });

  it("leaves ordinary text alone", () => {
    for (const text of [
      "a basic approach to internationalization",
      "Note: refund the customer; amount=12.50; currency=EUR",
      "idempotency_key=7d9f0c2e-6a41-4c55-9b1e-2f2b8f0a9c11",
      "version 1.2.3 at https://example.com/path?page=2",
      "sha1 2fd4e1c67a2d28fced849ee1bb76e7391b93eb12 and uuid 123e4567-e89b-12d3-a456-426614174000",
      "price 1234.5678901234567",
      "private: true, key: false",
    ]) {
      expect(redact(text)).toBe(text);
    }
  });

  it("keeps booleans under flag-like secret names, hides other values", () => {
    expect(redactor.redactValue({ private: true, key: false, pin: "1234", otp: 123456, idempotency_key: "k-1" }).value).toEqual({
      private: true,
      key: false,
      pin: "[redacted:secret_key]",
      otp: "[redacted:secret_key]",
      idempotency_key: "k-1",
    });
  });

  it("does not hide a neighbour of an email or a key", () => {
    expect(redactor.redactValue({ name: "Ana", email: "ana@example.com", city: "Berlin" }).value).toEqual({
      name: "Ana",
      email: "[redacted:email]",
      city: "Berlin",
    });
    expect(redactor.redactValue(["ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_0123456789abcdefghijklmnopqrstuvwxyz"]).value).toEqual([
      "[redacted:api_key]",
      "[redacted:api_key]",
    ]);
  });

  it("ids clients generate are never taken for secrets (run_id, call_id are checked with findSecret)", () => {
    fc.assert(
      fc.property(
        fc.uuid(),
        fc.constantFrom("run_", "py-run-", "call-", ""),
        fc.integer({ min: 1_500_000_000_000, max: 1_900_000_000_000 }),
        (uuid, prefix, ms) => {
          expect(findSecret(`${prefix}${uuid}`)).toBeNull();
          expect(findSecret(`${prefix}${ms}`)).toBeNull();
          expect(findSecret(`${prefix}${ms}-${uuid.slice(0, 8)}`)).toBeNull();
        },
      ),
      { numRuns: 5000 },
    );
  });

  it("findSecret names a rule without the value, or null", () => {
    expect(findSecret("run-sk_live_abcdefghijklmnop")).toBe("api_key");
    expect(findSecret("run-4111111111111111")).toBe("card_number");
    expect(findSecret("env-de89 3704 0044 0532 0130 00")).toBe("iban");
    expect(findSecret("run-2026-11-30-7f3a")).toBeNull();
    expect(findSecret("production")).toBeNull();
  });
});

// BIP-39 seed phrases, and the key names added with them, in text.
describe("seed phrases", () => {
  const redact = (s: string) => redactor.redactText(s);
  const TAG = "[redacted:seed_phrase]";
  // Made with @scure/bip39 for this test (valid checksums); no wallet uses them.
  const TWELVE = "brand test gym reflect property squeeze inhale neck double subject club direct";
  const TWENTY_FOUR =
    "couch isolate certain degree label vanish hunt offer phrase flower swift old address plate coach office fruit leave nut ugly patrol reject random amused";
  const words12 = TWELVE.split(" ");

  it("hides a 12- and a 24-word phrase as the whole value", () => {
    expect(redact(TWELVE)).toBe(TAG);
    expect(redact(TWENTY_FOUR)).toBe(TAG);
    expect(redactor.redactValue({ backup: TWELVE, note: TWENTY_FOUR }).value).toEqual({ backup: TAG, note: TAG });
    expect(findSecret(TWELVE)).toBe("seed_phrase");
  });

  it("hides a phrase inside longer text, leaving the words around it", () => {
    expect(redact(`Restore from: ${TWELVE}. Send 1 BTC.`)).toBe(`Restore from: ${TAG}. Send 1 BTC.`);
    expect(redact(`ok so my recovery words are ${TWENTY_FOUR} thanks`)).toBe(`ok so my recovery words are ${TAG} thanks`);
    expect(redactor.redactValue({ note: `restore\n${TWELVE}\ndone` }).value).toEqual({ note: `restore\n${TAG}\ndone` });
  });

  it("hides the ways phrases are written down: upper case, one per line, numbered, in columns, with commas", () => {
    for (const written of [
      TWELVE.toUpperCase(),
      words12.map((w) => w[0]!.toUpperCase() + w.slice(1)).join(" "),
      words12.join("\n"),
      words12.map((w, k) => `${k + 1}. ${w}`).join("\n"),
      words12
        .map((w, k) => `${String(k + 1).padStart(2)}) ${w.padEnd(8)}`)
        .join(" ")
        .trimEnd(),
      words12.join(", "),
    ]) {
      // The number before the first word stays ("1. [redacted:seed_phrase]").
      expect(redact(`words: ${written} done`).replace(/^words: {1,2}1[.)] /, "words: "), written).toBe(`words: ${TAG} done`);
    }
    expect(redact(`words: ${JSON.stringify(words12)} done`)).toBe(`words: ["${TAG}"] done`);
  });

  it("does not ask for the checksum nor a standard length", () => {
    const swapped = [words12[1], words12[0], ...words12.slice(2)].join(" "); // checksum no longer verifies
    expect(redact(swapped)).toBe(TAG);
    expect(redact(`${TWELVE} abandon`)).toBe(TAG); // 13 words
    expect(redact(`${TWENTY_FOUR} ${TWELVE}`)).toBe(TAG); // 36 words, one tag
    // Any twelve different list words in a row, on the safe side (docs/security.md).
    expect(redact("cloud forest river mountain ocean island desert valley garden winter summer autumn")).toBe(TAG);
  });

  it("hides a phrase given as an array of words, or cut into pieces", () => {
    expect(redactor.redactValue({ words: words12 }).value).toEqual({ words: words12.map(() => TAG) });
    const cut = redactor.redactValue(["brand test gym", "reflect property squeeze inhale neck double subject club direct"]).value;
    expect(cut).toEqual([TAG, TAG]);
  });

  it("leaves what is not a phrase: 11 words, a word not on the list, prose, repeated words, camelCase", () => {
    for (const text of [
      words12.slice(0, 11).join(" "),
      words12.slice(0, 11).join(" ") + " directly",
      [...words12.slice(0, 6), "gymnasium", ...words12.slice(6)].join(" ").replace("gym ", ""),
      "The quick brown fox jumps over the lazy dog near the old river bank today",
      "Please review the invoice and refund the customer if the amount is wrong",
      "never, never | any, never | never, any | any, any | never, never | any",
      "key0: Key0, key1: Key1, key2: Key2, key3: Key3, key4: Key4, key5: Key5, key6: Key6",
      "ResponseInputItem EasyInputMessage ResponseOutputMessage ResponseFileSearchToolCall",
      `${words12.slice(0, 6).join(" ")}${" ".repeat(20)}${words12.slice(6).join(" ")}`,
      `${words12.slice(0, 6).join(" ")} é ${words12.slice(6).join(" ")}`,
    ]) {
      expect(redact(text), text).toBe(text);
      expect(findSecret(text), text).toBeNull();
    }
  });

  it("hides values after the §20 key names in text", () => {
    expect(redact("kennwort=geheim123")).toBe("kennwort=[redacted:secret_key]");
    expect(redact("contraseña: hola1234")).toBe("contraseña: [redacted:secret_key]");
    expect(redact("MOT_DE_PASSE=secret99;")).toBe("MOT_DE_PASSE=[redacted:secret_key];");
    expect(redact('{"pw":"hunter2","user":"ana"}')).toBe('{"pw":"[redacted:secret_key]","user":"ana"}');
    expect(redact("hasło=tajne99 senha=segredo1")).toBe("hasło=[redacted:secret_key] senha=[redacted:secret_key]");
    expect(redactor.redactValue({ seed: 42, mnemonic: ["a", "b"], bearer: "xyz", seed_count: 3 }).value).toEqual({
      seed: "[redacted:secret_key]",
      mnemonic: "[redacted:secret_key]",
      bearer: "[redacted:secret_key]",
      seed_count: 3,
    });
  });
});
