// The chain's fast event encoding must be byte for byte the RFC 8785 text the
// generic canonicalizer writes: every hash already stored depends on it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@countersign/client";
import { encodeEvent, eventHash, type ChainedEvent } from "./chain";

const generic = (ev: ChainedEvent) =>
  canonicalJson({
    seq: ev.seq,
    id: ev.id,
    at: ev.at,
    type: ev.type,
    actor: ev.actor,
    approvalId: ev.approvalId,
    data: ev.data,
    prevHash: ev.prevHash,
  });

// Any UTF-16 text, lone surrogates included (they must take the generic path and fail there).
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
);

const event = fc.record({
  seq: fc.oneof(fc.integer({ min: 0, max: 2 ** 31 }), fc.constant(Number.MAX_SAFE_INTEGER), fc.constant(-0)),
  id: text,
  at: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  type: text,
  actor: text,
  approvalId: fc.option(text, { nil: null }),
  data: fc.oneof(
    text,
    fc.jsonValue().map((v) => JSON.stringify(v) ?? "null"),
  ),
  prevHash: text,
});

describe("audit event encoding", () => {
  it("equals the generic RFC 8785 canonicalization for any event", () => {
    fc.assert(
      fc.property(event, (ev) => {
        let expected: string | Error;
        try {
          expected = generic(ev);
        } catch (e) {
          expected = e as Error;
        }
        if (expected instanceof Error) expect(() => encodeEvent(ev)).toThrow();
        else expect(encodeEvent(ev)).toBe(expected);
      }),
      { numRuns: 5000 },
    );
  });

  it("keeps a known event's hash (chains written before stay valid)", () => {
    const ev: ChainedEvent = {
      seq: 7,
      id: "evt_abc",
      at: "2026-11-29T18:00:00.000Z",
      type: "approval.requested",
      actor: "service:billing",
      approvalId: "apr_x",
      data: '{"quorum":2,"tool":"payments.pay"}',
      prevHash: "0".repeat(64),
    };
    expect(encodeEvent(ev)).toBe(generic(ev));
    expect(eventHash(Buffer.alloc(32, 1), ev)).toBe(eventHash(Buffer.alloc(32, 1), { ...ev }));
  });
});
