// A request as a page that lists many of them shows it (docs/security.md,
// bounded rendering on every page): the run page, and the queue's rows. Each
// service-written field is revealed and flagged like on the request's page
// (lib/display/reveal), but only its start, within a budget; the arguments
// are a small preview of the first few thousand characters of their stored
// text (lib/display/json-prefix), never the whole. What a listed request
// costs a page (its share of the HTML and of the server's time) is fixed,
// whatever the size of its arguments or fields; the request's own page shows
// it all.
//
// The budget counts what a value adds to the page: its characters, and for
// each escape or look-alike mark also its title and markup, for each flag
// (a sign whose tooltip is the reason) its reason. Hidden and
// direction-changing characters are looked for in the whole field and in all
// the text read (one regular-expression pass); look-alike letters only in
// what is shown.
import { parseJsonPrefix, type PrefixNode } from "./json-prefix";
import { findingsOf, flagReason, hasHiddenCharacters, reveal, segmentText, type Finding, type RevealMode, type Segment } from "./reveal";

/** What a listed value shows: its start, revealed; `cut` when some of it is not shown. */
export type ClippedView = { segments: Segment[]; flag: string | null; cut: boolean };

export type Clip = { codePoints: number; weight: number };

/** What one escape or mark adds to a page beyond its text and title: its element, in the HTML and in React's data for the page. */
const MARKUP_WEIGHT = 120;
/** A listed value's flag (a sign with its reason as tooltip): its element, beyond its reason. */
const FLAG_WEIGHT = 100;

const segmentWeight = (s: Segment) => ("t" in s ? s.t.length : segmentText(s).length + s.title.length + MARKUP_WEIGHT);
export const flagWeight = (flag: string | null) => (flag ? flag.length + FLAG_WEIGHT : 0);
export const viewWeight = (v: { segments: readonly Segment[]; flag: string | null }) =>
  v.segments.reduce((n, s) => n + segmentWeight(s), 0) + flagWeight(v.flag);

/** At most `n` code units of `t`, never half a surrogate pair. */
const cutUnits = (t: string, n: number) => {
  const out = t.slice(0, Math.max(0, n));
  return /[\uD800-\uDBFF]$/.test(out) ? out.slice(0, -1) : out;
};

/** At most `n` code units of a plain run, never ending inside a JSON escape (`\n`, `\"`, `\u0001`). */
function cutPlain(t: string, n: number): string {
  const out = cutUnits(t, n);
  const tail = /(\\+)(u[0-9a-fA-F]{0,3})?$/.exec(out);
  // An odd run of backslashes ends in an escape the cut split: back to before its backslash.
  // (An even run is escaped backslashes, and what follows them is text.)
  if (tail && tail[1]!.length % 2 === 1) return out.slice(0, tail.index + tail[1]!.length - 1);
  return out;
}

/** Segments within `weight`; a run cut short keeps whole escapes only (⟨U+200B⟩ never splits). */
export function clipSegments(segments: readonly Segment[], weight: number): { segments: Segment[]; cut: boolean } {
  const out: Segment[] = [];
  let left = weight;
  for (const s of segments) {
    const w = segmentWeight(s);
    if (w <= left) {
      out.push(s);
      left -= w;
      continue;
    }
    if ("t" in s) {
      const t = cutPlain(s.t, left);
      if (t) out.push({ t });
    } else {
      const room = left - s.title.length - MARKUP_WEIGHT;
      if ("e" in s) {
        const e = s.e.slice(0, Math.max(0, s.e.lastIndexOf("⟩", room - 1) + 1));
        if (e) out.push({ e, title: s.title });
      } else if (room > 0) {
        const m = cutUnits(s.m, room);
        if (m) out.push({ m, title: s.title });
      }
    }
    return { segments: out, cut: true };
  }
  return { segments: out, cut: false };
}

const codePointsOf = (s: string, max: number): { shown: string; cut: boolean } => {
  if (s.length <= max) return { shown: s, cut: false };
  const cps = Array.from(s);
  return cps.length <= max ? { shown: s, cut: false } : { shown: cps.slice(0, max).join(""), cut: true };
};

/**
 * The start of `s` within `clip`, revealed. The flag says what the shown part
 * holds, and any hidden or direction-changing character of the whole value.
 * `extraCut`: the value itself is known to go on (a string the stored text cuts).
 */
