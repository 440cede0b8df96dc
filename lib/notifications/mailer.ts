// Email out: SMTP through nodemailer when SMTP_URL is set. Without it, with
// NOTIFY_LOCAL_MAILBOX=1 (which `npm start` sets in local mode), mail stays in
// the local mailbox (the outbox rows, shown to admins at /admin/outbox) so a
// newcomer sees notifications work; otherwise the email channel is off.
import "server-only";
import { connect, type Socket } from "node:net";
import { createTransport, type Transporter } from "nodemailer";
import SMTPPool from "nodemailer/lib/smtp-pool";
import { env } from "../env";

export type EmailChannel = "smtp" | "local" | "off";

export function emailChannel(): EmailChannel {
  const e = env();
  if (e.SMTP_URL) return "smtp";
  return e.NOTIFY_LOCAL_MAILBOX ? "local" : "off";
}

let transport: Transporter | undefined;

/**
 * How Countersign talks SMTP; SMTP_URL's query may override any of it
 * (`?maxConnections=2`). A pool of kept-open connections: a new SMTP session
 * per message (connect, greeting, EHLO) costs far more than the message.
 * Bounded waits: a stalled server must fail an attempt (and be retried), not
 * hold the lease.
 */
export const SMTP_DEFAULTS = {
  maxConnections: 4,
  maxMessages: 1000,
  connectionTimeout: 10_000,
  greetingTimeout: 10_000,
  socketTimeout: 20_000,
} as const;

/**
 * The pool's connections, opened here so Nagle's algorithm is off: SMTP is
 * a command-and-answer protocol, and with it on the message's last short
 * write waits for the server's delayed ACK, some 40 ms a message
 * (measured: 45 ms a message over one connection with it, 6 ms without).
 * The socket is handed over at once, unconnected: nodemailer then handles
 * every failure its usual way (a refused connection, a greeting that never
 * comes within greetingTimeout) and does the rest (STARTTLS or TLS, EHLO,
 * AUTH). A failure reported through this callback instead would leave the
 * pool's slot taken for good (nodemailer 7: the pool resource is never
 * released), and the pool would stall after a few.
 */
function connectWithoutDelay(options: SMTPPool.Options, callback: (err: Error | null, socketOptions?: { connection: Socket }) => void) {
  // nodemailer's own defaults: port 465 for TLS from the start, 587 otherwise.
  const port = options.port ?? (options.secure ? 465 : 587);
  const socket = connect({ host: options.host ?? "localhost", port, noDelay: true });
  // nodemailer listens for errors from the next turn on; one before that must not be unhandled.
  socket.once("error", () => undefined);
  callback(null, { connection: socket });
}

/** The pool for SMTP_URL: its query's options win over the defaults. */
export function smtpPool(smtpUrl: string): SMTPPool {
  return new SMTPPool({ ...SMTP_DEFAULTS, url: smtpUrl, pool: true, getSocket: connectWithoutDelay });
}

function smtp(): Transporter {
  transport ??= createTransport(smtpPool(env().SMTP_URL!));
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

/** Closes the pool's kept-open connections (on shutdown); the next message opens new ones. */
export function closeSmtpConnections(): void {
  transport?.close();
  transport = undefined;
}
