"use server";
// Admin actions on services, each through runAction (origin, session,
// admin role read now). New credentials travel only in the action's answer.
import { createService, disableService, retryCallbackDelivery, updateCallbackUrl, updateNotifyWebhookUrl } from "@/lib/services/manage-services";
import { CREDENTIAL_WORDS, finishCredentialRotation, RotationInProgressError, rotateCredential } from "@/lib/services/rotate-credential";
import { ADMIN_WORDING, runAction, type ActionState } from "@/lib/auth/guards";
import { field, optionalField } from "@/lib/http/form-fields";

/** The forms' labels (page.tsx), so a refusal names the field as the page does. */
const LABELS = { slug: "Slug", callback_url: "Callback URL", notify_webhook_url: "Notification webhook URL" };
const ADMIN = { name: "admin action", path: "/admin/services", wording: ADMIN_WORDING, labels: LABELS };

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

/** Which credential a rotation form is about (a hidden field; the webhook secret when missing). */
const credentialOf = (fd: FormData) => field(fd, "credential") || "webhook-secret";

/** A second start before the finish: the page's way to finish it is its own button, not a command-line flag. */
function refusedAsInProgress(e: unknown): NonNullable<ActionState> {
  if (!(e instanceof RotationInProgressError)) throw e;
  const words = CREDENTIAL_WORDS[e.credential];
  return {
    ok: false,
    message: `A rotation of the ${words} of ${e.slug} is already in progress. Press “Finish ${words} rotation” once everything uses the new ${words}, then rotate again.`,
  };
}

export async function rotateSecretAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:services", ADMIN, async ({ actor }) => {
    let r: Awaited<ReturnType<typeof rotateCredential>>;
    try {
      r = await rotateCredential(field(fd, "slug"), credentialOf(fd), actor);
    } catch (e) {
      return refusedAsInProgress(e);
    }
    const words = CREDENTIAL_WORDS[r.credential];
    const label = `New ${words}`;
    return {
      ok: true,
      message: `${label} for ${r.slug}. The old one stays valid until you finish the rotation.`,
      secrets: [{ label, value: r.value }],
    };
  });
}

export async function finishRotationAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:services", ADMIN, async ({ actor }) => {
    const r = await finishCredentialRotation(field(fd, "slug"), credentialOf(fd), actor);
    return { ok: true, message: `Rotation finished for ${r.slug}: only the new ${CREDENTIAL_WORDS[r.credential]} is valid now.` };
  });
}

export async function disableServiceAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:services", ADMIN, async ({ actor }) => {
    const r = await disableService(field(fd, "slug"), actor);
    return { ok: true, message: `Service ${r.slug} disabled for good: its webhooks and API tokens are refused.` };
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
