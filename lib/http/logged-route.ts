// Every route handler is wrapped in this: it gives the request its id (for
// every log line written while handling it, and the X-Request-Id response
// header), turns an escaped error into the standard answer, and writes one
// access line: method, route name (never the raw path, which holds ids and
// slugs), status and duration. With traces on, the handling is a span named
// after the route (a child of Next's span for the request).
import { errorResponse } from "./respond";
import { tracingActive, withSpan } from "../tracing/tracing";
import { log } from "../log";
import { requestIdFrom, runWithRequestId } from "../request-context";

export function loggedRoute<R extends Request, C>(
  route: string,
  handler: (req: R, ctx: C) => Promise<Response> | Response,
): (req: R, ctx: C) => Promise<Response> {
  return (req, ctx) => {
    const requestId = requestIdFrom(req.headers);
    return runWithRequestId(requestId, async () => {
      const started = performance.now();
      const handle = async () => {
        try {
          return await handler(req, ctx);
        } catch (e) {
          return errorResponse(e, { route });
        }
      };
      const res = tracingActive() ? await withSpan(`route ${route}`, { "countersign.route": route }, handle) : await handle();
      log.info("request", { method: req.method, route, status: res.status, ms: Math.round(performance.now() - started) });
      return withHeader(res, "x-request-id", requestId);
    });
  };
}

function withHeader(res: Response, name: string, value: string): Response {
  try {
    res.headers.set(name, value);
    return res;
  } catch {
    // Headers of e.g. Response.redirect() are immutable: copy them.
    const headers = new Headers(res.headers);
    headers.set(name, value);
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  }
}
