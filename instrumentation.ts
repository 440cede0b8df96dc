import type { Instrumentation } from "next";

// Runs once when a server instance starts (Next.js): traces, if configured
// (before anything that would make a span), then background workers, then
// the agents' routes handed to the custom server.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const [{ env }, { startTracing }] = await Promise.all([import("./lib/env"), import("./lib/tracing/tracing")]);
  await startTracing(env().OTEL_EXPORTER_OTLP_ENDPOINT, env().OTEL_SERVICE_NAME);
  const { startBackgroundWork } = await import("./lib/background");
  startBackgroundWork();
  // The agents' routes, for the custom server to serve without Next's per-request work (lib/http/lean-routes.ts).
  const [{ publishLeanRoutes }, { MACHINE_ROUTES }] = await Promise.all([import("./lib/http/lean-routes"), import("./app/api/v1/machine-routes")]);
  publishLeanRoutes(MACHINE_ROUTES);
}

// A page or server action that failed while rendering: one structured log
// line with the route's template (never the path, which holds ids), the
// digest the error page shows the user, and the error's class and codes.
export const onRequestError: Instrumentation.onRequestError = async (error, request, context) => {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const [{ log, errorFields }, { isDatabaseUnavailable }] = await Promise.all([import("./lib/log"), import("./lib/db/unavailable")]);
  const digest = typeof error === "object" && error !== null && "digest" in error ? String(error.digest) : undefined;
  const fields = { method: request.method, route: context.routePath, kind: context.routeType, digest, ...errorFields(error) };
  if (isDatabaseUnavailable(error)) log.warn("page failed: database unavailable", fields);
  else log.error("page failed", fields);
};
