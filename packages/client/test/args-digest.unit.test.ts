import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import canonicalize from "canonicalize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ARGS_DIGEST_PATTERN, CanonicalJsonError, argsDigest, canonicalJson, isArgsDigest, isArgsSalt, newArgsSalt } from "../src/args-digest.js";

/** A double from its IEEE-754 bit pattern (as RFC 8785 lists its number samples). */
function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

function expectedDigest(text: string): string {
  return `sha256:${createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex")}`;
}

/**
 * Shared vectors. clients/python/test_digest.py hard-codes the same inputs
 * and the digests printed by this implementation: keep the two files in step.
 */
const SHARED_VECTORS: { name: string; value: Record<string, unknown>; jcs: string }[] = [
  {
    name: "key ordering",
    value: { b: 2, a: 1, c: { z: true, y: null, x: "s" } },
    jcs: '{"a":1,"b":2,"c":{"x":"s","y":null,"z":true}}',
  },
  {
    name: "UTF-16 key ordering (RFC 8785)",
    value: {
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis",
    },
    jcs:
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
      '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
  },
  {
    name: "string escapes",
    value: { s: 'quote" backslash\\ slash/ nl\n tab\t bs\b ff\f cr\r nul\u0000 us\u001f del\u007f ls\u2028 é😀' },
    jcs: '{"s":"quote\\" backslash\\\\ slash/ nl\\n tab\\t bs\\b ff\\f cr\\r nul\\u0000 us\\u001f del\u007f ls\u2028 é😀"}',
  },
  {
    name: "numbers",
    value: { big: 1e21, negZero: -0, tenth: 0.1, small: 1e-7, int: 10, neg: -42, max: 9007199254740991, e20: 1e20 },
    jcs: '{"big":1e+21,"e20":100000000000000000000,"int":10,"max":9007199254740991,"neg":-42,"negZero":0,"small":1e-7,"tenth":0.1}',
  },
  {
    name: "nested",
    value: {
      account: "AC-1",
      amount: 10,
      lines: [{ sku: "x", qty: 2 }, [], {}, [null, false, true, "", 0]],
      meta: { deep: { deeper: { deepest: ["ok"] } } },
    },
    jcs:
      '{"account":"AC-1","amount":10,"lines":[{"qty":2,"sku":"x"},[],{},[null,false,true,"",0]],' + '"meta":{"deep":{"deeper":{"deepest":["ok"]}}}}',
  },
  { name: "empty object", value: {}, jcs: "{}" },
];

