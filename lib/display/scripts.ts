// Look-alike detection for display (docs/security.md): a word that mixes scripts
// ("p\u0430ypal": Latin with a Cyrillic а), text made of characters confusable
// with plain ASCII ("\u0430\u0440\u0440\u04cf\u0435", all Cyrillic, reads "apple"; the
// TS #39 skeleton of lib/identity), letters in compatibility forms (full-width,
// mathematical) and text not in its composed (NFC) form. Scripts come from
// Unicode property escapes (Script_Extensions), so a character shared by
// several scripts (a Han ideograph in Japanese) fits any of them. Pure, and
// cached per code point.
import { confusableSkeleton } from "../identity/requester-key";

export type ScriptFinding =
  | { kind: "mixed-script"; scripts: string[]; reason: string }
  | { kind: "confusable"; reason: string }
  | { kind: "compatibility"; reason: string }
  | { kind: "not-normalized"; reason: string };

// Every script of Unicode 16/17 known to the runtime (names it does not know are skipped).
const SCRIPT_NAMES = (
  "Latin Cyrillic Greek Armenian Hebrew Arabic Han Hiragana Katakana Hangul Bopomofo Georgian Cherokee Coptic " +
  "Adlam Ahom Anatolian_Hieroglyphs Avestan Balinese Bamum Bassa_Vah Batak Bengali Bhaiksuki Brahmi Braille Buginese " +
  "Buhid Canadian_Aboriginal Carian Caucasian_Albanian Chakma Cham Chorasmian Cuneiform Cypriot Cypro_Minoan Deseret " +
  "Devanagari Dives_Akuru Dogra Duployan Egyptian_Hieroglyphs Elbasan Elymaic Ethiopic Glagolitic Gothic Grantha Gujarati " +
  "Gunjala_Gondi Gurmukhi Hanifi_Rohingya Hanunoo Hatran Imperial_Aramaic Inscriptional_Pahlavi Inscriptional_Parthian " +
  "Javanese Kaithi Kannada Kawi Kayah_Li Kharoshthi Khitan_Small_Script Khmer Khojki Khudawadi Lao Lepcha Limbu Linear_A " +
  "Linear_B Lisu Lycian Lydian Mahajani Makasar Malayalam Mandaic Manichaean Marchen Masaram_Gondi Medefaidrin Meetei_Mayek " +
  "Mende_Kikakui Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mongolian Mro Multani Myanmar Nabataean Nag_Mundari " +
  "Nandinagari New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Old_Hungarian Old_Italic Old_North_Arabian " +
  "Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic Old_Uyghur Oriya Osage Osmanya Pahawh_Hmong Palmyrene " +
  "Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi Rejang Runic Samaritan Saurashtra Sharada Shavian Siddham SignWriting " +
  "Sinhala Sogdian Sora_Sompeng Soyombo Sundanese Syloti_Nagri Syriac Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil " +
  "Tangsa Tangut Telugu Thaana Thai Tibetan Tifinagh Tirhuta Toto Ugaritic Vai Vithkuqi Wancho Warang_Citi Yezidi Yi " +
  "Zanabazar_Square Garay Gurung_Khema Kirat_Rai Ol_Onal Sunuwar Todhri Tulu_Tigalari"
).split(" ");

function propertyTest(prop: "sc" | "scx", name: string): RegExp | null {
  try {
    return new RegExp(`^\\p{${prop}=${name}}$`, "u");
  } catch {
    return null;
  }
}
const SCRIPTS = SCRIPT_NAMES.flatMap((name) => {
  const scx = propertyTest("scx", name);
  return scx && propertyTest("sc", name) ? [{ name, scx }] : [];
});
// A character's script by halving: each test is one character-class check over
// half of the remaining scripts, so about eight checks find any of them.
type ScriptNode = { name: string; sc: RegExp } | { left: RegExp; l: ScriptNode; r: ScriptNode };
function scriptTree(names: string[]): ScriptNode {
  if (names.length === 1) return { name: names[0]!, sc: propertyTest("sc", names[0]!)! };
  const half = names.length >> 1;
  const left = new RegExp(
    `^[${names
      .slice(0, half)
      .map((n) => `\\p{sc=${n}}`)
      .join("")}]$`,
    "u",
  );
  return { left, l: scriptTree(names.slice(0, half)), r: scriptTree(names.slice(half)) };
}
const SCRIPT_TREE = scriptTree(SCRIPTS.map((s) => s.name));

