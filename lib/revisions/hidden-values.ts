// Keyed digests of what redaction hides (docs/revisions.md). A revision must
// prove that the values a reviewer could not see did not change, without
// Countersign keeping them: at ingest each hidden value and each hidden key
// is kept as HMAC-SHA256 under a key derived from ENCRYPTION_KEY, bound to
// the service (equal secrets of two services do not digest alike), at the
// JSON Pointer where the redacted copy shows it.
import "server-only";
import { createHmac, hkdfSync } from "node:crypto";
import canonicalize from "canonicalize";
import { env } from "../env";
import type { Redactor } from "../redaction";

/** [pointer in the redacted copy, "k" (a key) or "v" (a value), keyed digest]. */
export type HiddenEntry = [pointer: string, kind: "k" | "v", digest: string];

let cached: { from: string; key: Buffer } | undefined;

function digestKey(): Buffer {
  const from = env().ENCRYPTION_KEY;
  if (cached?.from !== from) {
    const derived = hkdfSync("sha256", Buffer.from(from, "base64"), Buffer.alloc(0), "countersign: keyed digests of redacted values v1", 32);
    cached = { from, key: Buffer.from(derived) };
  }
  return cached.key;
}

export function keyedDigest(serviceId: string, kind: "k" | "v", raw: unknown): string {
  return createHmac("sha256", digestKey())
    .update(`${serviceId}\n${kind}\n`)
    .update(canonicalize(raw) ?? "null")
    .digest("base64url");
}

/** The redacted copy of a request's arguments and the keyed digests of what it hides. */
export function redactArguments(redactor: Redactor, serviceId: string, args: unknown): { view: unknown; hidden: HiddenEntry[] } {
  const hidden: HiddenEntry[] = [];
  const { value } = redactor.redactValue(args, (pointer, kind, raw) => {
    const k = kind === "key" ? "k" : "v";
    hidden.push([pointer, k, keyedDigest(serviceId, k, raw)]);
  });
  return { view: value, hidden };
}

/** Parses the stored list; anything unexpected reads as "nothing can be proven". */
export function parseHidden(text: string | null): HiddenEntry[] | null {
  if (text === null) return null;
  try {
    const list: unknown = JSON.parse(text);
    if (!Array.isArray(list)) return null;
    const ok = list.every(
      (e) => Array.isArray(e) && e.length === 3 && typeof e[0] === "string" && (e[1] === "k" || e[1] === "v") && typeof e[2] === "string",
    );
    return ok ? (list as HiddenEntry[]) : null;
  } catch {
    return null;
  }
}
