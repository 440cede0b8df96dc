// OpenTelemetry traces (docs/operations.md, Traces). Off unless
// OTEL_EXPORTER_OTLP_ENDPOINT is set; then Next.js's own spans (each HTTP
// request, continuing an incoming W3C `traceparent`; the agents' routes get
// theirs from lib/http/lean-routes.ts), Prisma's query spans
// and ours (driver SQL, the webhook pipeline, consume, callback delivery) go
// to the collector over OTLP/HTTP. Spans never carry argument values: the
// SQL text is parameterized, and URLs lose their query string (a search of
// the arguments travels in one) before a span is exported.
import { context, propagation, trace, SpanStatusCode, type Attributes, type Context } from "@opentelemetry/api";

const TRACER = "countersign";

/** Attributes that hold a URL with its query string, and what is left of them. */
const URL_ATTRIBUTES = ["http.target", "http.url", "url.full", "next.url"];
const withoutQuery = (value: unknown) => (typeof value === "string" ? value.replace(/[?#].*$/s, "") : value);

type MutableSpan = { attributes: Attributes; setAttribute(key: string, value: unknown): unknown };

/** Strips query strings (and drops url.query) on every span, at its start and before it ends. */
export function scrubUrlAttributes(span: MutableSpan): void {
  for (const key of URL_ATTRIBUTES) {
    if (key in span.attributes) span.attributes[key] = withoutQuery(span.attributes[key]) as string;
  }
  delete span.attributes["url.query"];
}

// Per process, not per module copy: Next.js bundles instrumentation.ts apart from the routes.
const g = globalThis as { countersignTracing?: Promise<{ shutdown(): Promise<void> }> };

/** Whether this process exports traces (hot paths skip their own spans when not). */
export const tracingActive = (): boolean => g.countersignTracing !== undefined;

/** Starts exporting (once per process). The SDK is loaded only when traces are on. */
export function startTracing(endpoint: string | undefined, serviceName: string): Promise<{ shutdown(): Promise<void> }> | null {
  if (!endpoint) return null;
  g.countersignTracing ??= (async () => {
    const [
      { NodeTracerProvider, BatchSpanProcessor },
      { OTLPTraceExporter },
      { resourceFromAttributes },
      { registerInstrumentations },
      { PrismaInstrumentation },
    ] = await Promise.all([
      import("@opentelemetry/sdk-trace-node"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/resources"),
      import("@opentelemetry/instrumentation"),
      import("@prisma/instrumentation"),
    ]);
    const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, "")}/v1/traces` });
    const batch = new BatchSpanProcessor(exporter, { scheduledDelayMillis: 500 });
    const provider = new NodeTracerProvider({
      resource: resourceFromAttributes({ "service.name": serviceName }),
      spanProcessors: [
        {
          onStart: (span) => scrubUrlAttributes(span as unknown as MutableSpan),
          onEnding: (span) => scrubUrlAttributes(span as unknown as MutableSpan),
          onEnd: (span) => batch.onEnd(span),
          forceFlush: () => batch.forceFlush(),
          shutdown: () => batch.shutdown(),
        },
      ],
    });
    // The W3C trace-context propagator and an AsyncLocalStorage context manager.
    provider.register();
    registerInstrumentations({ tracerProvider: provider, instrumentations: [new PrismaInstrumentation()] });
    return { shutdown: () => provider.shutdown() };
  })();
  return g.countersignTracing;
}

/** Sends the spans still buffered (at shutdown); nothing when traces are off. */
export async function flushTraces(): Promise<void> {
  if (g.countersignTracing) await (await g.countersignTracing).shutdown();
}

/** Runs fn in a span of its own (a child of the active one); the span records a throw. With traces off it costs a no-op span. */
export async function withSpan<T>(name: string, attributes: Attributes, fn: () => Promise<T>, parent?: Context): Promise<T> {
  return trace.getTracer(TRACER).startActiveSpan(name, { attributes }, parent ?? context.active(), async (span) => {
    try {
      return await fn();
    } catch (e) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      if (e instanceof Error) span.setAttribute("error.type", e.name);
      throw e;
    } finally {
      span.end();
    }
  });
}

/** The active span's W3C `traceparent`, or null (traces off, or no span). */
export function currentTraceparent(): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/** A context continuing a stored `traceparent` (null or malformed: the active context). */
export function contextFrom(traceparent: string | null): Context {
  return traceparent ? propagation.extract(context.active(), { traceparent }) : context.active();
}

/** The headers that carry the active span to the next hop. */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}
