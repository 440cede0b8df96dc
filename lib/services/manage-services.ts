// Registering agent services and managing their credentials (CONTRACT §8).
// Secrets are generated here from a CSPRNG, returned once, and stored
// encrypted (webhook and callback secrets) or hashed (the API token).
import "server-only";
import { inTransaction } from "../db/transaction";
import { appendAuditEvent } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { encryptSecret, tokenHash } from "../crypto/at-rest";
import { AppError } from "../errors";
import { newId, newToken } from "../ids";
import { generateWebhookSecret } from "../webhooks/standard-webhooks";
import { callbackUrlSchema, slugSchema } from "./schemas";
import { PURPOSE } from "./service-secrets";

export type CreatedService = { slug: string; webhook_secret: string; api_token: string; callback_secret: string };

export async function createService(input: { slug: string; callbackUrl?: string | null }, actor: Actor): Promise<CreatedService> {
  const slug = slugSchema.parse(input.slug);
  const callbackUrl = input.callbackUrl ? callbackUrlSchema.parse(input.callbackUrl) : null;
  const webhookSecret = generateWebhookSecret();
  const callbackSecret = generateWebhookSecret();
  const apiToken = newToken("cs_tok_");
  return inTransaction(async (tx) => {
    await appendAuditEvent(tx, { type: "service.created", actor, data: { service: slug, callbackUrl: callbackUrl != null } });
    if (await tx.service.findUnique({ where: { slug }, select: { id: true } })) {
      throw new AppError("conflict", `a service with slug ${slug} exists`);
    }
    await tx.service.create({
      data: {
        id: newId("svc"),
        slug,
        apiTokenHash: tokenHash(apiToken),
        webhookSecretEnc: encryptSecret(webhookSecret, PURPOSE.webhook),
        callbackSecretEnc: encryptSecret(callbackSecret, PURPOSE.callback),
        callbackUrl,
      },
    });
    return { slug, webhook_secret: webhookSecret, api_token: apiToken, callback_secret: callbackSecret };
  });
}

/**
 * Starts a rotation: a new secret becomes current and the old one stays valid
 * until the rotation is finished. Rotating again mid-rotation is refused, so a
 * secret in use is never dropped silently.
 */
export async function rotateWebhookSecret(slugInput: string, actor: Actor): Promise<{ slug: string; webhook_secret: string }> {
  const slug = slugSchema.parse(slugInput);
  const secret = generateWebhookSecret();
  return inTransaction(async (tx) => {
    await appendAuditEvent(tx, { type: "service.secret_rotated", actor, data: { service: slug, step: "started" } });
    const s = await tx.service.findUnique({ where: { slug }, select: { id: true, webhookSecretEnc: true, webhookSecretPrevEnc: true } });
    if (!s) throw new AppError("not-found", `no service ${slug}`);
    if (s.webhookSecretPrevEnc) throw new AppError("conflict", "a rotation is in progress; finish it first (--finish)");
    await tx.service.update({
      where: { id: s.id },
      data: { webhookSecretPrevEnc: s.webhookSecretEnc, webhookSecretEnc: encryptSecret(secret, PURPOSE.webhook) },
    });
    return { slug, webhook_secret: secret };
  });
}

export async function finishRotation(slugInput: string, actor: Actor): Promise<{ slug: string; rotation: "finished" }> {
  const slug = slugSchema.parse(slugInput);
  return inTransaction(async (tx) => {
    await appendAuditEvent(tx, { type: "service.secret_rotated", actor, data: { service: slug, step: "finished" } });
    const { count } = await tx.service.updateMany({
      where: { slug, webhookSecretPrevEnc: { not: null } },
      data: { webhookSecretPrevEnc: null },
    });
    if (count === 0) throw new AppError("conflict", `no rotation in progress for ${slug}`);
    return { slug, rotation: "finished" as const };
  });
}

export async function disableService(slugInput: string, actor: Actor): Promise<{ slug: string; disabled: true }> {
  const slug = slugSchema.parse(slugInput);
  return inTransaction(async (tx) => {
    await appendAuditEvent(tx, { type: "service.disabled", actor, data: { service: slug } });
    const { count } = await tx.service.updateMany({ where: { slug, disabledAt: null }, data: { disabledAt: new Date() } });
    if (count === 0) throw new AppError("not-found", `no enabled service ${slug}`);
    return { slug, disabled: true as const };
  });
}