describe("canonicalJson", () => {
  for (const vector of SHARED_VECTORS) {
    it(`canonicalizes: ${vector.name}`, () => {
      expect(canonicalJson(vector.value)).toBe(vector.jcs);
    });
  }

  it("serializes numbers as RFC 8785 Appendix B lists them", () => {
    const samples: [string, string][] = [
      ["0000000000000000", "0"],
      ["8000000000000000", "0"],
      ["0000000000000001", "5e-324"],
      ["8000000000000001", "-5e-324"],
      ["7fefffffffffffff", "1.7976931348623157e+308"],
      ["ffefffffffffffff", "-1.7976931348623157e+308"],
      ["4340000000000000", "9007199254740992"],
      ["c340000000000000", "-9007199254740992"],
      ["4430000000000000", "295147905179352830000"],
      ["44b52d02c7e14af5", "9.999999999999997e+22"],
      ["44b52d02c7e14af6", "1e+23"],
      ["44b52d02c7e14af7", "1.0000000000000001e+23"],
      ["444b1ae4d6e2ef4e", "999999999999999700000"],
      ["444b1ae4d6e2ef4f", "999999999999999900000"],
      ["444b1ae4d6e2ef50", "1e+21"],
      ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
      ["3eb0c6f7a0b5ed8d", "0.000001"],
      ["41b3de4355555553", "333333333.3333332"],
      ["41b3de4355555554", "333333333.33333325"],
      ["41b3de4355555555", "333333333.3333333"],
      ["41b3de4355555556", "333333333.3333334"],
      ["41b3de4355555557", "333333333.33333343"],
      ["becbf647612f3696", "-0.0000033333333333333333"],
      ["43143ff3c1cb0959", "1424953923781206.2"],
    ];
    for (const [bits, text] of samples) {
      expect(canonicalJson(fromBits(bits)), bits).toBe(text);
    }
  });

  it("honours JSON.stringify's omissions so the digest matches the JSON actually sent", () => {
    expect(canonicalJson({ a: undefined, b: () => 1, c: [undefined] })).toBe('{"c":[null]}');
    expect(canonicalJson({ when: new Date(Date.UTC(2026, 10, 29, 18)) })).toBe('{"when":"2026-11-29T18:00:00.000Z"}');
  });

  it("rejects lone surrogates with a typed error", () => {
    for (const bad of ["\ud800", "a\udc00b", "\ude00\ud83d"]) {
      const attempt = () => canonicalJson({ s: bad });
      expect(attempt).toThrow(CanonicalJsonError);
      try {
        attempt();
      } catch (error) {
        expect((error as CanonicalJsonError).reason).toBe("lone-surrogate");
      }
    }
    // ...in keys too
    expect(() => canonicalJson({ ["\ud800"]: 1 })).toThrow(CanonicalJsonError);
  });

  it("rejects NaN, Infinity, BigInt, cycles and values with no JSON form", () => {
    const cases: [unknown, string][] = [
      [{ n: NaN }, "non-finite-number"],
      [{ n: Infinity }, "non-finite-number"],
      [{ n: -Infinity }, "non-finite-number"],
      [{ n: 1n }, "bigint"],
      [undefined, "not-representable"],
      [() => 1, "not-representable"],
    ];
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    cases.push([cyclic, "circular"]);
    for (const [value, reason] of cases) {
      let caught: unknown;
      try {
        canonicalJson(value);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(CanonicalJsonError);
      expect((caught as CanonicalJsonError).reason).toBe(reason);
    }
  });
});

describe("argsDigest", () => {
  it("is sha256: + lowercase hex of the UTF-8 canonical JSON", () => {
    for (const vector of SHARED_VECTORS) {
      const digest = argsDigest(vector.value);
      expect(digest).toBe(expectedDigest(vector.jcs));
      expect(digest).toMatch(ARGS_DIGEST_PATTERN);
      expect(isArgsDigest(digest)).toBe(true);
    }
  });

  it("does not depend on key insertion order", () => {
    expect(argsDigest({ a: 1, b: { c: 2, d: 3 } })).toBe(argsDigest({ b: { d: 3, c: 2 }, a: 1 }));
  });

  it("matches the contract example's arguments", () => {
    expect(argsDigest({ account: "AC-1", amount: 10 })).toBe(expectedDigest('{"account":"AC-1","amount":10}'));
  });

  it("refuses non-objects and unrepresentable values", () => {
    for (const bad of [null, [], [1], "x", 1, { toJSON: () => [1] }]) {
      expect(() => argsDigest(bad as unknown as Record<string, unknown>)).toThrow(CanonicalJsonError);
    }
    expect(() => argsDigest({ s: "\udfff" })).toThrow(CanonicalJsonError);
    expect(() => argsDigest({ n: NaN })).toThrow(CanonicalJsonError);
  });

  it("isArgsDigest rejects malformed digests", () => {
    expect(isArgsDigest("sha256:" + "A".repeat(64))).toBe(false);
    expect(isArgsDigest("sha256:" + "a".repeat(63))).toBe(false);
    expect(isArgsDigest("sha512:" + "a".repeat(64))).toBe(false);
    expect(isArgsDigest(42)).toBe(false);
  });

  it("matches a digest computed by python3's standard library", () => {
    // For ASCII keys, integers, booleans, null, nesting and strings without
    // control characters, sorted compact json.dumps equals RFC 8785 output.
    const payload = {
      tool_args: { account: "AC-1", amount: 10, currency: "EUR" },
      flags: [true, false, null],
      note: "Refund order 1234 — café ☕ 😀",
      count: -7,
      nested: { z: [1, 2, { b: "two", a: "one" }], a: {} },
      Zebra: "upper-case keys sort before lower-case",
    };
    const script = [
      "import sys, json, hashlib",
      "obj = json.loads(sys.stdin.read())",
      'text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)',
      'print("sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest())',
    ].join("\n");
    const result = spawnSync("python3", ["-c", script], {
      input: JSON.stringify(payload),
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(result.error).toBeUndefined();
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(argsDigest(payload));
  });
});

describe("salted argsDigest (docs/security.md)", () => {
  // Computed here independently: node:crypto over salt + "." + the canonicalize package's JCS.
  const independent = (args: Record<string, unknown>, salt: string) =>
    `sha256:${createHash("sha256")
      .update(Buffer.from(`${salt}.${canonicalize(args) as string}`, "utf8"))
      .digest("hex")}`;
  const SALT = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"; // bytes 0..31

  it("is sha256 of salt + '.' + JCS(arguments)", () => {
    for (const vector of SHARED_VECTORS) {
      expect(argsDigest(vector.value, SALT)).toBe(independent(vector.value, SALT));
      expect(argsDigest(vector.value, SALT)).toBe(expectedDigest(`${SALT}.${vector.jcs}`));
    }
    // Printed once by python3's hashlib; clients/python/test_digest.py hard-codes the same.
    expect(argsDigest({ account: "AC-1", amount: 10 }, SALT)).toBe("sha256:b0b3c4ecfeab4782474fa5d87626b3f1aefce1c45c4e464c3c6982423aa49061");
  });

  it("differs from the unsalted digest and between salts, and matches the independent computation (property)", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })),
        fc.uint8Array({ minLength: 16, maxLength: 64 }),
        fc.uint8Array({ minLength: 16, maxLength: 64 }),
        (args, a, b) => {
          const saltA = Buffer.from(a).toString("base64url");
          const saltB = Buffer.from(b).toString("base64url");
          const salted = argsDigest(args, saltA);
          expect(salted).toBe(independent(args, saltA));
          expect(salted).toMatch(ARGS_DIGEST_PATTERN);
          expect(salted).not.toBe(argsDigest(args));
          if (saltA !== saltB) expect(salted).not.toBe(argsDigest(args, saltB));
          expect(argsDigest(args, undefined)).toBe(expectedDigest(canonicalize(args) as string));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("keeps __proto__ as an ordinary key in the digest", () => {
    const args = JSON.parse('{"__proto__":{"admin":true},"a":1}') as Record<string, unknown>;
    expect(argsDigest(args)).toBe(expectedDigest('{"__proto__":{"admin":true},"a":1}'));
    expect(argsDigest(args, SALT)).toBe(expectedDigest(`${SALT}.{"__proto__":{"admin":true},"a":1}`));
    expect(argsDigest(args)).not.toBe(argsDigest({ a: 1 }));
  });

  it("accepts only 16–64 bytes of unpadded, canonical base64url", () => {
    const of = (n: number) => randomBytes(n).toString("base64url");
    for (const n of [16, 17, 18, 32, 63, 64]) expect(isArgsSalt(of(n)), String(n)).toBe(true);
    for (const n of [0, 1, 15, 65, 100]) expect(isArgsSalt(of(n)), String(n)).toBe(false);
    const padded = randomBytes(16).toString("base64"); // 24 chars with "=="
    expect(isArgsSalt(padded)).toBe(false);
    expect(isArgsSalt(`${of(16)}==`)).toBe(false);
    expect(isArgsSalt(of(32).replace(/.$/, "+"))).toBe(false);
    expect(isArgsSalt(of(32).replace(/.$/, "/"))).toBe(false);
    // 16 bytes end in a character with 4 unused bits: a non-zero one spells the same bytes another way.
    const canonical = Buffer.alloc(16).toString("base64url");
    expect(canonical).toBe("AAAAAAAAAAAAAAAAAAAAAA");
    expect(isArgsSalt(canonical)).toBe(true);
    expect(isArgsSalt("AAAAAAAAAAAAAAAAAAAAAB")).toBe(false);
    for (const bad of [undefined, null, 42, "", " ".repeat(22), `${of(16)}\n`]) expect(isArgsSalt(bad)).toBe(false);
    expect(() => argsDigest({ a: 1 }, "short")).toThrow(RangeError);
  });

  it("newArgsSalt makes a fresh 32-byte salt each time", () => {
    const salts = new Set(Array.from({ length: 50 }, () => newArgsSalt()));
    expect(salts.size).toBe(50);
    for (const s of salts) {
      expect(isArgsSalt(s)).toBe(true);
      expect(Buffer.from(s, "base64url")).toHaveLength(32);
    }
  });
});
