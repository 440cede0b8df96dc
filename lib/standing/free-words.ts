// What a standing approval leaves free, in words (docs/standing-approvals.md):
// the shape rule, the lists given a maximum length, and the values no pin
// holds. One wording for the proposal form (live, as pins are added) and for
// the pins' words on the list and `rule list`. Pure and import-free: the
// form runs it in the browser.

/** The values a pin could leave free, from a request's shape (lib/standing/shape.ts outlineOf). */
export type Outline = {
  /** `path` is the JSON Pointer (an open list's items under "*"); `shown` the same with invisible characters escaped. */
  leaves: Array<{ path: string; shown: string; kind: "string" | "number" | "boolean" }>;
  /** More values than the outline lists. */
  more: boolean;
};

/** What the words need of a pin: its path (and how it is shown, if escaped), its test, and a list's maximum length. */
export type PinOutline = { path: string; shown?: string; op: string; value?: unknown };

/** How many free values the words name. */
export const FREE_NAMED = 20;

const KIND_WORDS = { string: "any text", number: "any number", boolean: "true or false" } as const;

/**
 * A value's path and shown path with the index into an open list spelled
 * "*" (item 3's sku of /items reads /items, "*", sku), as the outline of a
 * stored shape spells them. Escaping never adds a "/", so both split into
 * the same segments.
 */
function underOpenLists(leaf: Outline["leaves"][number], open: readonly string[]): { path: string; shown: string } {
  const path = leaf.path.split("/");
  const shown = leaf.shown.split("/");
  for (const list of open) {
    const k = list.split("/").length;
    if (path.length <= k || shown.length !== path.length || path.slice(0, k).join("/") !== list) continue;
    if (!/^(0|[1-9][0-9]*)$/.test(path[k]!)) continue;
    path[k] = shown[k] = "*";
  }
  return { path: path.join("/"), shown: shown.join("/") };
}

/**
 * "Everything else must be exactly as in this request: the same keys, the
 * same types, lists of the same length (/items: at most 5 items, each with
 * the keys and types of its items there). Free: /note (any text), /qty (any
 * number)."
 */
export function freeWords(outline: Outline, pins: readonly PinOutline[], source = "this request"): string {
  const maxes = pins.filter((p) => p.op === "max_length");
  const open = maxes.map((p) => p.path);
  const held = new Set(pins.filter((p) => p.op !== "max_length").map((p) => p.path));
  const seen = new Set<string>();
  const free: string[] = [];
  for (const leaf of outline.leaves) {
    const { path, shown } = underOpenLists(leaf, open);
    if (held.has(path) || seen.has(path)) continue;
    seen.add(path);
    free.push(`${shown} (${KIND_WORDS[leaf.kind]})`);
  }
  const lists = maxes.length
    ? ` (${maxes.map((p) => `${p.shown ?? p.path}: at most ${typeof p.value === "number" ? p.value : "?"} items, each with the keys and types of its items there`).join("; ")})`
    : "";
  const named = free.slice(0, FREE_NAMED);
  const more = free.length > FREE_NAMED || outline.more;
  const freeText = named.length
    ? `Free: ${named.join(", ")}${more ? ", and more values, each within its type" : ""}.`
    : more
      ? "Free: more values than can be listed here, each within its type."
      : "Nothing else is free.";
  return `Everything else must be exactly as in ${source}: the same keys, the same types, lists of the same length${lists}. ${freeText}`;
}
