// Service-written text for places that cannot style it as the page does
// (docs/security.md): Slack, the text part of an email, a push, the
// notification webhook. It is the page's own reveal() spelled in characters:
// escapes stay as they are (⟨U+202E⟩), and a run of look-alike letters, which
// the page highlights, is put between ⟨ and ⟩. A value's own ⟨ and ⟩ are
// always shown as escapes (⟨U+27E8⟩), so neither an escape nor a mark can be
// faked. Pure.
import { flagReason, reveal, type RevealMode, type Segment } from "./reveal";
import type { WarningItem, Warnings } from "./scan-findings";

/** The heading of the page's warning (components/display-warning.tsx), the same on every channel. */
export const DISPLAY_WARNING_TITLE = "Check carefully: this request contains hidden, direction-changing or look-alike characters";

/** How a channel without styling shows what the page highlights. */
export const DISPLAY_WARNING_LEGEND =
  "Hidden characters are shown as escapes such as ⟨U+202E⟩, look-alike letters between ⟨ and ⟩. What runs is the text with these characters, not what it seems to say.";

export function segmentsAsText(segments: readonly Segment[]): string {
  let out = "";
  for (const s of segments) out += "t" in s ? s.t : "e" in s ? s.e : `⟨${s.m}⟩`;
  return out;
}

/** A value as text, and the page's per-value flag (null for an ordinary value). */
export type PlainValue = { text: string; flag: string | null };

export function plainValue(s: string, mode: RevealMode = {}): PlainValue {
  const r = reveal(s, mode);
  return { text: segmentsAsText(r.segments), flag: flagReason(r.findings) };
}

/**
 * At most `max` characters, "…" at the end when cut, never cut inside an
 * escape or a mark (which would read as something else) nor between the two
 * halves of a surrogate pair.
 */
export function clipText(s: string, max: number): string {
  if (s.length <= max) return s;
  let cut = s.slice(0, Math.max(0, max - 1));
  const open = cut.lastIndexOf("⟨");
  if (open > cut.lastIndexOf("⟩")) cut = cut.slice(0, open);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/**
 * The warning for a channel that never carries argument values (email,
 * push, the notification webhook): a finding in the arguments is said to be
 * there, without the key path (keys are part of the arguments).
 */
export function withoutArgumentPaths(w: Warnings): Warnings {
  const seen = new Set<string>();
  const items: WarningItem[] = [];
  for (const item of w.items) {
    const where = /^(key )?arguments\b/.test(item.where) ? "the arguments" : item.where;
    const key = `${where}\n${item.what}`;
    if (seen.has(key)) continue;
    seen.add(key);
    items.push({ where, what: item.what });
  }
  // The "and N more" count stays what it was; merged items are not findings left out.
  return { items, total: w.total - (w.items.length - items.length), partial: w.partial };
}

/** The warning as lines of plain text (nothing when there is no finding). */
export function warningLines(w: Warnings): string[] {
  if (w.total === 0) return [];
  const more = w.total - w.items.length;
  return [
    `⚠ ${DISPLAY_WARNING_TITLE}.`,
    DISPLAY_WARNING_LEGEND,
    ...w.items.map((i) => `- ${i.where}: ${i.what}`),
    ...(more > 0 ? [`- and ${more.toLocaleString("en-US")} more`] : []),
  ];
}
