// Strict body parsing (docs/security.md, RFC 7493): valid I-JSON is accepted with
// exactly the value JSON.parse gives; duplicate keys, integers beyond
// ±(2^53−1), numbers a double cannot hold and lone surrogates are refused with
// 422 invalid-request, and the refusal never repeats the offending value.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { findIJsonViolation } from "./i-json";
import { parseJsonBody } from "./parse-json";

const bytes = (text: string) => new TextEncoder().encode(text);
/** No lone surrogate (String.prototype.isWellFormed, which this TypeScript lib target lacks). */
const isWellFormed = (s: string) => !/\p{Cs}/u.test(s);

function refusal(text: string): AppError {
  try {
    parseJsonBody(bytes(text));
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const e = error as AppError;
    expect(e.code).toBe("invalid-request");
    expect(e.status).toBe(422);
    return e;
  }
  throw new Error(`accepted: ${text}`);
}

/** True when JSON.stringify would print an integer beyond ±(2^53−1) without an exponent. */
function hasUnsafeInteger(value: unknown): boolean {
  if (typeof value === "number") return Number.isInteger(value) && Math.abs(value) > Number.MAX_SAFE_INTEGER && Math.abs(value) < 1e21;
  if (typeof value === "string" || value === null || typeof value !== "object") return false;
  return Object.values(value).some(hasUnsafeInteger);
}
function wellFormed(value: unknown): boolean {
  if (typeof value === "string") return isWellFormed(value);
  if (value === null || typeof value !== "object") return true;
  return Object.entries(value).every(([k, v]) => isWellFormed(k) && wellFormed(v));
}

/** Any I-JSON value: arbitrary UTF-16 strings (then kept only when well formed), doubles, nesting. */
const iJsonValue = fc.jsonValue({ stringUnit: "binary", maxDepth: 4 }).filter((v) => wellFormed(v) && !hasUnsafeInteger(v));

/** Renders a value as JSON text with random spacing and random \u escapes, as other senders might. */
function render(value: unknown, escapeMask: readonly boolean[], spaced: boolean): string {
  let n = 0;
  const ws = spaced ? " \n\t" : "";
  // Per code point, so a pair is escaped whole or not at all (raw halves cannot be UTF-8 encoded).
  const unit = (u: number) => `\\u${u.toString(16).padStart(4, "0")}`;
  const str = (s: string) => {
    let out = '"';
    for (const ch of s) {
      if (escapeMask[n++ % escapeMask.length]) out += [...Array(ch.length).keys()].map((k) => unit(ch.charCodeAt(k))).join("");
      else out += JSON.stringify(ch).slice(1, -1);
    }
    return `${out}"`;
  };
  const go = (v: unknown): string => {
    if (typeof v === "string") return str(v);
    if (v === null || typeof v !== "object") return JSON.stringify(v);
    if (Array.isArray(v)) return `[${ws}${v.map(go).join(`${ws},${ws}`)}${ws}]`;
    return `{${ws}${Object.entries(v)
      .map(([k, x]) => `${str(k)}${ws}:${ws}${go(x)}`)
      .join(`${ws},`)}${ws}}`;
  };
  return go(value);
}

