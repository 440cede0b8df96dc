// Reading a service's secrets back: only these functions decrypt them.
import "server-only";
import type { Tx } from "../db/client";
import { decryptSecret } from "../crypto/at-rest";

export const PURPOSE = {
  webhook: "service.webhook_secret",
  callback: "service.callback_secret",
} as const;

export type ServiceAuth = { id: string; slug: string; rateLimitPerMinute: number; webhookSecrets: string[] };

/** An enabled service by slug with its active webhook secrets (one, or two while rotating). */
export async function findServiceForWebhook(tx: Tx, slug: string): Promise<ServiceAuth | null> {
  const s = await tx.service.findFirst({
    where: { slug, disabledAt: null },
    select: { id: true, slug: true, rateLimitPerMinute: true, webhookSecretEnc: true, webhookSecretPrevEnc: true },
  });
  if (!s) return null;
  const secrets = [s.webhookSecretEnc, s.webhookSecretPrevEnc].filter((v): v is string => v != null).map((v) => decryptSecret(v, PURPOSE.webhook));
  return { id: s.id, slug: s.slug, rateLimitPerMinute: s.rateLimitPerMinute, webhookSecrets: secrets };
}

export async function callbackSecretOf(tx: Tx, serviceId: string): Promise<string> {
  const s = await tx.service.findUniqueOrThrow({ where: { id: serviceId }, select: { callbackSecretEnc: true } });
  return decryptSecret(s.callbackSecretEnc, PURPOSE.callback);
}
