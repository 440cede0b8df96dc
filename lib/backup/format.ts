// The snapshot file (docs/operations.md): JSON Lines, one format for both
// databases. The first line is the signed manifest:
//
//   {"countersign_backup":1,"manifest":{…},"signature":"<compact JWS>"}
//
// and every line after it one row, tables in dependency order (parents
// first), rows in primary-key order:
//
//   {"t":"users","r":{"id":"usr_…","email":"…",…}}
//
// The manifest names the tables with their row counts and columns, the audit
// chain's head, the newest migration of the schema the rows fit, and the
// SHA-256 of every byte after the first line. The signature is an EdDSA
// compact JWS, under the receipt signing key, whose payload is the
// manifest's RFC 8785 text: one changed byte anywhere is caught.
import "server-only";
import { CompactSign, compactVerify, importJWK, type JWK } from "jose";
import { z } from "zod";
import { canonicalJson } from "@countersign/client";
import type { ActiveKey } from "../receipts/signing-keys";

export const BACKUP_FORMAT = "countersign-backup/1";
const JWS_TYPE = "countersign-backup+jws";

export const manifestSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  created_at: z.string(),
  source: z.enum(["sqlite", "postgresql"]),
  migration: z.string().nullable(),
  tables: z.array(z.object({ name: z.string().min(1), rows: z.number().int().min(0), columns: z.array(z.string().min(1)) })),
  audit_head: z.object({ seq: z.number().int().min(0), hash: z.string() }).nullable(),
  body_sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type Manifest = z.infer<typeof manifestSchema>;

export const headerSchema = z.object({ countersign_backup: z.literal(1), manifest: manifestSchema, signature: z.string().min(1) });
export type Header = z.infer<typeof headerSchema>;

export const rowLineSchema = z.object({ t: z.string().min(1), r: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])) });

export async function signManifest(manifest: Manifest, { kid, key }: ActiveKey): Promise<string> {
  return new CompactSign(new TextEncoder().encode(canonicalJson(manifest))).setProtectedHeader({ alg: "EdDSA", kid, typ: JWS_TYPE }).sign(key);
}

/** The kid the signature names (unverified: used to pick the key to verify with). */
export function signatureKid(signature: string): string | undefined {
  try {
    const header = JSON.parse(Buffer.from(signature.split(".")[0] ?? "", "base64url").toString("utf8")) as { kid?: unknown };
    return typeof header.kid === "string" ? header.kid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `signature` is this manifest's, under the public key given. */
export async function manifestSignatureValid(manifest: Manifest, signature: string, publicJwk: JWK): Promise<boolean> {
  try {
    const key = await importJWK({ ...publicJwk, alg: "EdDSA" }, "EdDSA");
    const { payload, protectedHeader } = await compactVerify(signature, key);
    return protectedHeader.typ === JWS_TYPE && new TextDecoder().decode(payload) === canonicalJson(manifest);
  } catch {
    return false;
  }
}
