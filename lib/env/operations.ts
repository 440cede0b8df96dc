// Operations: metrics, traces, retention, audit streaming and the benchmark's routes.
import { z } from "zod";
import { doc } from "./groups";
import { flag } from "./values";

export const operationVariables = {
  METRICS_TOKEN: z
    .string()
    .min(32, "METRICS_TOKEN must be at least 32 characters (e.g. `openssl rand -hex 32`)")
    .max(512, "METRICS_TOKEN must be at most 512 characters")
    .regex(/^[A-Za-z0-9._~+/=-]+$/, "METRICS_TOKEN may hold only letters, digits and . _ ~ + / = - (a bearer token)")
    .optional()
    .meta(
      doc(
        "operations",
        "The bearer token Prometheus scrapes `GET /api/metrics` with (32 to 512 characters); unset, the route answers 404 (docs/operations.md, Metrics).",
        "metrics off",
      ),
    ),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url()
    .optional()
    .meta(
      doc(
        "operations",
        "An OTLP/HTTP collector's base URL (e.g. `http://otel-collector:4318`): traces of HTTP handling and database work are sent to its `/v1/traces`, never with argument values (docs/operations.md, Traces).",
        "traces off",
      ),
    ),
  OTEL_SERVICE_NAME: z
    .string()
    .regex(/^[\w.-]{1,100}$/, "OTEL_SERVICE_NAME may hold only letters, digits, _ . - (1-100)")
    .default("countersign")
    .meta(doc("operations", "The `service.name` the traces carry.")),
  RETENTION_DAYS: z.coerce
    .number({ error: "RETENTION_DAYS must be a whole number of days" })
    .int("RETENTION_DAYS must be a whole number of days")
    .min(1, "RETENTION_DAYS must be at least 1")
    .max(36_500, "RETENTION_DAYS must be at most 36500 (100 years)")
    .optional()
    .meta(
      doc(
        "operations",
        "Days a decided request keeps its arguments: after that a background job purges its redacted arguments, hidden-value digests, summary and proposed patch, a `retention.purged` audit event per batch (docs/operations.md, Retention).",
        "kept forever",
      ),
    ),
  AUDIT_SYSLOG_URL: z
    .string()
    .regex(/^(tcp|tls):\/\/[^\s/?#@]+\/?$/, "AUDIT_SYSLOG_URL must be tcp://host[:port] or tls://host[:port]")
    .optional()
    .meta(
      doc(
        "operations",
        "Streams every audit event as an RFC 5424 syslog message: `tcp://host:514` or `tls://host:6514` (the system's authorities plus `NODE_EXTRA_CA_CERTS`); octet-counted framing (docs/operations.md, Audit streaming).",
        "off",
      ),
    ),
  AUDIT_OTLP_URL: z
    .url()
    .optional()
    .meta(
      doc(
        "operations",
        "Streams every audit event as an OpenTelemetry log record to this OTLP/HTTP logs URL (e.g. `http://otel-collector:4318/v1/logs`).",
        "off",
      ),
    ),
  AUDIT_WEBHOOK_URL: z
    .url()
    .optional()
    .meta(
      doc(
        "operations",
        "Streams the audit events as signed JSON Lines batches (Standard Webhooks) to this URL; the callback target rules apply. Needs `AUDIT_WEBHOOK_SECRET`.",
        "off",
      ),
    ),
  AUDIT_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, "AUDIT_WEBHOOK_SECRET must be whsec_ followed by a base64 key of 24 bytes or more")
    .optional()
    .meta(
      doc(
        "operations",
        "Signs the audit stream's webhook batches: `whsec_` and a base64 key of 24 bytes or more. Required with `AUDIT_WEBHOOK_URL`.",
      ),
    ),
  COUNTERSIGN_BENCH: flag.meta(doc("operations", "`1` turns on the benchmark's own routes (`app/api/bench/*`, 404 otherwise). Never in production.")),
};
