// RFC 5424 messages for audit events, framed by octet counting (RFC 6587
// §3.4.1), which RFC 5425 requires over TLS and which carries a message with
// newlines intact. Written here: the npm syslog clients we looked at
// (syslog-client and its forks, glossy, syslog-pro) are unmaintained or fix
// the structured data to "-" and frame with newlines.
//
//   <110>1 2026-12-06T16:40:00.123Z host countersign 4242 approval.decided [countersign@32473 seq="7" id="aud_…" hash="…"] BOM{"seq":7,…}
//
// PRI 110: facility 13 (log audit), severity 6 (informational). MSGID is the
// event type; the structured data names seq, id and hash so a receiver can
// dedupe; MSG is the event's JSON (UTF-8 with the BOM RFC 5424 asks for).
// 32473 is the enterprise number RFC 5612 sets aside for examples and
// documentation: Countersign has no number of its own.
import type { StreamEvent } from "./sink";

export const SD_ID = "countersign@32473";
const FACILITY_LOG_AUDIT = 13;
const SEVERITY_INFO = 6;
const BOM = "\uFEFF";

/** A header field: printable US-ASCII without spaces, at most `max` characters, "-" when empty. */
export function headerField(value: string, max: number): string {
  const clean = value.replace(/[^\x21-\x7e]/g, "").slice(0, max);
  return clean === "" ? "-" : clean;
}

/** A PARAM-VALUE with `"`, `\` and `]` escaped (RFC 5424 §6.3.3). */
export function paramValue(value: string): string {
  return value.replace(/["\\\]]/g, (c) => `\\${c}`);
}

export type SyslogOrigin = { hostname: string; appName: string; procId: string };

/** One event as an RFC 5424 message (without framing). */
export function formatSyslogMessage(ev: StreamEvent, origin: SyslogOrigin): string {
  const pri = FACILITY_LOG_AUDIT * 8 + SEVERITY_INFO;
  const sd = `[${SD_ID} seq="${ev.seq}" id="${paramValue(ev.id)}" hash="${paramValue(ev.hash)}"]`;
  return [
    `<${pri}>1`,
    ev.at,
    headerField(origin.hostname, 255),
    headerField(origin.appName, 48),
    headerField(origin.procId, 128),
    headerField(ev.type, 32),
    sd,
    BOM + JSON.stringify(ev),
  ].join(" ");
}

/** Octet-counting frame: the message's length in bytes, a space, the message. */
export function frameOctetCounted(message: string): Buffer {
  const body = Buffer.from(message, "utf8");
  return Buffer.concat([Buffer.from(`${body.length} `, "ascii"), body]);
}
