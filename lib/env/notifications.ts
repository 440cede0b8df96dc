// Notifications: email (SMTP or the local mailbox) and the notification webhook.
import { z } from "zod";
import { doc } from "./groups";
import { flag, retryBaseMs } from "./values";

export const notificationVariables = {
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^\s]+$/, "SMTP_URL must be an smtp:// or smtps:// URL")
    .optional()
    .meta(doc("notifications", "Email to the reviewers who may decide: `smtp://` or `smtps://`, credentials in the URL (docs/notifications.md).")),
  SMTP_FROM: z.string().min(3).default("Countersign <countersign@localhost>").meta(doc("notifications", "The emails' sender.")),
  NOTIFY_LOCAL_MAILBOX: flag.meta(
    doc("notifications", "Without `SMTP_URL`: `1` keeps email in the local mailbox at `/admin/outbox`.", "`1` in local mode"),
  ),
  NOTIFY_WEBHOOK_URL: z
    .url()
    .optional()
    .meta(
      doc(
        "notifications",
        "One signed `approval.needs_review` event per new request, for Teams, PagerDuty or an on-call tool (Standard Webhooks; docs/notifications.md).",
      ),
    ),
  NOTIFY_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, "NOTIFY_WEBHOOK_SECRET must be whsec_ followed by a base64 key of 24 bytes or more")
    .optional()
    .meta(doc("notifications", "Signs those events: `whsec_` and a base64 key of 24 bytes or more. Required with `NOTIFY_WEBHOOK_URL`.")),
  NOTIFY_RETRY_BASE_MS: retryBaseMs().meta(
    doc(
      "notifications",
      "The first retry delay of a notification that could not be sent, in milliseconds; later ones double, capped at an hour, for over 24 hours.",
    ),
  ),
};
