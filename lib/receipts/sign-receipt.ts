// A consume receipt: compact JWS (EdDSA / Ed25519) over exactly the fields of
// docs/api.md, offline-verifiable with the published JWKS.
import "server-only";
import { CompactSign } from "jose";
import { canonicalJson } from "@countersign/client";
import type { ActiveKey } from "./signing-keys";
import type { ReceiptPayload } from "@countersign/client";

/** The signed fields: the client's wire type of docs/api.md, so signer and verifier share one definition. */
export type ReceiptClaims = ReceiptPayload;

/** Pure signing with a key loaded beforehand (currentSigningKey), so it can run inside a transaction. */
export async function signReceipt(claims: ReceiptClaims, { kid, key }: ActiveKey): Promise<string> {
  return new CompactSign(new TextEncoder().encode(canonicalJson(claims)))
    .setProtectedHeader({ alg: "EdDSA", kid, typ: "countersign-receipt+jws" })
    .sign(key);
}