function scriptOf(ch: string): string | null {
  let node = SCRIPT_TREE;
  while (!("name" in node)) node = node.left.test(ch) ? node.l : node.r;
  return node.sc.test(ch) ? node.name : null;
}

// Writing systems that legitimately combine scripts (UTS #39 docs/api.md): Han with
// kana (Japanese), with Hangul (Korean) or with Bopomofo (Chinese).
const WRITING_SYSTEMS: Record<string, string[]> = {
  Han: ["Jpan", "Kore", "Hanb"],
  Hiragana: ["Jpan"],
  Katakana: ["Jpan"],
  Hangul: ["Kore"],
  Bopomofo: ["Hanb"],
};
const CJK = new Set(["Jpan", "Kore", "Hanb"]);

type CharScripts = { primary: string; set: Set<string> } | null;
const cache = new Map<number, CharScripts>();
/** One shared result per script, for the (usual) characters of a single script. */
const single = new Map<string, NonNullable<CharScripts>>();
const SCRIPT_NEUTRAL = /^[\p{scx=Common}\p{scx=Inherited}]$/u;
const LETTER_OR_DIGIT = /^[\p{L}\p{M}\p{Nd}]$/u;

/** The scripts a character may belong to, or null for punctuation, symbols and shared marks. */
function scriptsOf(ch: string): CharScripts {
  const code = ch.codePointAt(0)!;
  const hit = cache.get(code);
  if (hit !== undefined) return hit;
  let result: CharScripts = null;
  if (LETTER_OR_DIGIT.test(ch) && !SCRIPT_NEUTRAL.test(ch)) {
    const primary = scriptOf(ch);
    // Characters of the Common or Inherited script (ー) may belong to several; the
    // rest count as their own script (a few, like Arabic-Indic digits, have more).
    const names = primary ? [primary] : SCRIPTS.filter((s) => s.scx.test(ch)).map((s) => s.name);
    const set = new Set<string>();
    for (const name of names) {
      set.add(name);
      for (const w of WRITING_SYSTEMS[name] ?? []) set.add(w);
    }
    result =
      set.size === 0 ? null : primary ? (single.get(primary) ?? single.set(primary, { primary, set }).get(primary)!) : { primary: names[0]!, set };
  }
  if (cache.size < 150_000) cache.set(code, result);
  return result;
}

const intersect = (a: Set<string> | null, b: Set<string>): Set<string> => (a ? new Set([...a].filter((x) => b.has(x))) : new Set(b));

