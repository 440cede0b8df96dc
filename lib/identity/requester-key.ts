// Who is "the same person" for docs/architecture.md as amended by docs/security.md: a requester
// may not review their own request under any spelling of their email. Both
// sides (the request's `requested_by` and a reviewer's emails) are reduced to
// one key here, and only the keys are compared, in TS and in the queue's SQL.
//
//   1. Unicode NFKC with case folding, default-ignorable characters removed
//      (zero-width joiners and the like), then trimmed;
//   2. a display name (`Ana <ana@x>`) and a `mailto:` prefix removed;
//   3. the domain's trailing dot(s) and the local part's `+tag` removed;
//   4. the confusable skeleton of Unicode TS #39: NFD, each character replaced
//      by its prototype from confusables.txt (the `unhomoglyph` package carries
//      that table), NFD again. Cyrillic `а` and Latin `a` get the same key.
//      Capitals that look like a Latin capital are taken as it before case
//      folding (see requesterKey()).
//
// The key is not meant to be read; it is only ever compared.
import { domainToUnicode } from "node:url";
import unhomoglyph from "unhomoglyph";

const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
// Dots that IDNA reads as a label separator (NFKC already maps the full-width one).
const IDEOGRAPHIC_DOTS = /[\u3002\uff61]/g;
const MAILTO = /^mailto:/i;
// `Display Name <address>` or `<address>`: the last bracketed part, at the end.
const BRACKETED = /<([^<>]*)>$/;

/**
 * NFKC case folding (NFKC_Casefold, near enough for comparison): compatibility
 * forms and case folded together, ignorable characters dropped. lower(upper(lower()))
 * folds `ß` with `ss` and `ſ` with `s`, and keeps "equal when lower-cased" equal.
 */
export function foldCase(raw: string): string {
  const lowered = raw.normalize("NFKC").toLowerCase().toUpperCase().toLowerCase();
  return lowered.replace(DEFAULT_IGNORABLE, "").normalize("NFKC");
}

// Local part: no spaces, controls, or characters that end an address in a header.
const LOCAL_PART = /^[^\s\p{C}@<>()[\]\\,;:"]{1,64}$/u;
// Domain label: letters, marks, digits and inner hyphens, any script.
const DOMAIN_LABEL = /^[\p{L}\p{M}\p{N}](?:[\p{L}\p{M}\p{N}-]{0,61}[\p{L}\p{M}\p{N}])?$/u;

/**
 * Steps 2–3 on NFKC text, case kept (case folding first would lose what an
 * upper-case letter looks like: Greek `Α` folds to `α`, no longer like `a`).
 * Returns the address, or null when it is not one.
 */
function parseAddress(nfkc: string): string | null {
  let s = nfkc.replace(DEFAULT_IGNORABLE, "").trim();
  // At most a few rounds: `mailto:Ana <ana@x>` and `Ana <mailto:ana@x>` both end as `ana@x`.
  for (let round = 0; round < 3; round++) {
    const before = s;
    const bracketed = BRACKETED.exec(s);
    if (bracketed) s = bracketed[1]!.trim();
    s = s.replace(MAILTO, "").trim();
    if (s === before) break;
  }
  const at = s.lastIndexOf("@");
  if (at <= 0) return null;
  const local = s.slice(0, at).split("+")[0]!;
  let domain = s
    .slice(at + 1)
    .replace(IDEOGRAPHIC_DOTS, ".")
    .replace(/\.+$/, "");
  // `xn--` labels and their Unicode spelling are one domain.
  if (/xn--/i.test(domain)) domain = domainToUnicode(domain.toLowerCase()) || domain;
  const folded = foldCase(`${local}@${domain}`);
  const foldedAt = folded.lastIndexOf("@");
  const labels = folded.slice(foldedAt + 1).split(".");
  if (!LOCAL_PART.test(folded.slice(0, foldedAt)) || folded.length - foldedAt > 254) return null;
  if (labels.length < 2 || !labels.every((l) => DOMAIN_LABEL.test(l))) return null;
  return `${local}@${domain}`;
}

/**
 * The normalized email address `raw` names (steps 1–3 above), or null when it
 * is not an email address after normalization.
 */
export function normalizeEmailAddress(raw: string): string | null {
  const address = parseAddress(raw.normalize("NFKC"));
  return address === null ? null : foldCase(address);
}

/** The confusable skeleton of Unicode TS #39 (section 4). */
export function confusableSkeleton(s: string): string {
  return unhomoglyph(s.normalize("NFD")).normalize("NFD");
}

/**
 * Capitals that look like a Latin capital become it before case folding, which
 * would otherwise lose the likeness (Greek `Ν` folds to `ν`, which looks like
 * `v`, not `n`). Only single Latin capitals: `I` stays `I` and folds to `i`.
 */
function latinizeCapitals(s: string): string {
  return [...s]
    .map((c) => {
      if (c === c.toLowerCase()) return c;
      const prototype = confusableSkeleton(c);
      return /^[A-Z]$/.test(prototype) ? prototype : c;
    })
    .join("");
}

/**
 * THE identity key: equal keys mean "the same person" for self-review. An
 * email address is keyed by its normalized form; anything else (a linked
 * identity's subject, a requester stored before addresses were required) by
 * its trimmed text. So `ΑΝΑ` (Greek capitals), `аna` (Cyrillic а), `ａｎａ`
 * and `ANA` all key as `ana`. The last fold makes prototypes that are
 * capitals (`0` is `O`) compare like their lower case. Total, so every
 * stored requester has a key.
 */
export function requesterKey(raw: string): string {
  const nfkc = raw.normalize("NFKC");
  const name = parseAddress(nfkc) ?? nfkc.replace(DEFAULT_IGNORABLE, "").trim();
  return foldCase(confusableSkeleton(foldCase(latinizeCapitals(name))));
}

/** The keys a person is known by: their email, and each linked identity's email and subject. */
export function personKeys(person: { email: string; identities: ReadonlyArray<{ email: string | null; subject: string }> }): string[] {
  const names = [person.email, ...person.identities.flatMap((i) => (i.email ? [i.email, i.subject] : [i.subject]))];
  return [...new Set(names.map(requesterKey))];
}
