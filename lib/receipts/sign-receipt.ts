// A consume receipt: compact JWS (EdDSA / Ed25519) over exactly the fields of
// CONTRACT §4, offline-verifiable with the published JWKS.
import "server-only";
import { CompactSign } from "jose";
import { canonicalJson } from "../digest/args-digest";
import type { ActiveKey } from "./signing-keys";

export type ReceiptClaims = {
  approval_id: string;
  service: string;
  run_id: string;
  call_id: string;
  tool: string;
  args_digest: string;
  decision: "approved" | "denied" | "expired";
  decided_by: string[];
  decided_at: string;
  consumed_at: string;
};

/** Pure signing with a key loaded beforehand (currentSigningKey), so it can run inside a transaction. */
export async function signReceipt(claims: ReceiptClaims, { kid, key }: ActiveKey): Promise<string> {
  return new CompactSign(new TextEncoder().encode(canonicalJson(claims)))
    .setProtectedHeader({ alg: "EdDSA", kid, typ: "countersign-receipt+jws" })
    .sign(key);
}
