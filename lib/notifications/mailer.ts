// Email out: SMTP through nodemailer when SMTP_URL is set. Without it, with
// NOTIFY_LOCAL_MAILBOX=1 (which `npm start` sets in local mode), mail stays in
// the local mailbox (the outbox rows, shown to admins at /admin/outbox) so a
// newcomer sees notifications work; otherwise the email channel is off.
import "server-only";
import { createTransport, type Transporter } from "nodemailer";
import { env } from "../env";

export type EmailChannel = "smtp" | "local" | "off";

export function emailChannel(): EmailChannel {
  const e = env();
  if (e.SMTP_URL) return "smtp";
  return e.NOTIFY_LOCAL_MAILBOX ? "local" : "off";
}

let transport: Transporter | undefined;

function smtp(): Transporter {
  // Bounded waits: a stalled server must fail an attempt (and be retried), not hold the lease.
  transport ??= createTransport(env().SMTP_URL!, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 });
  return transport;
}

export type Email = { to: string; subject: string; text: string; html: string; messageId: string };

/** Hands one message to the SMTP server; throws if it is not accepted. */
export async function sendEmail(m: Email): Promise<void> {
  await smtp().sendMail({
    from: env().SMTP_FROM,
    to: m.to,
    subject: m.subject,
    text: m.text,
    html: m.html,
    // Stable across retries, so a receiving server can drop a duplicate.
    messageId: `<${m.messageId}@countersign>`,
  });
}
