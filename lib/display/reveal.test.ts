// docs/security.md "what the reviewer sees is what runs": every invisible or
// direction-changing character becomes a visible escape, nothing else changes
// (the escaped text decodes back to the original), and words that mix scripts
// or read as other text are flagged — generated, not one example each.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { reveal, findingsOf, flagReason, escapeOf, segmentText, type Finding } from "./reveal";

// What must never reach the screen raw: format (bidi, zero-width, tags), control,
// separators, private-use, unassigned, surrogates, and the invisible letters and selectors.
const RAW_HIDDEN =
  /[\p{Cf}\p{Cc}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}\u115F\u1160\u3164\uFFA0\u034F\u17B4\u17B5\u180B-\u180F\u2800\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/u;

const HIDDEN_SAMPLES = [
  0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c, 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x00ad,
  0x180e, 0x3164, 0x115f, 0x1160, 0xffa0, 0xe0001, 0xe0041, 0xe007f, 0xfe0f, 0xfe00, 0xe0100, 0x2028, 0x2029, 0x00a0, 0x2007, 0x3000, 0x0007, 0x001b,
  0x000d, 0x007f, 0x0085, 0xe000, 0x034f,
];
const hiddenChar = fc.constantFrom(...HIDDEN_SAMPLES).map((c) => String.fromCodePoint(c));
/** Ordinary text of any script, with hidden characters spliced in. */
const spliced = fc
  .array(fc.oneof(fc.string({ unit: "grapheme", maxLength: 8 }), hiddenChar), { minLength: 1, maxLength: 12 })
  .map((parts) => parts.join(""))
  .filter((s) => RAW_HIDDEN.test(s));

