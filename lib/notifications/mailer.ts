// Email out: SMTP through nodemailer when SMTP_URL is set. Without it, with
// NOTIFY_LOCAL_MAILBOX=1 (which `npm start` sets in local mode), mail stays in
// the local mailbox (the outbox rows, shown to admins at /admin/outbox) so a
// newcomer sees notifications work; otherwise the email channel is off.
import "server-only";
import { env } from "../env";
import { sendSmtp } from "./send-thread";

export type EmailChannel = "smtp" | "local" | "off";

/** The outcome of an email kept in the local mailbox (no SMTP_URL): written, never sent. */
export const KEPT_LOCALLY = "kept in the local mailbox (SMTP_URL is not set)";

export function emailChannel(): EmailChannel {
  const e = env();
  if (e.SMTP_URL) return "smtp";
  return e.NOTIFY_LOCAL_MAILBOX ? "local" : "off";
}

export type Email = { to: string; subject: string; text: string; html: string; messageId: string };

/** Hands one message to the SMTP server (on the sending thread, send-worker.mjs); throws if it is not accepted. */
export async function sendEmail(m: Email): Promise<void> {
  await sendSmtp({
    from: env().SMTP_FROM,
    to: m.to,
    subject: m.subject,
    text: m.text,
    html: m.html,
    // Stable across retries, so a receiving server can drop a duplicate.
    messageId: `<${m.messageId}@countersign>`,
  });
}
