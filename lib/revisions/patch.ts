// A reviewer's proposed changes (docs/revisions.md): an RFC 6902 patch of
// add, remove and replace on the values the reviewer was shown. Checked
// against the request's sealed view, so a path under a redacted value (or a
// change that would drop one) is refused, and the new values must be ones no
// redaction rule would hide: they are stored, and shown to the next reviewers.
import canonicalize from "canonicalize";
import { z } from "zod";
import { applyJsonPatch, isJsonPatchError, parseJsonPointer, type JsonPatch } from "@countersign/client";
import { jsonDepthExceeds } from "../http/parse-json";
import type { Redactor } from "../redaction";
import type { HiddenEntry } from "./hidden-values";
import { expectedSealedView } from "./sealed-view";

export const MAX_PATCH_OPERATIONS = 50;
export const MAX_PATCH_BYTES = 32 * 1024;

const pointerSchema = z
  .string()
  .max(1000)
  .refine((p) => {
    try {
      parseJsonPointer(p);
      return true;
    } catch {
      return false;
    }
  }, "must be a JSON Pointer (RFC 6901), e.g. /amount or /items/0/name");

const valueSchema = z.custom<unknown>((v) => v !== undefined, "needs a value").refine((v) => !jsonDepthExceeds(v, 16), "is nested too deeply");

export const patchSchema = z
  .array(
    z.discriminatedUnion("op", [
      z.strictObject({ op: z.literal("replace"), path: pointerSchema, value: valueSchema }),
      z.strictObject({ op: z.literal("add"), path: pointerSchema, value: valueSchema }),
      z.strictObject({ op: z.literal("remove"), path: pointerSchema }),
    ]),
  )
  .min(1, "propose at least one change")
  .max(MAX_PATCH_OPERATIONS, `at most ${MAX_PATCH_OPERATIONS} changes`)
  .refine(
    (p) => (canonicalize(p) ?? "").length <= MAX_PATCH_BYTES,
    `the changes may take at most ${MAX_PATCH_BYTES / 1024} KiB`,
  ) as z.ZodType<JsonPatch>;

export type PatchCheck = { ok: true; result: unknown } | { ok: false; message: string };

/**
 * May this patch be proposed on a request with this redacted view and these
 * hidden entries? On success, the view as it would read after the patch.
 */
export function checkPatch(view: unknown, hidden: readonly HiddenEntry[], patch: JsonPatch, redactor: Redactor): PatchCheck {
  try {
    expectedSealedView(view, hidden, patch);
  } catch (e) {
    if (isJsonPatchError(e)) return { ok: false, message: e.message };
    throw e;
  }
  for (const [i, operation] of patch.entries()) {
    if (operation.op === "remove") continue;
    const segments = parseJsonPointer(operation.path);
    const entry = { [segments[segments.length - 1] ?? ""]: operation.value };
    if (canonicalize(redactor.redactValue(entry).value) !== canonicalize(entry)) {
      return {
        ok: false,
        message: `operation ${i} (${operation.op} ${operation.path}): the new value holds something a redaction rule hides, which a change cannot carry`,
      };
    }
  }
  const result = applyJsonPatch(view, patch);
  if (typeof result !== "object" || result === null || Array.isArray(result)) {
    return { ok: false, message: "the arguments must stay a JSON object" };
  }
  return { ok: true, result };
}
