// Ed25519 keys that sign consume receipts (docs/api.md). Private halves live
// in the database encrypted at rest, so every instance signs with the same
// current key and a rotation reaches all of them; public halves are
// published at /.well-known/jwks.json, the previous ones included, so old
// receipts keep verifying. The first key comes from RECEIPT_SIGNING_KEY.
import "server-only";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { z } from "zod";
import { db, type Tx } from "../db/client";
import { direct } from "../db/sql";
import { env } from "../env";
import { decryptSecret, encryptSecret } from "../crypto/at-rest";
import { inTransaction } from "../db/transaction";
import { recordAudit } from "../audit/append-event";
import type { Actor } from "../audit/events";

const PURPOSE = "receipt.signing_key";
const JWKS_SIZE = 5;

const privateJwkSchema = z.object({ kty: z.literal("OKP"), crv: z.literal("Ed25519"), x: z.string(), d: z.string() });

async function storeKey(tx: Tx, privateJwk: JWK): Promise<string> {
  const { kty, crv, x, d } = privateJwkSchema.parse(privateJwk);
  const publicJwk = { kty, crv, x };
  const kid = await calculateJwkThumbprint(publicJwk);
  const exists = await tx.signingKey.findUnique({ where: { kid }, select: { kid: true } });
  if (!exists) {
    await tx.signingKey.create({
      data: {
        kid,
        publicJwk: JSON.stringify({ ...publicJwk, kid, alg: "EdDSA", use: "sig" }),
        privateJwkEnc: encryptSecret(JSON.stringify({ kty, crv, x, d }), PURPOSE),
      },
    });
  }
  return kid;
}

/** Creates the first key from RECEIPT_SIGNING_KEY when the database has none. */
export async function ensureSigningKey(tx: Tx = db()): Promise<void> {
  if ((await tx.signingKey.count()) > 0) return;
  let jwk: unknown;
  try {
    jwk = JSON.parse(env().RECEIPT_SIGNING_KEY);
  } catch {
    throw new Error("RECEIPT_SIGNING_KEY must be an Ed25519 private key as a JSON Web Key");
  }
  const parsed = privateJwkSchema.safeParse(jwk);
  if (!parsed.success) throw new Error("RECEIPT_SIGNING_KEY must be an Ed25519 private key as a JSON Web Key");
  await storeKey(tx, parsed.data);
}

export async function rotateSigningKey(tx: Tx): Promise<{ kid: string; previous: string[] }> {
  const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const previous = await tx.signingKey.findMany({ where: { retiredAt: null }, select: { kid: true } });
  await tx.signingKey.updateMany({ where: { retiredAt: null }, data: { retiredAt: new Date() } });
  const kid = await storeKey(tx, await exportJWK(privateKey));
  return { kid, previous: previous.map((p) => p.kid) };
}

export type ActiveKey = { kid: string; key: CryptoKey | Uint8Array };
let cached: ActiveKey | undefined;

/** The current key; only decrypted again when the current kid changes. */
export async function currentSigningKey(): Promise<ActiveKey> {
  // Asked on every consume, so a rotation on another instance takes effect at once: one statement on the driver.
  const [newest] = await direct().all<{ kid: string }>("SELECT kid FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1");
  if (!newest) {
    await ensureSigningKey();
    return currentSigningKey();
  }
  if (cached?.kid === newest.kid) return cached;
  const row = await db().signingKey.findUniqueOrThrow({ where: { kid: newest.kid }, omit: { privateJwkEnc: false } });
  const jwk = privateJwkSchema.parse(JSON.parse(decryptSecret(row.privateJwkEnc, PURPOSE)));
  cached = { kid: row.kid, key: await importJWK({ ...jwk, alg: "EdDSA" }, "EdDSA") };
  return cached;
}

export async function publicJwks(): Promise<{ keys: JWK[] }> {
  await ensureSigningKey();
  const rows = await db().signingKey.findMany({ orderBy: { createdAt: "desc" }, take: JWKS_SIZE, select: { publicJwk: true } });
  return { keys: rows.map((r) => JSON.parse(r.publicJwk) as JWK) };
}

/** `receipt-key rotate`: a new current key; the JWKS keeps publishing the old one. */
export async function rotateReceiptKey(actor: Actor) {
  await ensureSigningKey();
  return inTransaction(async (tx) => {
    const r = await rotateSigningKey(tx);
    recordAudit({ type: "receipt_key.rotated", actor, data: { kid: r.kid, previous: r.previous } });
    return { kid: r.kid, previous: r.previous };
  });
}
