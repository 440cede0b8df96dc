// What the decision page shows about revisions (docs/revisions.md): the
// proposed changes as rows (path, value before, value after), and the paths
// a reviewer may edit. Values are shown values only: a patch never touches a
// hidden one, and its new values passed the redaction rules.
import { applyJsonPatch, formatJsonPointer, getJsonPointer, parseJsonPointer, type JsonPatch } from "@countersign/client";
import { textView, type TextView } from "../display/request-display";
import { findingsOf } from "../display/reveal";
import type { HiddenEntry } from "./hidden-values";
import { readablePath } from "./readable-path";

export type ChangeRow = { op: "add" | "remove" | "replace"; path: TextView; before: TextView | null; after: TextView | null };

const VALUE_CHARS = 400;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function shown(value: unknown): TextView {
  const text = JSON.stringify(value) ?? "null";
  return textView(text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS)}…` : text);
}

/** One row per operation, each "before" read from the arguments as the operations before it left them. */
export function describePatch(view: unknown, patch: JsonPatch): ChangeRow[] {
  const rows: ChangeRow[] = [];
  let doc = view;
  for (const operation of patch) {
    const before = getJsonPointer(doc, operation.path);
    // Adding into an array inserts: nothing was there before.
    const segments = parseJsonPointer(operation.path);
    const parent = segments.length ? getJsonPointer(doc, formatJsonPointer(segments.slice(0, -1))) : null;
    const inserts = operation.op === "add" && parent?.found === true && Array.isArray(parent.value);
    rows.push({
      op: operation.op,
      path: textView(readablePath(operation.path)),
      before: before.found && !inserts ? shown(before.value) : null,
      after: operation.op === "remove" ? null : shown(operation.value),
    });
    try {
      doc = applyJsonPatch(doc, [operation]);
    } catch {
      break;
    }
  }
  return rows;
}

/**
 * JSON Pointers a reviewer may name in a change: shown values (to replace or
 * remove) and shown objects and arrays (to add to), in document order, at
 * most `limit`. Nothing at or under a hidden key or value.
 */
export function editablePaths(view: unknown, hidden: readonly HiddenEntry[], limit = 500): string[] {
  const blocked = new Set(hidden.map(([pointer]) => pointer));
  const out: string[] = [];
  const stack: Array<{ node: unknown; path: Array<string | number> }> = [{ node: view, path: [] }];
  while (stack.length && out.length < limit) {
    const { node, path } = stack.pop()!;
    const pointer = formatJsonPointer(path);
    if (blocked.has(pointer)) continue;
    // A path is offered as text to pick: one with invisible or direction-changing characters is left out (it can still be typed).
    if (path.length && findingsOf(pointer).length === 0) out.push(pointer);
    // At most `limit` children of any one container: nothing past them could be listed anyway.
    if (Array.isArray(node)) for (let i = Math.min(node.length, limit) - 1; i >= 0; i--) stack.push({ node: node[i], path: [...path, i] });
    else if (isObject(node)) {
      const keys = Object.keys(node).slice(0, limit);
      for (let i = keys.length - 1; i >= 0; i--) stack.push({ node: node[keys[i]!], path: [...path, keys[i]!] });
    }
  }
  return out;
}