export function clippedTextView(s: string, clip: Clip, mode: RevealMode = {}, extraCut = false): ClippedView {
  const { shown, cut } = codePointsOf(s, clip.codePoints);
  const more = cut || extraCut;
  const r = reveal(shown, mode.json ? { ...mode, closeQuote: mode.closeQuote !== false && !more } : mode);
  // Hidden characters further on too (one regex pass over the rest); look-alikes only in what is shown.
  const findings: Finding[] = cut ? [...r.findings, ...findingsOf(s.slice(shown.length), mode, false)] : r.findings;
  // A listed value's flag names its first finding and counts the others (the request's page lists them all).
  const flag = flagReason(findings, 1);
  // The flag comes on top: it is short.
  const clipped = clipSegments(r.segments, clip.weight);
  return { segments: clipped.segments, flag, cut: more || clipped.cut };
}

// ---------------------------------------------------------------- arguments

export type PreviewKey = ClippedView;
export type PreviewLeaf = {
  k: "leaf";
  key: PreviewKey | number | null;
  type: "string" | "number" | "boolean" | "null";
  segments: Segment[];
  flag: string | null;
  redacted: boolean;
  /** Some of the value is not shown. */
  cut: boolean;
};
export type PreviewBranch = {
  k: "branch";
  key: PreviewKey | number | null;
  type: "array" | "object";
  /** Entries in the container, when known (null: the text read ends inside it). */
  size: number | null;
  children: PreviewNode[];
  /** Entries not shown: some are (size unknown), or none. */
  more: boolean;
};
export type PreviewNode = PreviewLeaf | PreviewBranch;

export type PreviewLimits = { nodes: number; weight: number; children: number; stringHead: number; keyHead: number; depth: number };

export const PREVIEW_LIMITS: PreviewLimits = { nodes: 10, weight: 650, children: 6, stringHead: 80, keyHead: 40, depth: 2 };
/** Characters of a request's stored arguments a listing reads: enough for any preview within PREVIEW_LIMITS. */
export const ARGS_PREVIEW_CHARS = 4_096;

const sizeOf = (n: Extract<PrefixNode, { t: "array" | "object" }>) => (n.t === "array" ? n.items.length : n.entries.length);
const childrenOf = (n: Extract<PrefixNode, { t: "array" | "object" }>): Array<[string | number, PrefixNode]> =>
  n.t === "array" ? n.items.map((v, i) => [i, v]) : n.entries;

function previewKey(key: string, head: number, budget: { weight: number }): PreviewKey {
  const plain = /^[\p{L}\p{N}_$.-]+$/u.test(key);
  return clippedTextView(key, { codePoints: head, weight: Math.max(0, budget.weight) }, { json: !plain, closeQuote: true });
}

function previewLeaf(
  key: PreviewLeaf["key"],
  node: Exclude<PrefixNode, { t: "array" | "object" }>,
  limits: PreviewLimits,
  budget: { weight: number },
) {
  if (node.t !== "string") {
    const text = node.t === "null" ? "null" : String(node.v);
    return { k: "leaf", key, type: node.t, segments: [{ t: text }], flag: null, redacted: false, cut: false } satisfies PreviewLeaf;
  }
  const v = clippedTextView(node.v, { codePoints: limits.stringHead, weight: Math.max(0, budget.weight) }, { json: true }, node.cut);
  return {
    k: "leaf",
    key,
    type: "string",
    segments: v.segments,
    flag: v.flag,
    redacted: node.v.startsWith("[redacted:"),
    cut: v.cut,
  } satisfies PreviewLeaf;
}

export type ArgumentsPreview = {
  root: PreviewBranch;
  /** Some of the arguments is not shown (or not read). */
  cut: boolean;
  /** What the flags in the preview, and any hidden character in the text read, say. */
  flagged: boolean;
};

/**
 * A preview of stored arguments from the start of their JSON text (`head`;
 * `complete`: it is the whole text): breadth first, so the top level shows
 * before any nested value, within `limits`.
 */
