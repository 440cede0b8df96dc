// Bytes → JSON value, strictly: the body must be valid UTF-8 (no silent
// replacement characters), valid JSON with a bounded nesting depth, and
// I-JSON (RFC 7493, docs/security.md): nothing parsing would change or drop.
import { AppError } from "../errors";
import { findIJsonViolation } from "./i-json";

/** Deepest nesting accepted in a request body; deeper input is refused before any work. */
export const MAX_JSON_DEPTH = 64;

/** Iterative depth check, safe on hostile input (no recursion). */
export function jsonDepthExceeds(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

export function parseJsonBody(body: Uint8Array): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new AppError("invalid-request", "body is not valid UTF-8", {
      issues: [{ path: "", message: "body must be UTF-8 encoded JSON" }],
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError("invalid-request", "body is not JSON", { issues: [{ path: "", message: "body must be JSON" }] });
  }
  if (jsonDepthExceeds(value)) {
    throw new AppError("invalid-request", "nested too deeply", {
      issues: [{ path: "", message: `JSON must not nest deeper than ${MAX_JSON_DEPTH} levels` }],
    });
  }
  const violation = findIJsonViolation(text);
  if (violation) throw new AppError("invalid-request", "body is not I-JSON", { issues: [violation] });
  return value;
}
