import { describe, expect, it } from "vitest";
import { compileRedactor } from "./index";

const redactor = compileRedactor([{ name: "employee_id", pattern: "\\bEMP-\\d{5}\\b" }]);

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

describe("redactValue", () => {
  it("walks nested objects and arrays and replaces only matching substrings", () => {
    const input = {
      to: ["ana@example.com", { cc: "bob@example.org" }],
      body: { text: "card 4111 1111 1111 1111, see EMP-12345", lines: [["pay DE89 3704 0044 0532 0130 00"]] },
      count: 3,
      ok: true,
      nothing: null,
    };
    expect(redactor.redactValue(input)).toEqual({
      value: {
        to: ["[redacted:email]", { cc: "[redacted:email]" }],
        body: { text: "card [redacted:card_number], see [redacted:employee_id]", lines: [["pay [redacted:iban]"]] },
        count: 3,
        ok: true,
        nothing: null,
      },
      hits: 5,
    });
  });

  it("hides secret-named keys at any depth, including inside arrays, whatever the value", () => {
    const input = {
      password: "hunter2",
      config: {
        headers: [{ Authorization: "Basic dXNlcjpwYXNz" }, { "x-api-key": 12345 }],
        nested: { deeper: [[{ client_secret: { a: [1, 2, 3] } }]] },
        apiKey: ["one", "two"],
        refresh_token: null,
        session_id: true,
      },
      max_tokens: 1024,
      secret_name: "prod/db",
    };
    const { value, hits } = redactor.redactValue(input);
    expect(value).toEqual({
      password: "[redacted:secret_key]",
      config: {
        headers: [{ Authorization: "[redacted:secret_key]" }, { "x-api-key": "[redacted:secret_key]" }],
        nested: { deeper: [[{ client_secret: "[redacted:secret_key]" }]] },
        apiKey: "[redacted:secret_key]",
        refresh_token: "[redacted:secret_key]",
        session_id: "[redacted:secret_key]",
      },
      max_tokens: 1024,
      secret_name: "prod/db",
    });
    expect(hits).toBe(7);
  });

  it("redacts numbers that are card numbers, keeping other numbers", () => {
    expect(redactor.redactValue([4111111111111111, -4111111111111111, 4111111111111112, 1718900000000, 3.14, -5, 0]).value).toEqual([
      "[redacted:card_number]",
      "[redacted:card_number]",
      4111111111111112,
      1718900000000,
      3.14,
      -5,
      0,
    ]);
  });

  it("redacts strings at the top level and leaves other scalars alone", () => {
    expect(redactor.redactValue("ana@example.com")).toEqual({ value: "[redacted:email]", hits: 1 });
    for (const scalar of [true, false, null, 0, 42, ""]) expect(redactor.redactValue(scalar)).toEqual({ value: scalar, hits: 0 });
  });

  it("redacts object keys, keeping colliding keys apart", () => {
    expect(redactor.redactValue({ "ana@example.com": "to", "bob@example.com": "cc", plain: 1 }).value).toEqual({
      "[redacted:email]": "to",
      "[redacted:email]#2": "cc",
      plain: 1,
    });
  });

  it("keeps key order", () => {
    const { value } = redactor.redactValue({ z: 1, a: { y: 2, b: 3 }, m: [1] });
    expect(JSON.stringify(value)).toBe('{"z":1,"a":{"y":2,"b":3},"m":[1]}');
  });

  it("does not mutate its input", () => {
    const input = deepFreeze({ a: ["ana@example.com", { token: "t", n: 4111111111111111 }], b: "EMP-12345" });
    const before = structuredClone(input);
    const { value } = redactor.redactValue(input);
    expect(input).toEqual(before);
    expect(value).not.toBe(input);
    expect((value as { a: unknown[] }).a).not.toBe(input.a);
  });

  it("keeps __proto__ as a plain own key", () => {
    const input = JSON.parse('{"__proto__": {"token": "t", "x": "ana@example.com"}}') as unknown;
    const { value } = redactor.redactValue(input);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(JSON.stringify(value)).toBe('{"__proto__":{"token":"[redacted:secret_key]","x":"[redacted:email]"}}');
  });

  it("handles very deep nesting without recursion", () => {
    let deep: unknown = "ana@example.com";
    for (let k = 0; k < 100_000; k++) deep = k % 2 ? [deep] : { k: deep };
    const { value, hits } = redactor.redactValue(deep);
    expect(hits).toBe(1);
    let cursor = value;
    for (let k = 100_000 - 1; k >= 0; k--) cursor = k % 2 ? (cursor as unknown[])[0] : (cursor as { k: unknown }).k;
    expect(cursor).toBe("[redacted:email]");
  });

  it("is idempotent: redacting the output again changes nothing", () => {
    const input = {
      text: "AKIAIOSFODNN7EXAMPLE4111111111111111 ana@example.com [redacted:email] EMP-12345",
      token: "x",
      n: 4111111111111111,
    };
    const once = redactor.redactValue(input);
    const twice = redactor.redactValue(once.value);
    expect(twice.value).toEqual(once.value);
    expect(twice.hits).toBe(0);
  });

  it("never throws on odd values", () => {
    const cyclic: Record<string, unknown> = { email: "ana@example.com" };
    cyclic.self = cyclic;
    const shared = { password: "p" };
    const odd: unknown[] = [
      undefined,
      Symbol("s"),
      () => 1,
      10n,
      4111111111111111n,
      new Date(0),
      new Map([["a", 1]]),
      cyclic,
      [shared, shared],
      // eslint-disable-next-line no-sparse-arrays -- an array with a hole is one of the inputs under test
      [1, , 3],
      { toJSON: () => "ana@example.com" },
      Object.create(null) as object,
      NaN,
      Infinity,
    ];
    for (const value of odd) expect(() => redactor.redactValue(value)).not.toThrow();
    expect(redactor.redactValue(4111111111111111n).value).toBe("[redacted:card_number]");
    expect(redactor.redactValue(new Date(0)).value).toBe("1970-01-01T00:00:00.000Z");
    expect(redactor.redactValue({ toJSON: () => "ana@example.com" }).value).toBe("[redacted:email]");
    const out = redactor.redactValue(cyclic).value as Record<string, unknown>;
    expect(out.email).toBe("[redacted:email]");
    expect(out.self).toBe(out);
  });

  it("fails closed when reading the input throws", () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("boom");
        },
      },
    );
    expect(redactor.redactValue({ a: hostile })).toEqual({ value: "[redacted:error]", hits: 1 });
  });
});

describe("redactText (summary path)", () => {
  it("redacts a summary in place", () => {
    expect(redactor.redactText("Send the invoice to ana@example.com and charge 4111-1111-1111-1111 for EMP-12345")).toBe(
      "Send the invoice to [redacted:email] and charge [redacted:card_number] for [redacted:employee_id]",
    );
  });

  it("leaves clean text untouched and handles empty text", () => {
    expect(redactor.redactText("Deploy build 1234 to staging")).toBe("Deploy build 1234 to staging");
    expect(redactor.redactText("")).toBe("");
  });

  it("works without custom rules", () => {
    const plain = compileRedactor();
    expect(plain.redactText("EMP-12345 ana@example.com")).toBe("EMP-12345 [redacted:email]");
    // Pinned here rather than read from names.ts: adding, dropping or reordering a rule shows as a test change.
    expect(plain.ruleNames).toEqual([
      "pem",
      "aws_access_key_id",
      "aws_secret_access_key",
      "api_key",
      "slack_webhook",
      "bearer_token",
      "basic_auth",
      "jwt",
      "url_password",
      "secret_key",
      "seed_phrase",
      "email",
      "iban",
      "card_number",
    ]);
  });
});