export function argumentsPreview(head: string, complete: boolean, limits: PreviewLimits = PREVIEW_LIMITS): ArgumentsPreview {
  const parsed = parseJsonPrefix(head, complete);
  const root: PreviewBranch = { k: "branch", key: null, type: "object", size: 0, children: [], more: false };
  let flagged = hasHiddenCharacters(head, { json: true });
  let cut = !complete;
  if (!parsed || (parsed.t !== "array" && parsed.t !== "object"))
    return { root: { ...root, more: !complete, size: complete ? 0 : null }, cut, flagged };
  root.type = parsed.t;
  root.size = parsed.cut ? null : sizeOf(parsed);
  const budget = { nodes: limits.nodes, weight: limits.weight };
  type Job = { source: Extract<PrefixNode, { t: "array" | "object" }>; into: PreviewBranch; depth: number };
  const queue: Job[] = [{ source: parsed, into: root, depth: 0 }];
  for (let q = 0; q < queue.length; q++) {
    const { source, into, depth } = queue[q]!;
    const entries = childrenOf(source);
    if (depth <= limits.depth) {
      for (const [name, value] of entries.slice(0, limits.children)) {
        if (budget.nodes <= 0 || budget.weight <= 0) break;
        budget.nodes -= 1;
        const key = typeof name === "number" ? name : previewKey(name, limits.keyHead, budget);
        if (typeof key !== "number") budget.weight -= viewWeight(key) + 20;
        if (value.t === "array" || value.t === "object") {
          const branch: PreviewBranch = { k: "branch", key, type: value.t, size: value.cut ? null : sizeOf(value), children: [], more: false };
          into.children.push(branch);
          queue.push({ source: value, into: branch, depth: depth + 1 });
          budget.weight -= 40;
        } else {
          const leaf = previewLeaf(key, value, limits, budget);
          budget.weight -= viewWeight(leaf) + 20;
          into.children.push(leaf);
        }
      }
    }
    into.more = source.cut || into.children.length < entries.length;
  }
  const walk = (n: PreviewNode): void => {
    if (n.key !== null && typeof n.key !== "number") {
      if (n.key.cut) cut = true;
      if (n.key.flag) flagged = true;
    }
    if (n.k === "leaf") {
      if (n.cut) cut = true;
      if (n.flag) flagged = true;
    } else {
      if (n.more) cut = true;
      n.children.forEach(walk);
    }
  };
  walk(root);
  return { root, cut, flagged };
}

// ---------------------------------------------------------------- a listed request

/** The service-written fields a listing shows, as on the request's page (null: not given). */
export type ListedText = {
  tool: string;
  environment: string | null;
  runId: string;
  callId: string;
  requestedBy: string | null;
  summary: string | null;
};

/** How much of each field a listing shows (the schema's own limits are 200–2,000 characters). */
export const FIELD_CLIPS: { [K in keyof ListedText]: Clip } = {
  tool: { codePoints: 200, weight: 400 },
  environment: { codePoints: 100, weight: 400 },
  runId: { codePoints: 120, weight: 400 },
  callId: { codePoints: 120, weight: 400 },
  requestedBy: { codePoints: 120, weight: 400 },
  summary: { codePoints: 200, weight: 450 },
};

const FIELD_LABELS: Array<[keyof ListedText, string]> = [
  ["tool", "tool"],
  ["environment", "environment"],
  ["runId", "run"],
  ["callId", "call"],
  ["requestedBy", "requested by"],
  ["summary", "summary"],
];

export type ListedFields = { [K in keyof ListedText]: ClippedView | null };

export function listedFields(text: ListedText): ListedFields {
  const fields = {} as ListedFields;
  for (const [name] of FIELD_LABELS) {
    const value = text[name];
    fields[name] = value === null ? null : clippedTextView(value, FIELD_CLIPS[name], name === "summary" ? { multiline: true } : {});
  }
  return fields;
}

export type ListedRequestDisplay = {
  fields: ListedFields;
  args: ArgumentsPreview;
  /** Where hidden, direction-changing or look-alike characters were found ("summary", "arguments"), in page order. */
  flagged: string[];
};

/**
 * A request as a listing shows it: its fields, and a preview of its
 * arguments from the start of their stored text (`head`; `complete`: the whole text).
 */
export function listedRequestDisplay(text: ListedText, args: { head: string; complete: boolean }): ListedRequestDisplay {
  const fields = listedFields(text);
  const preview = argumentsPreview(args.head, args.complete);
  const flagged = FIELD_LABELS.filter(([name]) => fields[name]?.flag).map(([, label]) => label);
  if (preview.flagged) flagged.push("arguments");
  return { fields, args: preview, flagged };
}

/** Requests listed per slice of listedRequestDisplays() between two turns of the event loop. */
const SLICE = 10;

/**
 * listedRequestDisplay() for each of many requests (a run page's hundred),
 * giving the event loop a turn after every few, so that building one such
 * page never holds the server for long (other requests, the health check,
 * are answered in between).
 */
export async function listedRequestDisplays(
  items: ReadonlyArray<{ text: ListedText; args: { head: string; complete: boolean } }>,
): Promise<ListedRequestDisplay[]> {
  const out: ListedRequestDisplay[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    out.push(listedRequestDisplay(items[i]!.text, items[i]!.args));
  }
  return out;
}
