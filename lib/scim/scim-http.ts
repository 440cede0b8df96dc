// The SCIM server's HTTP edge: its media type, its body limit, and every
// failure as SCIM's error schema (RFC 7644 §3.12), whatever threw it.
import { ZodError } from "zod";
import { AppError } from "../errors";
import { isDatabaseUnavailable } from "../db/unavailable";
import { errorFields, log } from "../log";
import { parseJsonBody } from "../http/parse-json";
import { readBodyLimited, type RequestBody } from "../http/respond";
import { isScimError, scimError, scimErrorBody } from "./scim-error";

export const SCIM_MEDIA_TYPE = "application/scim+json";

/** A PUT of a large group (every member listed) fits; anything larger is not a directory's request. */
export const MAX_SCIM_BODY_BYTES = 2 * 1024 * 1024;

export function scimJson(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { "content-type": `${SCIM_MEDIA_TYPE}; charset=utf-8`, "cache-control": "no-store", ...headers },
  });
}

/** The request's JSON body, or a SCIM invalidSyntax (not JSON) or 413 (too large). */
export async function readScimBody(req: RequestBody): Promise<unknown> {
  const body = await readBodyLimited(req, MAX_SCIM_BODY_BYTES);
  if (body === "too-large") throw scimError(413, null, `the body must be at most ${MAX_SCIM_BODY_BYTES} bytes`);
  try {
    return parseJsonBody(body);
  } catch (e) {
    if (e instanceof AppError) throw scimError(400, "invalidSyntax", e.details.issues?.[0]?.message ?? "the body must be JSON");
    throw e;
  }
}

const SCIM_TYPE_OF: Partial<Record<number, string>> = { 400: "invalidValue", 409: "uniqueness" };

/** Any failure as a SCIM error response; unexpected ones are logged (never with the request's values) and answered 500. */
export function scimFailure(e: unknown, context: Record<string, unknown>): Response {
  let error;
  if (isScimError(e)) error = e;
  else if (e instanceof ZodError)
    error = scimError(400, "invalidValue", e.issues.map((i) => `${i.path.join(".") || "value"}: ${i.message}`).join("; "));
  else if (e instanceof AppError) {
    const status = e.status === 422 ? 400 : e.status;
    error = scimError(status, SCIM_TYPE_OF[status] ?? null, e.message === e.code ? e.code.replaceAll("-", " ") : e.message);
  } else if (isDatabaseUnavailable(e)) {
    log.warn("database unavailable", { ...context, ...errorFields(e) });
    return scimJson(scimErrorBody(scimError(503, null, "the service is unavailable; try again shortly")), 503, { "retry-after": "2" });
  } else {
    log.error("unexpected error", { ...context, ...errorFields(e) });
    error = scimError(500, null, "internal error");
  }
  const headers: Record<string, string> = error.status === 401 ? { "www-authenticate": 'Bearer realm="scim"' } : {};
  return scimJson(scimErrorBody(error), error.status, headers);
}
