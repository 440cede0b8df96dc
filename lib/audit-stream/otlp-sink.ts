// The OTLP/HTTP logs sink (AUDIT_OTLP_URL, a collector's full logs URL such
// as http://otel-collector:4318/v1/logs), with OpenTelemetry's own exporter.
// One log record per event: the body is the event's JSON, the attributes its
// seq, id, hash and type (so a pipeline can dedupe and route without parsing
// the body), the time the event's. A batch is one export; it counts as sent
// only when the collector answered success.
import "server-only";
import type { OTLPLogExporter } from "@opentelemetry/exporter-logs-otlp-http";
import { SinkError, type AuditSink, type StreamEvent } from "./sink";

type LogRecords = Parameters<OTLPLogExporter["export"]>[0];
type LogRecord = LogRecords[number];

const TIMEOUT_MS = 10_000;
const SEVERITY_INFO = 9; // SeverityNumber.INFO
const SCOPE = { name: "countersign.audit", version: "1" };

export function otlpSink(url: string, serviceName: string): AuditSink {
  let setUp: Promise<{ exporter: OTLPLogExporter; resource: LogRecord["resource"] }> | undefined;
  const load = () =>
    (setUp ??= (async () => {
      const [{ OTLPLogExporter }, { resourceFromAttributes }] = await Promise.all([
        import("@opentelemetry/exporter-logs-otlp-http"),
        import("@opentelemetry/resources"),
      ]);
      return {
        exporter: new OTLPLogExporter({ url, timeoutMillis: TIMEOUT_MS }),
        resource: resourceFromAttributes({ "service.name": serviceName }),
      };
    })());
  return {
    name: "otlp",
    async send(events) {
      if (events.length === 0) return;
      const { exporter, resource } = await load();
      const records = events.map((ev) => logRecord(ev, resource));
      const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(records, resolve));
      if (result.code !== 0) throw new SinkError(otlpFailureClass(result.error));
    },
  };
}

function logRecord(ev: StreamEvent, resource: LogRecord["resource"]): LogRecord {
  const ms = Date.parse(ev.at);
  const hrTime: [number, number] = [Math.floor(ms / 1000), (ms % 1000) * 1_000_000];
  return {
    hrTime,
    hrTimeObserved: hrTime,
    severityNumber: SEVERITY_INFO,
    severityText: "INFO",
    body: JSON.stringify(ev),
    eventName: ev.type,
    resource,
    instrumentationScope: SCOPE,
    attributes: { "audit.seq": ev.seq, "audit.id": ev.id, "audit.hash": ev.hash, "audit.type": ev.type },
    droppedAttributesCount: 0,
  };
}

function otlpFailureClass(e: Error | undefined): string {
  const code = (e as { code?: unknown } | undefined)?.code;
  if (typeof code === "number") return "http-status";
  if (e && /timeout/i.test(e.message)) return "timeout";
  return "network";
}
