// The signed JSON Lines webhook (AUDIT_WEBHOOK_URL, AUDIT_WEBHOOK_SECRET): a
// batch of events as one POST, one event per line, signed with Standard
// Webhooks headers like every callback (lib/callbacks/signed-post.ts, which
// also applies the callback target rules). The webhook-id names the batch's
// first and last seq; each line carries its own seq and hash, so a receiver
// dedupes by seq whatever batches a retry cuts.
import "server-only";
import { postSignedWebhook } from "../callbacks/signed-post";
import { SinkError, type AuditSink, type StreamEvent } from "./sink";

export const JSON_LINES = "application/jsonl";

export function jsonLines(events: readonly StreamEvent[]): string {
  return events.map((ev) => `${JSON.stringify(ev)}\n`).join("");
}

export function webhookSink(url: string, secret: string): AuditSink {
  return {
    name: "webhook",
    async send(events) {
      if (events.length === 0) return;
      const id = `audit_${events[0]!.seq}_${events[events.length - 1]!.seq}`;
      const r = await postSignedWebhook(url, jsonLines(events), id, secret, { "content-type": JSON_LINES });
      if (!r.ok) throw new SinkError(r.errorClass ?? "http-status");
    },
  };
}
