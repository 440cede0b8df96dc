// The machine-to-machine routes (webhook, state, consume, result, cancel)
// served without Next.js's per-request machinery, which cost most of the
// trivial route's CPU (docs/performance.md). The handlers are the very
// functions the route files export (app/api/v1/machine-routes.ts lists them):
// the same guards, logs, metrics and answers. Next.js still serves those
// paths until the table is published, and every path, method or spelling
// the table does not match exactly.
//
// instrumentation.ts publishes the table at start-up, on globalThis (the
// custom server, scripts/server/serve.mjs, is outside Next's bundles); the
// server asks it for each request and turns the Node request into a
// standard Request and the Response back (scripts/server/lean-http.mjs).
import { context, propagation, trace, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { tracingActive } from "../tracing/tracing";

type Params = Record<string, string>;
type Handler<P> = (req: Request, ctx: { params: Promise<P> }) => Promise<Response>;

export type MachineRoute = {
  method: "GET" | "POST";
  /** The route's path as its folder names it: /api/v1/approvals/[id]. */
  template: string;
  handler: Handler<Params>;
};

/** A table row; typed by the handler's own params. */
export function machineRoute<P extends Params>(method: MachineRoute["method"], template: string, handler: Handler<P>): MachineRoute {
  return { method, template, handler: handler as unknown as Handler<Params> };
}

/** A request's handler if the table has its method and path, else null (Next.js serves it). */
export type LeanDispatch = (method: string, pathname: string) => ((req: Request) => Promise<Response>) | null;

type Segment = { literal: string } | { param: string };

function segmentsOf(template: string): Segment[] {
  return template
    .split("/")
    .slice(1)
    .map((s) => {
      const param = /^\[(\w+)\]$/.exec(s)?.[1];
      return param ? { param } : { literal: s };
    });
}

/** The params of `pathname` if it is `segments` exactly (no trailing slash, no empty or undecodable segment). */
function matchPath(segments: readonly Segment[], pathname: string): Params | null {
  const parts = pathname.split("/");
  if (parts[0] !== "" || parts.length - 1 !== segments.length) return null;
  const params: Params = {};
  for (let i = 0; i < segments.length; i++) {
    const part = parts[i + 1]!;
    const segment = segments[i]!;
    if ("literal" in segment) {
      if (part !== segment.literal) return null;
      continue;
    }
    if (part === "") return null;
    try {
      params[segment.param] = decodeURIComponent(part);
    } catch {
      return null;
    }
  }
  return params;
}

export function leanDispatcher(routes: readonly MachineRoute[]): LeanDispatch {
  const table = routes.map((r) => ({ ...r, segments: segmentsOf(r.template) }));
  return (method, pathname) => {
    for (const route of table) {
      if (route.method !== method) continue;
      const params = matchPath(route.segments, pathname);
      if (params) return (req) => serve(route, params, req);
    }
    return null;
  };
}

function serve(route: MachineRoute, params: Params, req: Request): Promise<Response> {
  const call = () => route.handler(req, { params: Promise.resolve(params) });
  return tracingActive() ? inServerSpan(route, req, call) : call();
}

/**
 * With traces on, the request's server span, as Next.js makes one for the
 * requests it serves: named by method and route template (never the path,
 * which holds ids), continuing the caller's `traceparent`.
 */
function inServerSpan(route: MachineRoute, req: Request, call: () => Promise<Response>): Promise<Response> {
  const carrier: Record<string, string> = {};
  for (const name of ["traceparent", "tracestate"]) {
    const value = req.headers.get(name);
    if (value !== null) carrier[name] = value;
  }
  const parent = propagation.extract(context.active(), carrier);
  const attributes = { "http.request.method": route.method, "http.route": route.template };
  return trace
    .getTracer("countersign")
    .startActiveSpan(`${route.method} ${route.template}`, { kind: SpanKind.SERVER, attributes }, parent, async (span) => {
      try {
        const res = await call();
        span.setAttribute("http.response.status_code", res.status);
        if (res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        return res;
      } catch (e) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw e;
      } finally {
        span.end();
      }
    });
}

const KEY = Symbol.for("countersign.http.leanRoutes");
const g = globalThis as unknown as { [KEY]?: LeanDispatch };

/** Makes the table the custom server's to serve (instrumentation.ts, once per process). */
export function publishLeanRoutes(routes: readonly MachineRoute[]): void {
  g[KEY] = leanDispatcher(routes);
}
