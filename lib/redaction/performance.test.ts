// Adversarial inputs of 200 KiB: every rule must stay (roughly) linear.
// Limits are generous on purpose (shared CI machines): the point is to catch
// super-linear blow-up, which on these inputs would take seconds to hours.
import { describe, expect, it } from "vitest";
import { COST_BUDGET, compileRedactor } from "./index";
import { patternCost } from "./custom-pattern";
import { BUILTIN_RULES, type Range } from "./rules";

const SIZE = 200 * 1024;
const LIMIT_MS = 1000;
const fill = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);

const ADVERSARIAL: Record<string, string> = {
  "a@a.a fragments": fill("a@a.a"),
  "a@a.aa fragments": fill("a@a.aa"),
  "local part with no @": fill("a"),
  "local part then @": `${fill("a")}@`,
  "@ then endless domain": `a@${fill("a.")}`,
  "domain ending in a digit": `a@${fill("ab.")}1`,
  "a@ pairs": fill("a@"),
  dots: fill("."),
  dashes: fill("-"),
  "----BEGIN without END": fill("----BEGIN "),
  "-----BEGIN without label": fill("-----BEGIN "),
  "one BEGIN, no END": `-----BEGIN RSA PRIVATE KEY-----${fill("a")}`,
  "BEGIN headers repeated": fill("-----BEGIN X-----"),
  "END lines only": fill("-----END X-----"),
  "long digit run": fill("1"),
  "digits separated by spaces": fill("1 "),
  "digits separated by dashes": fill("1-"),
  "card-like groups": fill("4111 "),
  decimals: fill("1.1"),
  "IBAN prefixes": fill("DE89 "),
  "IBAN prefix then single digits": `DE89${fill(" 0")}`,
  "IBAN-like groups": fill("AA00 A "),
  "upper-case run": fill("A"),
  "Bearer repeated": fill("Bearer "),
  "Bearer then endless token": `Bearer ${fill("a")}`,
  "bearer tabs": fill("bearer\t"),
  "sk- repeated": fill("sk-"),
  "short sk- keys": fill("sk-a "),
  "ghp_ repeated": fill("ghp_"),
  "xoxb- repeated": fill("xoxb-"),
  "AKIA repeated": fill("AKIA"),
  "AWS-like ids": fill("AKIAAAAAAAAAAAAAAAA1 "),
  tags: fill("[redacted:email]"),
  "tag prefixes": fill("[redacted:"),
  "many real secrets": fill("ana@example.com 4111 1111 1111 1111 sk-abcdefghijklmnopqrstu DE89 3704 0044 0532 0130 00 "),
  // docs/security.md rules, encodings and name folding.
  "eyJ fragments": fill("eyJa.eyJb."),
  "JWT-like run": `eyJ${fill("a")}.`,
  "AIza repeated": fill("AIza"),
  "SG. repeated": fill("SG.a"),
  "Slack hook prefixes": fill("hooks.slack.com/services/"),
  "scheme separators": fill("a://"),
  "user info without end": `x://${fill("a:")}`,
  "user info with @": fill("s://u:p@"),
  "names and equals": fill("password="),
  "names and colons": fill("token: "),
  "unclosed quotes": fill('password="'),
  "escaped quotes": fill('pwd=\\"'),
  "connection string spaces": `Password=a${" ".repeat(SIZE - 20)};`,
  "lower-case IBAN-like": fill("de89 "),
  "dotted digits": fill("1."),
  "separator runs": fill("4 - "),
  "international addresses": fill("ü@ü.üü "),
  "full-width @": fill("a＠b。cd"),
  "zero-width everywhere": fill("a\u200B"),
  "full-width text": fill("ｓｋ＿ｌｉｖｅ＿"),
  "percent escapes": fill("%41"),
  "broken percent escapes": fill("%4"),
  "unicode escapes": fill("\\u0041"),
  "HTML entities": fill("&#65;"),
  "base64 text": Buffer.from(fill("mail ana@example.com ")).toString("base64").slice(0, SIZE),
  "base64 of base64": Buffer.from(Buffer.from(fill("sk_live_abcdefghijklmnopqrstuvwx ")).toString("base64"))
    .toString("base64")
    .slice(0, SIZE),
  "hex text": Buffer.from(fill("password=hunter2 ")).toString("hex").slice(0, SIZE),
  "AWS anchors": fill("AKIAIOSFODNN7EXAMPLE "),
  "AWS anchors and 40-char runs": fill("AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY "),
  "Twilio anchors": fill("twilio "),
  "Basic repeated": fill("Basic dXNlcjpwYXNz "),
  // Seed phrases (seed-phrase.ts): runs of list words, long letter runs that split into them, near misses.
  "one list word repeated": fill("abandon "),
  "one run of list words": fill("actionactor"),
  "eleven list words, then not": fill("brand test gym reflect property squeeze inhale neck double subject club the "),
  "seed phrases back to back": fill("brand test gym reflect property squeeze inhale neck double subject club direct. "),
  "list words with accents": fill("abandoné "),
  "list words, long gaps": fill("abandon" + " ".repeat(16)),
  "camelCase list words": fill("keyBoxActOn"),
};

