import { describe, expect, it } from "vitest";
import { COST_BUDGET, RedactionConfigError, compileRedactor, customRuleSchema, validateCustomPattern } from "./index";
import { patternCost } from "./custom-pattern";

const patternError = (pattern: string) => {
  const r = validateCustomPattern("custom", pattern);
  expect(r.ok, `${pattern} should be rejected`).toBe(false);
  return r.ok ? "" : r.message;
};

describe("validateCustomPattern", () => {
  it("accepts a valid pattern, which then redacts", () => {
    expect(validateCustomPattern("employee_id", "\\bEMP-\\d{5}\\b")).toEqual({ ok: true, minLength: 9 });
    const redactor = compileRedactor([{ name: "employee_id", pattern: "\\bEMP-\\d{5}\\b" }]);
    expect(redactor.redactText("badge EMP-12345, not EMP-1234 nor EMP-123456")).toBe("badge [redacted:employee_id], not EMP-1234 nor EMP-123456");
    expect(redactor.redactValue({ note: "EMP-00042" })).toEqual({ value: { note: "[redacted:employee_id]" }, hits: 1 });
    expect(redactor.ruleNames.at(-1)).toBe("employee_id");
  });

  it.each([
    "\\b[A-Z]{3}-\\d{4,8}\\b",
    "\\bCUST-[A-Z0-9]{8}\\b",
    "\\b\\d{3}-\\d{2}-\\d{4}\\b",
    "\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}",
    "[A-Za-z0-9._%+-]{1,64}@corp\\.example\\.com",
    "(?:foo|bar)-(?<num>\\d{2})",
    "(?:ab|cd){1,20}x",
    "project (falcon|eagle)",
    "[^\\s]{4}\\u00e9\\x41",
    "^secret-[a-z]{1,16}$",
  ])("accepts %s", (pattern) => {
    expect(validateCustomPattern("custom", pattern)).toMatchObject({ ok: true });
  });

  it("rejects invalid names", () => {
    for (const name of ["", "Employee", "1abc", "emp-id", "a".repeat(41), "émp"]) {
      expect(validateCustomPattern(name, "x")).toMatchObject({ ok: false, field: "name" });
    }
    expect(validateCustomPattern("a".repeat(40), "x")).toMatchObject({ ok: true });
    expect(validateCustomPattern("email", "x")).toMatchObject({ ok: false, field: "name", message: expect.stringContaining("built-in") });
    expect(validateCustomPattern("secret_key", "x")).toMatchObject({ ok: false, field: "name" });
  });

  it("rejects invalid regex syntax", () => {
    for (const pattern of ["[", "(abc", "abc)", "a**", "\\", "(?<n>a)(?<n>b)", "[z-a]"]) {
      expect(validateCustomPattern("custom", pattern)).toMatchObject({ ok: false, field: "pattern" });
    }
    expect(validateCustomPattern("custom", "")).toMatchObject({ ok: false, message: "pattern is empty" });
  });

  it("rejects nested quantifiers such as (a+)+$", () => {
    expect(patternError("(a+)+$")).toMatch(/nested quantifier.*catastrophic/);
    expect(patternError("(.*)*")).toMatch(/nested quantifier/);
    expect(patternError("(\\w+\\s?)*x")).toMatch(/nested quantifier/);
    expect(patternError("(?:\\d{1,3}\\.){3}\\d{1,3}")).toMatch(/nested quantifier/);
  });

  it("rejects ambiguous alternatives under a repeat such as (a|a)*", () => {
    expect(patternError("(a|a)*")).toMatch(/can match the same text/);
    expect(patternError("(\\w|\\d){1,10}")).toMatch(/can match the same text/);
    expect(patternError("(a|ab){1,10}")).toMatch(/different lengths/);
  });

  it("rejects backreferences and lookarounds", () => {
    expect(patternError("(a)\\1")).toMatch(/backreference/);
    expect(patternError("(?<q>['\"]).{1,9}\\k<q>")).toMatch(/backreference/);
    expect(patternError("foo(?=bar)")).toMatch(/lookahead/);
    expect(patternError("foo(?!bar)")).toMatch(/lookahead/);
    expect(patternError("(?<=a)b")).toMatch(/lookbehind/);
    expect(patternError("(?<!a)b")).toMatch(/lookbehind/);
  });

  it("rejects unbounded and oversized quantifiers, explaining the fix", () => {
    expect(patternError("\\bEMP-\\d+\\b")).toMatch(/unbounded quantifier "\\d\+".*\{1,64\}/);
    expect(patternError("a.*b")).toMatch(/unbounded/);
    expect(patternError("x{2,}")).toMatch(/unbounded/);
    expect(patternError("a{1000}")).toMatch(/too large/);
  });

  it("rejects patterns that match empty text", () => {
    expect(patternError("a?")).toMatch(/empty text/);
    expect(patternError("\\b")).toMatch(/empty text/);
    expect(patternError("x|")).toMatch(/empty text/);
  });

  it("rejects patterns whose backtracking per position exceeds the budget", () => {
    expect(patternCost("\\d{1,40}\\d{1,40}x")).toBeGreaterThan(COST_BUDGET);
    expect(patternError("\\d{1,40}\\d{1,40}x")).toMatch(/too expensive/);
    expect(patternError("[a-z]{1,9}[a-z]{1,9}[a-z]{1,9}!")).toMatch(/too expensive/);
  });

  it("keeps adjacent quantifiers over disjoint characters cheap", () => {
    // \w{1,64} then "@": backtracking positions fail at once on "@".
    expect(patternCost("\\w{1,64}@corp\\.com")).toBeLessThan(200);
  });

  it("rejects syntax it does not analyse rather than guessing", () => {
    expect(patternError("\\p{L}")).toMatch(/property escapes/);
    expect(patternError("a{")).toMatch(/unescaped "\{"/);
    expect(patternError("a]")).toMatch(/unescaped "\]"/);
    expect(patternError("[\\d-z]")).toMatch(/range/);
    expect(patternError("\\cJ")).toMatch(/control/);
    expect(patternError("\\u{41}")).toMatch(/four hex digits/);
    expect(patternError("\\q")).toMatch(/unknown escape/);
    expect(patternError("x".repeat(501))).toMatch(/longer than 500/);
  });

  it("never throws, whatever it is given", () => {
    const odd = [null, undefined, 42, {}, "(".repeat(400), "[".repeat(300), "(?:".repeat(150) + "a" + ")".repeat(150)] as unknown[];
    for (const value of odd) {
      expect(() => validateCustomPattern("custom", value as string)).not.toThrow();
      expect(() => validateCustomPattern(value as string, "x")).not.toThrow();
    }
  });
});

