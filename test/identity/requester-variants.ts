// fast-check generators of the spellings of one email address that must
// name the same requester (docs/security.md): normalization forms, full-width letters,
// Cyrillic and Greek confusables, display names, mailto:, trailing dots,
// +tags, mixed case and surrounding spaces (issue 11, vulnerability 2).
import fc from "fast-check";

// Lookalikes that Unicode's confusables.txt maps to the Latin letter (TS #39).
const CONFUSABLES: Record<string, string[]> = {
  a: ["\u0430", "\u0251", "\u03b1"], // Cyrillic а, Latin alpha ɑ, Greek α
  c: ["\u0441"],
  e: ["\u0435"],
  o: ["\u043e", "\u03bf", "\u0585"], // Cyrillic о, Greek ο, Armenian օ
  p: ["\u0440", "\u03c1"], // Cyrillic р, Greek ρ
  x: ["\u0445"],
  y: ["\u0443"],
  i: ["\u0456", "\u0131"], // Cyrillic і, dotless ı
  j: ["\u0458"],
  s: ["\u0455"],
  h: ["\u04bb"],
  d: ["\u0501"],
  n: ["\u0578"],
  u: ["\u057d"],
  g: ["\u0261"],
  v: ["\u03bd"],
  w: ["\u0461"],
  m: ["rn"],
  A: ["\u0391", "\u0410"], // Greek and Cyrillic capital A
  B: ["\u0392", "\u0412"],
  E: ["\u0395", "\u0415"],
  O: ["\u039f", "\u041e"],
};

const fullWidth = (ch: string) => (ch >= "!" && ch <= "~" ? String.fromCharCode(ch.charCodeAt(0) + 0xfee0) : ch);

// Arbitraries are built once and reused: building them (a regex parsed into
// generators, a oneof per character) cost more than generating from them.
const spellings = new Map<string, fc.Arbitrary<string>>();

/** One character of the address, as case, full width or a confusable may spell it. */
function spellChar(ch: string): fc.Arbitrary<string> {
  const made = spellings.get(ch);
  if (made) return made;
  const options: Array<fc.Arbitrary<string>> = [
    fc.constant(ch),
    fc.constant(ch.toUpperCase()),
    fc.constant(fullWidth(ch)),
    fc.constant(fullWidth(ch.toUpperCase())),
  ];
  for (const c of [...(CONFUSABLES[ch] ?? []), ...(CONFUSABLES[ch.toUpperCase()] ?? [])]) options.push(fc.constant(c));
  const spelled = fc.oneof(...options);
  spellings.set(ch, spelled);
  return spelled;
}

const spell = (text: string) => fc.tuple(...[...text].map(spellChar)).map((cs) => cs.join(""));
const spaces = fc.constantFrom("", " ", "  ", "\u00a0", "\u3000");
const plusTag = fc.option(fc.stringMatching(/^[a-z0-9.-]{0,8}$/), { nil: undefined });
const mailto = fc.option(fc.constantFrom("mailto:", "MAILTO:", "MailTo:"), { nil: undefined });
const display = fc.option(fc.constantFrom("Ana", '"Ana Example"', "Review Bot", '"Smith, Ana"', ""), { nil: undefined });
const form = fc.constantFrom("NFC", "NFD", "NFKC", "NFKD", "none");

/** Spellings of `email` (a plain lower-case address) that must all be the same requester. */
export function requesterVariant(email: string): fc.Arbitrary<string> {
  const at = email.lastIndexOf("@");
  const [local, domain] = [email.slice(0, at), email.slice(at + 1)];
  const address = fc
    .record({
      local: spell(local),
      tag: plusTag,
      domain: spell(domain),
      trailingDot: fc.boolean(),
      mailto,
    })
    .map((p) => `${p.mailto ?? ""}${p.local}${p.tag === undefined ? "" : `+${p.tag}`}@${p.domain}${p.trailingDot ? "." : ""}`);
  return fc.record({ address, display, before: spaces, after: spaces, form }).map((v) => {
    const named = v.display === undefined ? v.address : `${v.display} <${v.address}>`;
    const spelled = `${v.before}${named}${v.after}`;
    return v.form === "none" ? spelled : spelled.normalize(v.form);
  });
}
