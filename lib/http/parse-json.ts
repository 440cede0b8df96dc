// Bytes → JSON value, strictly: the body must be valid UTF-8 (no silent
// replacement characters), valid JSON with a bounded nesting depth, and
// I-JSON (RFC 7493, CONTRACT §19): nothing parsing would change or drop.
import { jsonDepthExceeds, MAX_JSON_DEPTH } from "../approvals/schemas";
import { AppError } from "../errors";
import { findIJsonViolation } from "./i-json";

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
