// From results and errors to HTTP answers: AppError → its code's status and
// {"error": code}; ZodError → 422 with paths, never values; anything else →
// a generic 500 (503 when the database is unreachable), detail only in the log.
import { ZodError } from "zod";
import { AppError, issuesOf } from "../errors";
import { errorFields, log } from "../log";
import { isDatabaseUnavailable } from "../db/unavailable";
import { parseJsonBody } from "./parse-json";

/** An HTTP answer as plain values, for lib/ functions that decide a whole answer (e.g. the webhook pipeline). */
export type HttpResult = { status: number; body: unknown; headers?: Record<string, string> };

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

export function respondWith(result: HttpResult): Response {
  return json(result.body, result.status, result.headers);
}

export function errorBody(e: AppError): Record<string, unknown> {
  return e.details.issues ? { error: e.code, issues: e.details.issues } : { error: e.code };
}

export function errorResponse(e: unknown, context: Record<string, unknown> = {}): Response {
  return respondWith(errorResult(e, context));
}

export function errorResult(e: unknown, context: Record<string, unknown> = {}): HttpResult {
  if (e instanceof AppError) {
    const headers: Record<string, string> = e.details.retryAfter ? { "retry-after": String(e.details.retryAfter) } : {};
    return { status: e.status, body: errorBody(e), headers };
  }
  if (e instanceof ZodError) return { status: 422, body: { error: "invalid-request", issues: issuesOf(e) } };
  if (isDatabaseUnavailable(e)) {
    log.warn("database unavailable", { ...context, ...errorFields(e) });
    return { status: 503, body: { error: "unavailable" }, headers: { "retry-after": "2" } };
  }
  log.error("unexpected error", { ...context, ...errorFields(e) });
  return { status: 500, body: { error: "internal" } };
}

/** The raw parts of a request body: a Request is one. */
export type RequestBody = { headers: Headers; body: ReadableStream<Uint8Array> | null };

/**
 * Reads at most `limit` bytes of a request body. A larger body is refused
 * from its Content-Length, or as soon as the stream passes the limit: it is
 * never buffered whole.
 */
export async function readBodyLimited(req: RequestBody, limit: number): Promise<Uint8Array | "too-large"> {
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) return "too-large";
  if (!req.body) return new Uint8Array();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return "too-large";
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.byteLength;
  }
  return body;
}

/** A small JSON body (executor calls); a larger body is refused unread. */
export async function readJson(req: RequestBody, limit = 16 * 1024): Promise<unknown> {
  const body = await readBodyLimited(req, limit);
  if (body === "too-large") throw new AppError("too-large");
  return parseJsonBody(body);
}
