// What every audit sink is: a name (its row in audit_sinks) and a send of a
// batch of events, in seq order, that resolves only once the sink has taken
// them all. A failed send throws SinkError with a short class ("network",
// "timeout", "http-status", …): that class is what admins see, never a
// message from the far end.
import "server-only";

export const SINK_NAMES = ["syslog", "otlp", "webhook"] as const;
export type SinkName = (typeof SINK_NAMES)[number];

/** One audit event as the chain holds it: every column of audit_events, nothing else. */
export type StreamEvent = {
  seq: number;
  id: string;
  at: string; // ISO 8601, milliseconds, UTC
  type: string;
  actor: string;
  approvalId: string | null;
  /** The event's data object (the chain holds it as canonical JSON text: ids, digests, actors, reason codes). */
  data: Record<string, unknown>;
  prevHash: string;
  hash: string;
};

export interface AuditSink {
  readonly name: SinkName;
  /** Sends the events, in order; resolves when the sink accepted all of them, throws SinkError otherwise. */
  send(events: readonly StreamEvent[]): Promise<void>;
}

export class SinkError extends Error {
  override name = "SinkError";
  constructor(readonly errorClass: string) {
    super(`audit sink failed: ${errorClass}`);
  }
}

/** The class of a failure, for a caught value that may not be a SinkError. */
export function errorClassOf(e: unknown): string {
  if (e instanceof SinkError) return e.errorClass;
  return "internal";
}