// CPU time of this process, in ms: on a busy shared machine wall-clock time
// also counts other processes, CPU time counts only the work done here.
const time = (fn: () => void) => {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

describe("200 KiB adversarial strings", () => {
  for (const rule of BUILTIN_RULES) {
    it(`rule ${rule.name} stays linear on every adversarial input`, () => {
      for (const [label, text] of Object.entries(ADVERSARIAL)) {
        const out: Range[] = [];
        const ms = time(() => rule.find(text, out));
        expect(ms, `${rule.name} on "${label}"`).toBeLessThan(LIMIT_MS);
      }
    });
  }

  const redactor = compileRedactor([
    { name: "employee_id", pattern: "\\bEMP-\\d{5}\\b" },
    { name: "corp_login", pattern: "[A-Za-z0-9._%+-]{1,64}@corp\\.example\\.com" },
  ]);
  for (const [label, text] of Object.entries(ADVERSARIAL)) {
    it(`whole redactor on "${label}"`, () => {
      expect(time(() => redactor.redactText(text))).toBeLessThan(LIMIT_MS);
    });
  }

  it("a custom pattern at the cost budget stays linear", () => {
    // Accepted patterns close to COST_BUDGET, on inputs that make them backtrack most.
    for (const pattern of [".{1,128}x", "\\w{1,128}@", "[a-z]{1,5}[a-z]{1,5}[a-z]{1,4}!", "\\d{1,11}\\d{1,11}x"]) {
      expect(patternCost(pattern), pattern).toBeGreaterThan(COST_BUDGET * 0.8);
      const custom = compileRedactor([{ name: "custom", pattern }]);
      for (const text of [fill("a"), fill("1"), fill("ab")]) {
        expect(
          time(() => custom.redactText(text)),
          pattern,
        ).toBeLessThan(LIMIT_MS);
      }
    }
  });

  // 256 KiB bodies (the webhook's limit) built to make the split-secret
  // search, the decoders and the key folding work hardest.
  const KIB256 = 256 * 1024;
  const BODIES: Record<string, unknown> = {
    "128k one-letter strings": Array.from({ length: KIB256 / 2 }, () => "a"),
    "address fragments in an array": Array.from({ length: KIB256 / 8 }, () => "a@a.a"),
    "key prefixes in an array": Array.from({ length: KIB256 / 8 }, () => "sk_live"),
    "PEM BEGIN lines in an array": Array.from({ length: KIB256 / 20 }, () => "-----BEGIN X-----"),
    "long strings side by side": Array.from({ length: 64 }, () => fill("ab ").slice(0, 4000)),
    "many disguised secret keys": Object.fromEntries(Array.from({ length: 8000 }, (_, k) => [`p\u0430ss\u200Bword_${k}`, "x"])),
    "object of card pieces": Object.fromEntries(Array.from({ length: 16000 }, (_, k) => [`k${k}`, "4111 "])),
    "nested arrays of base64": Array.from({ length: 2000 }, () => [Buffer.from("token sk_live_abcdefghijklmnop").toString("base64"), "x"]),
    "single list words in an array": Array.from({ length: KIB256 / 8 }, (_, k) => ["brand", "test", "gym", "reflect", "property", "squeeze"][k % 6]),
  };
  for (const [label, body] of Object.entries(BODIES)) {
    it(`whole redactor on a 256 KiB body: ${label}`, () => {
      expect(time(() => redactor.redactValue(body))).toBeLessThan(LIMIT_MS);
    });
  }

  it("deeply nested JSON of many small strings", () => {
    const value = Array.from({ length: 5000 }, (_, k) => ({ id: k, note: `mail user${k}@example.com`, token: "t", tags: ["a", "b"] }));
    const ms = time(() => redactor.redactValue(value));
    expect(ms).toBeLessThan(LIMIT_MS);
  });
});
