import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileRedactor, validateCustomPattern } from "./index";

const redactor = compileRedactor([{ name: "employee_id", pattern: "\\bEMP-\\d{5}\\b" }]);

// Strings built from fragments that trigger the rules, glued with noise.
const fragment = fc.constantFrom(
  "ana@example.com",
  "@",
  ".",
  "a",
  "Z",
  " ",
  "-",
  "\n",
  "4111 1111 1111 1111",
  "4111111111111111",
  "1",
  "DE89 3704 0044 0532 0130 00",
  "GB82WEST12345698765432",
  "AKIAIOSFODNN7EXAMPLE",
  "sk-abcdefghijklmnop1234",
  "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
  "Bearer abcdefghijklmnopqrstuvwxyz",
  "-----BEGIN KEY-----",
  "-----END KEY-----",
  "EMP-12345",
  "[redacted:email]",
  "[redacted:",
);
const tricky = fc.oneof(
  fc.array(fragment, { maxLength: 12 }).map((xs) => xs.join("")),
  fc.string({ unit: "binary", maxLength: 40 }),
);
const jsonish = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    tricky,
    fc.integer(),
    fc.constantFrom(4111111111111111, 5555555555554444, 1.5, true, false, null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(tricky, fc.constantFrom("password", "apiKey", "token_type", "x-api-key")), tie("value"), { maxKeys: 4 }),
  ),
})).value;

describe("properties", () => {
  it("redactValue never throws and is idempotent", () => {
    fc.assert(
      fc.property(jsonish, (value) => {
        const once = redactor.redactValue(value);
        const twice = redactor.redactValue(once.value);
        expect(twice.value).toEqual(once.value);
        expect(twice.hits).toBe(0);
      }),
      { numRuns: 500 },
    );
  });

  it("redactText is idempotent and never leaves the sample address visible", () => {
    fc.assert(
      fc.property(tricky, (text) => {
        const once = redactor.redactText(text);
        expect(redactor.redactText(once)).toBe(once);
        expect(once).not.toContain("ana@example.com");
      }),
      { numRuns: 500 },
    );
  });

  it("validateCustomPattern never throws, and what it accepts compiles", () => {
    const patternish = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc
        .array(fc.constantFrom("a", "\\d", "(", ")", "(?:", "|", "*", "+", "?", "{1,5}", "{2}", "[a-z]", "[^", "]", "\\", "\\b", ".", "^", "$"), {
          maxLength: 12,
        })
        .map((xs) => xs.join("")),
    );
    fc.assert(
      fc.property(patternish, (pattern) => {
        const check = validateCustomPattern("custom", pattern);
        if (check.ok) expect(() => compileRedactor([{ name: "custom", pattern }])).not.toThrow();
      }),
      { numRuns: 1000 },
    );
  });

  it("accepted random patterns run in time proportional to their budget", () => {
    // Soundness check of the cost model: generate patterns, keep the ones the
    // validator accepts, run them on inputs that make them backtrack.
    const atom = fc.constantFrom(
      "a",
      "b",
      "\\d",
      ".",
      "[ab]",
      "[^b]",
      "\\w",
      "x",
      "1",
      "(?:ab|cd)",
      "(?:a|b)",
      "(?:a|ab)",
      "(?:a?)",
      "\\b",
      "^",
      "$",
    );
    const quantifier = fc.constantFrom("", "", "?", "{1,20}", "{0,8}", "{2}", "{1,3}", "{0,40}", "{3,100}", "+");
    const assertions = new Set(["\\b", "^", "$"]);
    const piece = fc.tuple(atom, quantifier).map(([a, q]) => (assertions.has(a) ? a : a + q));
    const pattern = fc
      .array(
        fc.oneof(
          piece,
          fc.tuple(fc.array(piece, { minLength: 1, maxLength: 3 }), quantifier).map(([xs, q]) => `(?:${xs.join("")})${q}`),
        ),
        {
          minLength: 1,
          maxLength: 4,
        },
      )
      .map((xs) => xs.join(""));
    const size = 50 * 1024;
    const inputs = ["a", "ab", "1", "a1", "aab"].map((u) => u.repeat(Math.ceil(size / u.length)).slice(0, size));
    fc.assert(
      fc.property(pattern, (source) => {
        if (!validateCustomPattern("custom", source).ok) return;
        const re = new RegExp(source, "g");
        for (const text of inputs) {
          const start = process.cpuUsage();
          text.replace(re, "");
          const used = process.cpuUsage(start);
          expect((used.user + used.system) / 1000, source).toBeLessThan(1000);
        }
      }),
      { numRuns: 300 },
    );
  });
});
