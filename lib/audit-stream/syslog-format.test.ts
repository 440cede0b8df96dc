import { describe, expect, it } from "vitest";
import { parseRfc5424 } from "../../test/helpers/syslog-receiver";
import { formatSyslogMessage, frameOctetCounted, headerField, paramValue } from "./syslog-format";
import type { StreamEvent } from "./sink";

const ev: StreamEvent = {
  seq: 42,
  id: 'aud_"odd"]\\id',
  at: "2026-12-06T16:40:00.123Z",
  type: "approval.decided",
  actor: "user:zoë@example.com",
  approvalId: "apr_1",
  data: { reason: "looks fine ✓\nsecond line" },
  prevHash: "a".repeat(64),
  hash: "b".repeat(64),
};
const origin = { hostname: "host one", appName: "countersign", procId: "4242" };

describe("RFC 5424 formatting", () => {
  it("writes the header, the structured data and the event's JSON", () => {
    const text = formatSyslogMessage(ev, origin);
    expect(text.startsWith('<110>1 2026-12-06T16:40:00.123Z hostone countersign 4242 approval.decided [countersign@32473 seq="42" ')).toBe(true);
    const parsed = parseRfc5424(text);
    expect(parsed.sd).toEqual([{ id: "countersign@32473", params: { seq: "42", id: ev.id, hash: ev.hash } }]);
    expect(JSON.parse(parsed.msg)).toEqual(ev);
  });

  it("escapes PARAM-VALUE and keeps header fields printable and bounded", () => {
    expect(paramValue('a"b]c\\d')).toBe('a\\"b\\]c\\\\d');
    expect(headerField("", 10)).toBe("-");
    expect(headerField("näme with space", 100)).toBe("nmewithspace");
    expect(headerField("x".repeat(40), 32)).toHaveLength(32);
  });

  it("counts octets, not characters", () => {
    const text = formatSyslogMessage(ev, origin);
    const frame = frameOctetCounted(text);
    const space = frame.indexOf(0x20);
    const len = Number(frame.subarray(0, space).toString("ascii"));
    expect(len).toBe(Buffer.byteLength(text, "utf8"));
    expect(len).toBeGreaterThan(text.length); // the BOM, ë and ✓ take more than one byte
    expect(frame.subarray(space + 1).toString("utf8")).toBe(text);
  });
});
