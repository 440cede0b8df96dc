// Reading a service's secrets back: only these functions decrypt them.
import "server-only";
import type { Tx } from "../db/client";
import { type Sql } from "../db/sql";
import { decryptSecret } from "../crypto/at-rest";

export const PURPOSE = {
  webhook: "service.webhook_secret",
  callback: "service.callback_secret",
} as const;

export type ServiceAuth = {
  id: string;
  slug: string;
  rateLimitPerMinute: number;
  webhookSecrets: string[];
};

// Decrypting is the costly part of the lookup on every webhook; the same
// ciphertext always gives the same secret, so a small cache keyed by it is
// exact (a rotation stores a new ciphertext). Bounded: a few services.
const decrypted = new Map<string, string>();
function webhookSecret(enc: string): string {
  let secret = decrypted.get(enc);
  if (secret === undefined) {
    secret = decryptSecret(enc, PURPOSE.webhook);
    if (decrypted.size >= 256) decrypted.clear();
    decrypted.set(enc, secret);
  }
  return secret;
}

/** An enabled service by slug with its active webhook secrets (one, or two while rotating). */
export async function findServiceForWebhook(sql: Sql, slug: string): Promise<ServiceAuth | null> {
  const [s] = await sql.all<{
    id: string;
    slug: string;
    rate_limit_per_minute: number | bigint;
    webhook_secret_enc: string;
    webhook_secret_prev_enc: string | null;
  }>(
    `SELECT id, slug, rate_limit_per_minute, webhook_secret_enc, webhook_secret_prev_enc
     FROM services WHERE slug = ? AND disabled_at IS NULL`,
    [slug],
  );
  if (!s) return null;
  const secrets = [s.webhook_secret_enc, s.webhook_secret_prev_enc].filter((v): v is string => v != null).map(webhookSecret);
  return { id: s.id, slug: s.slug, rateLimitPerMinute: Number(s.rate_limit_per_minute), webhookSecrets: secrets };
}

/** The callback secrets to sign with: the current one, and during a rotation the previous one too (rotate-credential.ts). */
export async function callbackSecretsOf(tx: Tx, serviceId: string): Promise<string[]> {
  const s = await tx.service.findUniqueOrThrow({ where: { id: serviceId }, select: { callbackSecretEnc: true, callbackSecretPrevEnc: true } });
  return [s.callbackSecretEnc, s.callbackSecretPrevEnc].filter((v): v is string => v !== null).map((enc) => decryptSecret(enc, PURPOSE.callback));
}
