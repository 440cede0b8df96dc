// Folds a key name to the letters a reader sees, before it is matched
// against secret names (docs/security.md, "Redaction gaps"): compatibility
// forms (full-width "ｐａｓｓｗｏｒｄ", ligatures) are decomposed (NFKD),
// accents, invisible format characters and variation selectors are dropped
// ("pass\u200Bword", "pässword"), and Cyrillic and Greek letters that look
// like Latin ones are replaced by them ("pаssword" with a Cyrillic а).
//
// A small explicit map rather than the full TS #39 skeleton: the skeleton
// also folds Latin letters into each other ("m" → "rn", "l" → "I"), which
// would turn "monkey" into "rnonkey" and break the word rules that follow.

// Lookalike → Latin, upper and lower case kept apart (camelCase splitting
// comes after folding).
const LOOKALIKES: Record<string, string> = {
  // Cyrillic
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  ѕ: "s",
  і: "i",
  ї: "i",
  ј: "j",
  ԁ: "d",
  ԛ: "q",
  ԝ: "w",
  ɡ: "g",
  һ: "h",
  ӏ: "l",
  ү: "y",
  ԍ: "g",
  А: "A",
  В: "B",
  Е: "E",
  Ё: "E",
  К: "K",
  М: "M",
  Н: "H",
  О: "O",
  Р: "P",
  С: "C",
  Т: "T",
  У: "Y",
  Х: "X",
  Ѕ: "S",
  І: "I",
  Ї: "I",
  Ј: "J",
  Ԁ: "D",
  Ԛ: "Q",
  Ԝ: "W",
  Һ: "H",
  Ӏ: "I",
  Ү: "Y",
  // Greek
  α: "a",
  β: "b",
  ε: "e",
  ι: "i",
  κ: "k",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  ω: "w",
  Α: "A",
  Β: "B",
  Ε: "E",
  Ζ: "Z",
  Η: "H",
  Ι: "I",
  Κ: "K",
  Μ: "M",
  Ν: "N",
  Ο: "O",
  Ρ: "P",
  Τ: "T",
  Υ: "Y",
  Χ: "X",
  // Latin letters that read as others, or that NFKD does not take apart:
  // "hasło" is the Polish haslo, "Paßwort" the German passwort.
  ı: "i",
  ȷ: "j",
  ſ: "s",
  ɑ: "a",
  ł: "l",
  Ł: "L",
  ß: "ss",
  ẞ: "SS",
};
const LOOKALIKE_RE = new RegExp(`[${Object.keys(LOOKALIKES).join("")}]`, "g");
// Marks, format characters (zero-width, bidi), variation selectors.
const INVISIBLE_RE = /[\p{M}\p{Cf}\uFE00-\uFE0F]/gu;
const ASCII_ONLY = /^[\x20-\x7e]*$/;

export function foldKeyName(key: string): string {
  if (ASCII_ONLY.test(key)) return key;
  return key
    .normalize("NFKD")
    .replace(INVISIBLE_RE, "")
    .replace(LOOKALIKE_RE, (c) => LOOKALIKES[c] ?? c);
}
