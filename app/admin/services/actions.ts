"use server";
// Admin actions on services, each through runAction (origin, session,
// admin role read now). New credentials travel only in the action's answer.
import {
  createService,
  disableService,
  finishRotation,
  retryCallbackDelivery,
  rotateWebhookSecret,
  updateCallbackUrl,
  updateNotifyWebhookUrl,
} from "@/lib/services/manage-services";
import { ADMIN_WORDING, runAction, type ActionState } from "@/lib/auth/guards";
import { field, optionalField } from "@/lib/http/form-fields";

const ADMIN = { name: "admin action", path: "/admin/services", wording: ADMIN_WORDING };

export async function createServiceAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:services", ADMIN, async ({ actor }) => {
    const s = await createService({ slug: field(fd, "slug"), callbackUrl: optionalField(fd, "callbackUrl") }, actor);
    return {
      ok: true,
      message: `Service ${s.slug} created.`,
      secrets: [
        { label: "Webhook secret", value: s.webhook_secret },
        { label: "API token", value: s.api_token },
        { label: "Callback secret", value: s.callback_secret },
      ],
    };
  });
}

export async function rotateSecretAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:services", ADMIN, async ({ actor }) => {
    const r = await rotateWebhookSecret(field(fd, "slug"), actor);
    return {
      ok: true,
      message: `New webhook secret for ${r.slug}. The old one stays valid until you finish the rotation.`,
      secrets: [{ label: "New webhook secret", value: r.webhook_secret }],
    };
  });
}

export async function finishRotationAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:services", ADMIN, async ({ actor }) => {
    const r = await finishRotation(field(fd, "slug"), actor);
    return { ok: true, message: `Rotation finished for ${r.slug}: only the new secret is valid now.` };
  });
}

export async function disableServiceAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:services", ADMIN, async ({ actor }) => {
    const r = await disableService(field(fd, "slug"), actor);
    return { ok: true, message: `Service ${r.slug} disabled: its webhooks and API token are refused.` };
  });
}

export async function updateCallbackUrlAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:services", ADMIN, async ({ actor }) => {
    const r = await updateCallbackUrl({ slug: field(fd, "slug"), callbackUrl: optionalField(fd, "callbackUrl") ?? null }, actor);
    return { ok: true, message: r.callback_url ? `Callback URL of ${r.slug} saved.` : `Callback URL of ${r.slug} removed.` };
  });
}

export async function updateNotifyWebhookUrlAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:services", ADMIN, async ({ actor }) => {
    const r = await updateNotifyWebhookUrl({ slug: field(fd, "slug"), notifyWebhookUrl: optionalField(fd, "notifyWebhookUrl") ?? null }, actor);
    return {
      ok: true,
      message: r.notify_webhook_url ? `Notification webhook URL of ${r.slug} saved.` : `Notification webhook URL of ${r.slug} removed.`,
    };
  });
}

export async function retryDeliveryAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:services", ADMIN, async ({ actor }) => {
    await retryCallbackDelivery(field(fd, "deliveryId"), actor);
    return { ok: true, message: "Retry queued: the callback is sent again within seconds." };
  });
}