describe("compileRedactor with custom rules", () => {
  it("throws RedactionConfigError on an invalid or duplicated rule instead of skipping it", () => {
    expect(() => compileRedactor([{ name: "bad", pattern: "(a+)+$" }])).toThrow(RedactionConfigError);
    expect(() =>
      compileRedactor([
        { name: "dup", pattern: "x{3}" },
        { name: "dup", pattern: "y{3}" },
      ]),
    ).toThrow(/defined twice/);
  });

  it("tags a custom match that overlaps a built-in one with the earliest rule", () => {
    const redactor = compileRedactor([{ name: "corp_user", pattern: "[a-z]{1,20}\\.corp" }]);
    expect(redactor.redactText("ana@mail.corp.example.com and bob.corp")).toBe("[redacted:email] and [redacted:corp_user]");
  });
});

describe("customRuleSchema (zod)", () => {
  it("passes valid input and reports the failing field", () => {
    expect(customRuleSchema.safeParse({ name: "employee_id", pattern: "\\bEMP-\\d{5}\\b" }).success).toBe(true);
    const bad = customRuleSchema.safeParse({ name: "employee_id", pattern: "(a+)+$" });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]).toMatchObject({ path: ["pattern"], message: expect.stringMatching(/nested quantifier/) });
    expect(customRuleSchema.safeParse({ name: 3, pattern: "x" }).success).toBe(false);
  });
});
