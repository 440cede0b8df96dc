// The hash chain itself, pure: how an event is encoded and hashed. Shared by
// the append path and by `audit verify`, so the two can never disagree.
import { createHmac } from "node:crypto";
import { canonicalJson } from "../digest/args-digest";

export const GENESIS_HASH = "0".repeat(64);

export type ChainedEvent = {
  seq: number;
  id: string;
  at: string; // ISO 8601, milliseconds, UTC
  type: string;
  actor: string;
  approvalId: string | null;
  data: string; // canonical JSON text
  prevHash: string;
};

/** HMAC-SHA256 under AUDIT_KEY over the RFC 8785 encoding of every field but the hash. */
export function eventHash(auditKey: Buffer, ev: ChainedEvent): string {
  const encoded = canonicalJson({
    seq: ev.seq,
    id: ev.id,
    at: ev.at,
    type: ev.type,
    actor: ev.actor,
    approvalId: ev.approvalId,
    data: ev.data,
    prevHash: ev.prevHash,
  });
  return createHmac("sha256", auditKey).update(encoded, "utf8").digest("hex");
}
