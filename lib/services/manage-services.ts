// Registering agent services and managing their credentials (docs/operations.md).
// Secrets are generated here from a CSPRNG, returned once, and stored
// encrypted (webhook and callback secrets) or hashed (the API token).
import "server-only";
import { db } from "../db/client";
import { inTransaction } from "../db/transaction";
import { holdAuditHead, recordAudit } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { encryptSecret, tokenHash } from "../crypto/at-rest";
import { AppError, parseField } from "../errors";
import { newId, newToken } from "../ids";
import { generateWebhookSecret } from "@countersign/client";
import { callbackUrlSchema, slugSchema } from "./schemas";
import { PURPOSE } from "./service-secrets";
import { finishCredentialRotation, rotateCredential, type Credential } from "./rotate-credential";
import { callbackTargetPolicy, checkCallbackUrlOnSave } from "../callbacks/callback-target";

export type CreatedService = { slug: string; webhook_secret: string; api_token: string; callback_secret: string };

export async function createService(input: { slug: string; callbackUrl?: string | null }, actor: Actor): Promise<CreatedService> {
  const slug = parseField(slugSchema, input.slug, "slug");
  const callbackUrl = input.callbackUrl ? await allowedCallbackUrl(parseField(callbackUrlSchema, input.callbackUrl, "callback_url")) : null;
  const webhookSecret = generateWebhookSecret();
  const callbackSecret = generateWebhookSecret();
  const apiToken = newToken("cs_tok_");
  return inTransaction(async (tx) => {
    await holdAuditHead(tx);
    recordAudit({ type: "service.created", actor, data: { service: slug, callbackUrl: callbackUrl != null } });
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

/** The webhook secret's rotation (rotate-credential.ts), as `service rotate-secret` names it. */
export async function rotateWebhookSecret(slug: string, actor: Actor): Promise<{ slug: string; webhook_secret: string }> {
  const r = await rotateCredential(slug, "webhook-secret", actor);
  return { slug: r.slug, webhook_secret: r.value };
}

export async function finishRotation(slug: string, actor: Actor): Promise<{ slug: string; rotation: "finished" }> {
  const r = await finishCredentialRotation(slug, "webhook-secret", actor);
  return { slug: r.slug, rotation: r.rotation };
}

export async function disableService(slugInput: string, actor: Actor): Promise<{ slug: string; disabled: true }> {
  const slug = slugSchema.parse(slugInput);
  return inTransaction(async (tx) => {
    await holdAuditHead(tx);
    recordAudit({ type: "service.disabled", actor, data: { service: slug } });
    const { count } = await tx.service.updateMany({ where: { slug, disabledAt: null }, data: { disabledAt: new Date() } });
    if (count === 0) throw new AppError("not-found", `no enabled service ${slug}`);
    return { slug, disabled: true as const };
  });
}

/**
 * Refuses a URL callbacks may not reach (lib/callbacks/callback-target.ts),
 * saying why. Notification webhooks are signed POSTs like callbacks, so they
 * go only where a callback may.
 */
async function allowedCallbackUrl(url: string, what = "Callback URL"): Promise<string> {
  const refused = await checkCallbackUrlOnSave(url, callbackTargetPolicy());
  if (refused) throw new AppError("invalid-request", `${what} refused: ${refused.message}.`);
  return url;
}

/** Sets or clears the callback URL (docs/api.md). Deliveries not yet made go to the new URL. */
export async function updateCallbackUrl(
  input: { slug: string; callbackUrl: string | null },
  actor: Actor,
): Promise<{ slug: string; callback_url: string | null }> {
  const slug = slugSchema.parse(input.slug);
  const callbackUrl = input.callbackUrl ? await allowedCallbackUrl(parseField(callbackUrlSchema, input.callbackUrl, "callback_url")) : null;
  return inTransaction(async (tx) => {
    // The head before the service's row, as every service change takes them (no lock-order inversion).
    await holdAuditHead(tx);
    recordAudit({
      type: "service.updated",
      actor,
      data: { service: slug, field: "callback_url", change: callbackUrl ? "set" : "cleared" },
    });
    const { count } = await tx.service.updateMany({ where: { slug }, data: { callbackUrl } });
    if (count === 0) throw new AppError("not-found", `no service ${slug}`);
    return { slug, callback_url: callbackUrl };
  });
}

/**
 * Sets or clears the service's notification webhook URL (docs/notifications.md):
 * its review notices go there too, signed with the service's callback secret.
 * The same rules as the callback URL; the audit event names the change, not the URL.
 */
export async function updateNotifyWebhookUrl(
  input: { slug: string; notifyWebhookUrl: string | null },
  actor: Actor,
): Promise<{ slug: string; notify_webhook_url: string | null }> {
  const slug = slugSchema.parse(input.slug);
  const url = input.notifyWebhookUrl
    ? await allowedCallbackUrl(parseField(callbackUrlSchema, input.notifyWebhookUrl, "notify_webhook_url"), "Notification webhook URL")
    : null;
  return inTransaction(async (tx) => {
    // The head before the service's row, as every service change takes them (no lock-order inversion).
    await holdAuditHead(tx);
    recordAudit({
      type: "service.updated",
      actor,
      data: { service: slug, field: "notify_webhook_url", change: url ? "set" : "cleared" },
    });
    const { count } = await tx.service.updateMany({ where: { slug }, data: { notifyWebhookUrl: url } });
    if (count === 0) throw new AppError("not-found", `no service ${slug}`);
    return { slug, notify_webhook_url: url };
  });
}

/**
 * Admin "Retry now": the delivery becomes due at once, even after the worker
 * gave up. The same conditional update as retryDeliveryNow
 * (lib/callbacks/deliver-callbacks.ts), made here on the transaction so the
 * audit event and the change commit together.
 */
export async function retryCallbackDelivery(deliveryId: string, actor: Actor): Promise<{ delivery: string; retrying: true }> {
  return inTransaction(async (tx) => {
    // The head before the service's row, as every service change takes them (no lock-order inversion).
    await holdAuditHead(tx);
    const d = await tx.callbackDelivery.findUnique({
      where: { id: deliveryId },
      select: { approvalId: true, status: true, service: { select: { slug: true } } },
    });
    if (!d) throw new AppError("not-found", "no such delivery");
    recordAudit({
      type: "callback.retried",
      actor,
      approvalId: d.approvalId,
      data: { delivery: deliveryId, service: d.service.slug, previous_status: d.status },
    });
    const { count } = await tx.callbackDelivery.updateMany({
      where: { id: deliveryId, status: { in: ["pending", "failed"] } },
      data: { status: "pending", nextAttemptAt: new Date() },
    });
    if (count === 0) throw new AppError("conflict", "this callback was already delivered");
    return { delivery: deliveryId, retrying: true as const };
  });
}

export type ServiceView = {
  slug: string;
  callbackUrl: string | null;
  notifyWebhookUrl: string | null;
  disabled: boolean;
  /** Whether the webhook secret is being rotated (two secrets valid). */
  rotating: boolean;
  /** Every credential being rotated (its previous value still valid). */
  rotations: Credential[];
  createdAt: Date;
};

/** Every service, for the admin page. No secret is read (only whether a rotation is in progress). */
export async function listServices(): Promise<ServiceView[]> {
  const rows = await db().service.findMany({
    orderBy: { slug: "asc" },
    select: { slug: true, callbackUrl: true, notifyWebhookUrl: true, disabledAt: true, createdAt: true },
  });
  const slugs = (rows: Array<{ slug: string }>) => new Set(rows.map((r) => r.slug));
  const [webhook, token, callback] = (
    await Promise.all([
      db().service.findMany({ where: { webhookSecretPrevEnc: { not: null } }, select: { slug: true } }),
      db().service.findMany({ where: { apiTokenPrevHash: { not: null } }, select: { slug: true } }),
      db().service.findMany({ where: { callbackSecretPrevEnc: { not: null } }, select: { slug: true } }),
    ])
  ).map(slugs) as [Set<string>, Set<string>, Set<string>];
  return rows.map((s) => ({
    slug: s.slug,
    callbackUrl: s.callbackUrl,
    notifyWebhookUrl: s.notifyWebhookUrl,
    disabled: s.disabledAt != null,
    rotating: webhook.has(s.slug),
    rotations: (
      [
        ["webhook-secret", webhook],
        ["api-token", token],
        ["callback-secret", callback],
      ] as const
    )
      .filter(([, slugs]) => slugs.has(s.slug))
      .map(([c]) => c),
    createdAt: s.createdAt,
  }));
}

export type DeliveryView = {
  id: string;
  approvalId: string;
  /** The event it carries: approval.decided or approval.executed. */
  type: string;
  status: string;
  attempts: number;
  createdAt: Date;
  nextAttemptAt: Date;
  deliveredAt: Date | null;
  log: Array<{ at: Date; statusCode: number | null; errorClass: string | null; durationMs: number }>;
};

/** A service's latest callback deliveries, each with its latest attempts. */
export async function findServiceDeliveries(slugInput: string, take = 20, attemptsEach = 10): Promise<DeliveryView[]> {
  const slug = slugSchema.parse(slugInput);
  const rows = await db().callbackDelivery.findMany({
    where: { service: { slug } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take,
    select: {
      id: true,
      approvalId: true,
      type: true,
      status: true,
      attempts: true,
      createdAt: true,
      nextAttemptAt: true,
      deliveredAt: true,
      attemptsLog: {
        orderBy: { at: "desc" },
        take: attemptsEach,
        select: { at: true, statusCode: true, errorClass: true, durationMs: true },
      },
    },
  });
  return rows.map(({ attemptsLog, ...d }) => ({ ...d, log: attemptsLog }));
}