/** The scripts one word mixes (in order of appearance), or null when it does not. */
export function mixedScriptsOf(word: string): string[] | null {
  let resolved: Set<string> | null = null;
  let nonLatin: Set<string> | null = null;
  let hasLatin = false;
  const primaries: string[] = [];
  let last: Set<string> | null = null;
  for (const ch of word) {
    const c = ch.charCodeAt(0);
    if (c < 0x80 && !((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a)) continue;
    const s = scriptsOf(ch);
    if (!s || s.set === last) continue; // same script as the letter before: nothing changes
    last = s.set;
    if (!primaries.includes(s.primary)) primaries.push(s.primary);
    resolved = intersect(resolved, s.set);
    if (s.set.has("Latin")) hasLatin = true;
    else nonLatin = intersect(nonLatin, s.set);
  }
  if (!resolved || resolved.size > 0) return null;
  // Latin inside Japanese, Korean or Chinese text ("iPhoneケース") is ordinary.
  if (hasLatin && nonLatin !== null && [...(nonLatin as Set<string>)].some((x) => CJK.has(x))) return null;
  return primaries;
}

const COMPAT_LETTER = /[\p{L}\p{N}]/u;
const hex = (code: number) => code.toString(16).toUpperCase().padStart(4, "0");

/** What a value's look-alike checks found, and which characters (UTF-16 offset → why) to mark on screen. */
export type ScriptAnalysis = { findings: ScriptFinding[]; marks: Map<number, string> };

/** In a mixed word, the letters not of its main script (ties go to Latin): "p\u0430ypal" → the а. */
function oddLetters(word: string, at: number, marks: Map<number, string>) {
  const letters: Array<{ offset: number; code: number; script: string }> = [];
  const counts = new Map<string, number>();
  let offset = 0;
  for (const ch of word) {
    const sc = scriptsOf(ch);
    if (sc) {
      letters.push({ offset, code: ch.codePointAt(0)!, script: sc.primary });
      counts.set(sc.primary, (counts.get(sc.primary) ?? 0) + 1);
    }
    offset += ch.length;
  }
  const top = Math.max(...counts.values());
  const main = counts.get("Latin") === top ? "Latin" : [...counts].find(([, n]) => n === top)![0];
  for (const l of letters)
    if (l.script !== main) marks.set(at + l.offset, `U+${hex(l.code)}: a ${l.script.replace(/_/g, " ")} letter in a ${main} word`);
}

/** Code units of one value checked for look-alikes (the rest is checked when its page is shown). */
export const MAX_ANALYZED = 32_768;

export function scriptAnalysis(whole: string): ScriptAnalysis {
  const s = whole.length > MAX_ANALYZED ? whole.slice(0, MAX_ANALYZED) : whole;
  const findings: ScriptFinding[] = [];
  const marks = new Map<number, string>();
  const mixed = new Set<string>();
  for (const m of s.matchAll(/[^\s\p{Z}]+/gu)) {
    const word = m[0];
    if (/^[\x00-\x7f]*$/.test(word)) continue;
    const scripts = mixedScriptsOf(word);
    if (!scripts) continue;
    mixed.add(scripts.join(" + "));
    oddLetters(word, m.index, marks);
  }
  for (const m of mixed) findings.push({ kind: "mixed-script", scripts: m.split(" + "), reason: `mixes scripts in one word: ${m}` });
  // Non-ASCII text whose skeleton is plain ASCII: it reads as something it is not.
  const skeleton = confusableSkeleton(s);
  if (skeleton !== s && /^[\x20-\x7e]*[A-Za-z0-9][\x20-\x7e]*$/.test(skeleton)) {
    findings.push({ kind: "confusable", reason: "look-alike (confusable) characters that read as plain ASCII text" });
    eachChar(s, (ch, i) => {
      if (ch.charCodeAt(0) >= 0x80 && !marks.has(i)) marks.set(i, `U+${hex(ch.codePointAt(0)!)}: looks like plain ASCII`);
    });
  }
  if (s.normalize("NFKC") !== s) {
    let found = false;
    eachChar(s, (ch, i) => {
      if (ch.charCodeAt(0) < 0x80 || !COMPAT_LETTER.test(ch) || ch.normalize("NFKC") === ch) return;
      found = true;
      if (!marks.has(i)) marks.set(i, `U+${hex(ch.codePointAt(0)!)}: compatibility form of "${ch.normalize("NFKC")}"`);
    });
    if (found)
      findings.push({ kind: "compatibility", reason: "letters or digits in look-alike compatibility forms (e.g. full-width or mathematical)" });
  }
  if (s.normalize("NFC") !== s) findings.push({ kind: "not-normalized", reason: "characters composed differently from their usual form (not NFC)" });
  return { findings, marks };
}

function eachChar(s: string, fn: (ch: string, offset: number) => void) {
  let i = 0;
  for (const ch of s) {
    fn(ch, i);
    i += ch.length;
  }
}

export function scriptFindings(s: string): ScriptFinding[] {
  return scriptAnalysis(s).findings;
}