/** The inverse of reveal() without json: every ⟨U+XXXX⟩ back to its character. */
const decode = (text: string) => text.replace(/⟨U\+([0-9A-F]{4,6})⟩/g, (_, h: string) => String.fromCodePoint(parseInt(h, 16)));
/** The same for JSON-style output: each ⟨U+XXXX⟩ as JSON \u escapes, then JSON.parse() gives the original. */
const decodeJson = (text: string) =>
  text.replace(/⟨U\+([0-9A-F]{4,6})⟩/g, (_, h: string) =>
    String.fromCodePoint(parseInt(h, 16))
      .split("")
      .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`)
      .join(""),
  );
const codesIn = (s: string) => [...new Set([...s].filter((ch) => RAW_HIDDEN.test(ch)).map((ch) => ch.codePointAt(0)!))];

describe("reveal: hidden characters become visible escapes", () => {
  it("leaves no hidden character in the output, shows an escape for each, and reports each", () => {
    fc.assert(
      fc.property(spliced, (s) => {
        const r = reveal(s);
        expect(r.text).not.toMatch(RAW_HIDDEN);
        for (const seg of r.segments) expect(segmentText(seg)).not.toMatch(RAW_HIDDEN);
        for (const code of codesIn(s)) {
          expect(r.text).toContain(escapeOf(code));
          expect(r.findings.some((f) => "code" in f && f.code === code)).toBe(true);
        }
        expect(flagReason(r.findings)).not.toBeNull();
        // The escapes are set apart from the text around them (highlighted segments).
        expect(
          r.segments
            .filter((seg) => "e" in seg)
            .map((seg) => ("e" in seg ? seg.e : ""))
            .join(""),
        ).toMatch(/^(⟨U\+[0-9A-F]{4,6}⟩)+$/);
      }),
      { numRuns: 500 },
    );
  });

  it("changes nothing else: the escaped text decodes back to the original (no value can fake an escape)", () => {
    const anyText = fc.oneof(fc.string({ unit: "binary", maxLength: 40 }), spliced, fc.constantFrom("⟨U+202E⟩", "a⟨b⟩c", "⟨", "⟩⟨U+200B⟩"));
    fc.assert(
      fc.property(anyText, (s) => {
        expect(decode(reveal(s).text)).toBe(s);
        expect(JSON.parse(decodeJson(reveal(s, { json: true }).text))).toBe(s);
      }),
      { numRuns: 500 },
    );
  });

  it("as JSON, shows control characters with JSON's own escapes and everything else hidden as ⟨U+…⟩", () => {
    fc.assert(
      fc.property(spliced, (s) => {
        const r = reveal(s, { json: true });
        expect(r.text).not.toMatch(RAW_HIDDEN);
        expect(r.text.startsWith('"') && r.text.endsWith('"')).toBe(true);
        expect(r.findings.every((f) => f.kind !== "control")).toBe(true);
        expect(findingsOf(s, { json: true })).toEqual(r.findings);
      }),
    );
  });

  it("turns the issue's examples into visibly different text", () => {
    expect(reveal("AC-\u202E9876\u202C").text).toBe("AC-⟨U+202E⟩9876⟨U+202C⟩");
    expect(reveal("amount\u200B").text).toBe("amount⟨U+200B⟩");
    expect(reveal("amount\u200B").text).not.toBe(reveal("amount").text);
    expect(reveal("a\u{E0041}b").text).toBe("a⟨U+E0041⟩b");
    const bidi = reveal("AC-\u202E9876\u202C").findings;
    expect(bidi.map((f) => f.kind)).toEqual(["bidi", "bidi"]);
  });

  it("keeps line feeds and tabs in free text, and escapes other controls there", () => {
    const r = reveal("line one\n\tline two\rPolicy: ok\u2028", { multiline: true });
    expect(r.text).toBe("line one\n\tline two⟨U+000D⟩Policy: ok⟨U+2028⟩");
  });
});

// Letters of several scripts; the first three pools hold letters that look Latin.
const POOLS: Record<string, [number, number]> = {
  Cyrillic: [0x0430, 0x044f],
  Greek: [0x03b1, 0x03c9],
  Armenian: [0x0561, 0x0586],
  Hebrew: [0x05d0, 0x05ea],
  Arabic: [0x0628, 0x063a],
  Georgian: [0x10d0, 0x10f0],
  Thai: [0x0e01, 0x0e2e],
  Devanagari: [0x0915, 0x0939],
};
const letterOf = (script: string) =>
  script === "Latin"
    ? fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzéñüß")
    : fc.integer({ min: POOLS[script]![0], max: POOLS[script]![1] }).map((c) => String.fromCodePoint(c));
const wordOf = (script: string, min = 1) => fc.array(letterOf(script), { minLength: min, maxLength: 8 }).map((xs) => xs.join(""));
const mixed = (f: Finding[]) => f.find((x) => x.kind === "mixed-script");

describe("reveal: look-alike and mixed-script values are flagged", () => {
  it("flags a word that mixes Latin with another script, wherever the foreign letter sits, and marks that letter", () => {
    const arb = fc
      .tuple(
        fc.constantFrom(...Object.keys(POOLS)),
        wordOf("Latin"),
        wordOf("Latin", 0),
        fc.string({ unit: fc.constantFrom(".", "/", ":", "-", "_", "0", "9") }),
      )
      .chain(([script, head, tail, punct]) =>
        letterOf(script).map((foreign) => ({ script, foreign, value: `${punct}${head}${foreign}${tail}.com` })),
      );
    fc.assert(
      fc.property(arb, ({ script, foreign, value }) => {
        const r = reveal(value);
        const f = mixed(r.findings);
        expect(
          r.segments
            .filter((seg) => "m" in seg)
            .map(segmentText)
            .join(""),
        ).toContain(foreign);
        expect(f, value).toBeDefined();
        expect(f && "scripts" in f ? f.scripts : []).toEqual(expect.arrayContaining(["Latin", script]));
        expect(flagReason(reveal(value).findings)).toContain("mixes scripts");
      }),
      { numRuns: 300 },
    );
  });

  it("flags any two scripts mixed in one word", () => {
    const names = Object.keys(POOLS);
    const arb = fc
      .tuple(fc.constantFrom(...names), fc.constantFrom(...names))
      .filter(([a, b]) => a !== b)
      .chain(([a, b]) => fc.tuple(wordOf(a), wordOf(b), wordOf(a, 0)).map(([x, y, z]) => `${x}${y}${z}`));
    fc.assert(
      fc.property(arb, (value) => {
        expect(mixed(reveal(value).findings), value).toBeDefined();
      }),
      { numRuns: 300 },
    );
  });

  it("flags the issue's look-alike URL, all-Cyrillic look-alikes and full-width letters", () => {
    expect(mixed(reveal("https://p\u0430ypal.com").findings)).toMatchObject({ scripts: ["Latin", "Cyrillic"] });
    expect(reveal("https://p\u0430ypal.com").segments).toEqual([
      { t: "https://p" },
      { m: "\u0430", title: "U+0430: a Cyrillic letter in a Latin word" },
      { t: "ypal.com" },
    ]);
    expect(reveal("\u0430\u0440\u0440\u04cf\u0435").findings.map((f) => f.kind)).toContain("confusable");
    expect(reveal("\uff50\uff41\uff59\uff50\uff41\uff4c").findings.map((f) => f.kind)).toEqual(
      expect.arrayContaining(["compatibility", "confusable"]),
    );
    expect(reveal("cafe\u0301").findings.map((f) => f.kind)).toContain("not-normalized");
  });

  it("does not flag plain ASCII", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 80 }), (s) => {
        const r = reveal(s);
        expect(r.findings).toEqual([]);
        expect(r.text).toBe(s);
        expect(reveal(s, { json: true }).text).toBe(JSON.stringify(s));
      }),
    );
  });

  it("does not flag words of one script, or CJK text with Latin in it", () => {
    const oneScript = fc
      .constantFrom("Latin", "Thai", "Devanagari", "Georgian", "Arabic", "Hebrew", "Cyrillic", "Greek")
      .chain((script) => fc.array(wordOf(script), { minLength: 1, maxLength: 5 }).map((ws) => ({ script, value: ws.join(" ") })));
    fc.assert(
      fc.property(oneScript, ({ value }) => {
        const kinds = reveal(value).findings.map((f) => f.kind);
        expect(kinds).not.toContain("mixed-script");
        // Scripts without Latin look-alikes are not flagged at all.
        expect(kinds.filter((k) => k !== "confusable")).toEqual([]);
      }),
    );
    for (const s of ["Straße 10", "Привет мир", "東京タワー iPhoneケース", "서울 Han 漢字", "Ελληνικά", "日本語のテキスト"])
      expect(reveal(s).findings, s).toEqual([]);
  });
});