describe("parseJsonBody (I-JSON)", () => {
  it("accepts any valid I-JSON text with the value JSON.parse gives (property)", () => {
    fc.assert(
      fc.property(iJsonValue, fc.array(fc.boolean(), { minLength: 1, maxLength: 7 }), fc.boolean(), (value, mask, spaced) => {
        const text = render(value, mask, spaced);
        const parsed = parseJsonBody(bytes(text));
        expect(parsed).toStrictEqual(JSON.parse(text));
        // And nothing changed on the way: the same JSON as the value generated.
        expect(JSON.stringify(parsed)).toBe(JSON.stringify(value));
      }),
      { numRuns: 400 },
    );
  });

  it("refuses a duplicate key at any depth, however it is spelled (property)", () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string({ unit: "binary" }).filter((k) => isWellFormed(k)),
          iJsonValue,
          { minKeys: 1, maxKeys: 5 },
        ),
        fc.nat(),
        fc.array(fc.constantFrom("array", "object"), { maxLength: 6 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
        (dict, pick, wrappers, mask) => {
          const keys = Object.keys(dict);
          const dup = keys[pick % keys.length];
          // The object with the first key written again at the end, with another value.
          let text = render(dict, mask, false).replace(/}$/, `,${render(dup, [...mask].reverse(), false)}:0}`);
          for (const w of wrappers) text = w === "array" ? `[1,${text}]` : `{"x":${text}}`;
          const e = refusal(text);
          expect(e.details.issues?.[0]?.message).toBe("duplicate object key");
        },
      ),
      { numRuns: 300 },
    );
    for (const text of ['{"a":1,"a":1}', '{"a":1,"\\u0061":2}', '{"__proto__":1,"__proto__":{}}', '[{"k":[{"a":{},"a":[]}]}]']) {
      expect(refusal(text).details.issues?.[0]?.message, text).toBe("duplicate object key");
    }
  });

  it("refuses integers beyond ±(2^53−1) and accepts every one within (property)", () => {
    const max = BigInt(Number.MAX_SAFE_INTEGER);
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.boolean(), (n, nested) => {
        const text = nested ? `{"data":{"arguments":{"n":[${n}]}}}` : String(n);
        const inRange = n <= max && n >= -max;
        if (inRange) {
          expect(parseJsonBody(bytes(text))).toStrictEqual(JSON.parse(text));
        } else {
          const e = refusal(text);
          expect(e.details.issues?.[0]?.message).toBe("integers must be within ±(2^53−1)");
          expect(JSON.stringify(e.details)).not.toContain(String(n).replace("-", "").slice(0, 6));
        }
      }),
      { numRuns: 500 },
    );
    for (const edge of ["9007199254740991", "-9007199254740991"]) expect(parseJsonBody(bytes(edge))).toBe(Number(edge));
    for (const edge of ["9007199254740992", "-9007199254740992", "9007199254740993", "18446744073709551616"]) refusal(edge);
  });

  it("refuses numbers that a double cannot hold as written, and keeps those it can", () => {
    for (const bad of [
      "1e400",
      "-1e400",
      "1E309",
      "9007199254740993.0",
      "9007199254740993e0",
      "3.141592653589793238462643383279",
      "1e-400",
      "0.1000000000000000000001",
    ]) {
      const e = refusal(`{"n":${bad}}`);
      expect(e.details.issues).toEqual([{ path: "n", message: expect.stringMatching(/double/) }]);
    }
    for (const good of ["1e21", "1e+23", "0.1", "5e-324", "-0", "-0.0", "0e999999", "1.5E3", "10.50", "2.5e-1", "1.7976931348623157e308"]) {
      expect(parseJsonBody(bytes(`{"n":${good}}`)), good).toStrictEqual({ n: Number(good) });
    }
  });

  it("decides any decimal literal as an exact-arithmetic oracle does (property)", () => {
    /** [mantissa, exponent] with value = mantissa × 10^exponent, in BigInt. */
    const exact = (lit: string): [bigint, number] => {
      const [mant = "", exp = "0"] = lit.toLowerCase().split("e");
      const [int = "", frac = ""] = mant.split(".");
      return [BigInt(`${int}${frac}`.replace(/^(-?)$/, "$10")), Number(exp) - frac.length];
    };
    const same = (a: string, b: string) => {
      const [ma, ea] = exact(a);
      const [mb, eb] = exact(b);
      const e = Math.min(ea, eb);
      return ma * 10n ** BigInt(ea - e) === mb * 10n ** BigInt(eb - e);
    };
    const literal = fc
      .tuple(
        fc.boolean(),
        fc.stringMatching(/^(0|[1-9][0-9]{0,24})$/),
        fc.option(fc.stringMatching(/^[0-9]{1,24}$/), { nil: undefined }),
        fc.option(fc.integer({ min: -340, max: 340 }), { nil: undefined }),
      )
      .map(([neg, int, frac, exp]) => `${neg ? "-" : ""}${int}${frac === undefined ? "" : `.${frac}`}${exp === undefined ? "" : `e${exp}`}`);
    fc.assert(
      fc.property(literal, (lit) => {
        const value = Number(lit);
        const isInteger = !/[.e]/.test(lit);
        const ok = isInteger
          ? BigInt(lit) <= BigInt(Number.MAX_SAFE_INTEGER) && BigInt(lit) >= -BigInt(Number.MAX_SAFE_INTEGER)
          : Number.isFinite(value) && same(String(value), lit);
        expect(findIJsonViolation(`[${lit}]`) === null, lit).toBe(ok);
      }),
      { numRuns: 2000 },
    );
  });

  it("any number JavaScript prints is accepted as itself (property)", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        if (Number.isInteger(x) && Math.abs(x) > Number.MAX_SAFE_INTEGER && Math.abs(x) < 1e21) return; // refused above
        expect(Object.is(parseJsonBody(bytes(JSON.stringify(x))), x === 0 ? 0 : x)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it("refuses a lone surrogate, escaped, in a key or a value, at any depth (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0xd800, max: 0xdfff }), fc.string(), fc.string(), fc.boolean(), (unit, before, after, inKey) => {
        const escaped = `\\u${unit.toString(16)}`;
        const s = `${JSON.stringify(before).slice(1, -1)}${escaped}${JSON.stringify(after).slice(1, -1)}`;
        const text = inKey ? `{"data":{"arguments":{"${s}":1}}}` : `{"data":{"arguments":{"k":["${s}"]}}}`;
        const e = refusal(text);
        expect(e.details.issues?.[0]?.message).toMatch(/lone surrogate/);
        expect(e.details.issues?.[0]?.path).toBe(inKey ? "data.arguments.#1" : "data.arguments.#1.0");
      }),
      { numRuns: 300 },
    );
    // A pair, escaped or not, is fine; a pair in the wrong order or split by another unit is not.
    expect(parseJsonBody(bytes('{"\\ud83d\\ude00":"\\uD83D\\uDE00😀"}'))).toStrictEqual({ "😀": "😀😀" });
    for (const bad of ['"\\ude00\\ud83d"', '"\\ud83d\\u0041\\ude00"', '"\\ud83d\\n\\ude00"', '"\\ud83d"', '{"\\udfff":1}']) refusal(bad);
  });

  it("checks raw (unescaped) surrogates too when given text", () => {
    expect(findIJsonViolation('"\ud800"')?.message).toMatch(/lone surrogate/);
    expect(findIJsonViolation('"\\ud83d\ude00"')).toBeNull(); // escaped high + raw low still make a pair
    expect(findIJsonViolation('{"\udc00":1}')?.message).toMatch(/lone surrogate/);
  });

  it("keeps __proto__ as an ordinary own key at every depth", () => {
    const value = parseJsonBody(bytes('{"data":{"arguments":{"__proto__":{"isAdmin":true},"a":[{"__proto__":null}]}}}')) as {
      data: { arguments: Record<string, unknown> };
    };
    const args = value.data.arguments;
    expect(Object.keys(args)).toEqual(["__proto__", "a"]);
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(JSON.stringify(args)).toBe('{"__proto__":{"isAdmin":true},"a":[{"__proto__":null}]}');
  });

  it("never echoes a refused key or value, inside arguments shown by position only", () => {
    const secret = "hunter2-SECRET";
    const cases = [
      `{"data":{"arguments":{"${secret}":1,"${secret}":2}}}`,
      `{"data":{"arguments":{"${secret}":{"x":"\\ud800"}}}}`,
      `{"data":{"arguments":{"ok":1,"${secret}":123456789012345678901234}}}`,
    ];
    const paths = cases.map((text) => {
      const e = refusal(text);
      expect(JSON.stringify(e.details)).not.toContain("hunter2");
      expect(e.message).not.toContain("hunter2");
      return e.details.issues?.[0]?.path;
    });
    expect(paths).toEqual(["data.arguments.#2", "data.arguments.#1.#1", "data.arguments.#2"]);
    // Envelope fields are named.
    expect(refusal('{"type":"approval.requested","type":"x"}').details.issues).toEqual([{ path: "type", message: "duplicate object key" }]);
  });

  it("still refuses what it refused before: not UTF-8, not JSON, too deep", () => {
    expect(refusal("{not json").details.issues).toEqual([{ path: "", message: "body must be JSON" }]);
    expect(() => parseJsonBody(new Uint8Array([0x7b, 0xff, 0x7d]))).toThrow(AppError);
    expect(() => parseJsonBody(bytes("[".repeat(100) + "]".repeat(100)))).toThrow(AppError);
  });
});
