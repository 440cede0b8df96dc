// A place in the arguments as a reviewer reads it: the keys and positions of
// a JSON Pointer (RFC 6901, what the patch and the agent use) joined with
// " › ", so "/rows/0/note" reads "rows › 0 › note". The pointer stays what is
// sent; this is only how it is shown.
import { parseJsonPointer } from "@countersign/client";

export const WHOLE_ARGUMENTS = "(all arguments)";

export function readablePath(pointer: string): string {
  if (pointer === "") return WHOLE_ARGUMENTS;
  let segments: string[];
  try {
    segments = parseJsonPointer(pointer).map(String);
  } catch {
    return pointer; // not a pointer: shown as typed
  }
  // "-" is the end of an array (add appends).
  return segments.map((s, i) => (s === "" ? '""' : s === "-" && i === segments.length - 1 ? "(end)" : s)).join(" › ");
}
