// How Countersign talks SMTP (nodemailer), shared by the sending thread
// (smtp-worker.mjs) and the tests. Plain JavaScript: a worker thread loads it
// as it is, outside the app's build.
import { connect } from "node:net";
import SMTPPool from "nodemailer/lib/smtp-pool/index.js";

/**
 * SMTP_URL's query may override any of it (`?maxConnections=2`). A pool of
 * kept-open connections: a new SMTP session per message (connect, greeting,
 * EHLO) costs far more than the message. Bounded waits: a stalled server
 * must fail an attempt (and be retried), not hold the lease.
 */
const SMTP_DEFAULTS = Object.freeze({
  maxConnections: 4,
  maxMessages: 1000,
  connectionTimeout: 10_000,
  greetingTimeout: 10_000,
  socketTimeout: 20_000,
});

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
function connectWithoutDelay(options, callback) {
  // nodemailer's own defaults: port 465 for TLS from the start, 587 otherwise.
  const port = options.port ?? (options.secure ? 465 : 587);
  const socket = connect({ host: options.host ?? "localhost", port, noDelay: true });
  // nodemailer listens for errors from the next turn on; one before that must not be unhandled.
  socket.once("error", () => undefined);
  callback(null, { connection: socket });
}

/** The pool for an SMTP URL: its query's options win over the defaults. */
export function smtpPool(smtpUrl) {
  return new SMTPPool({ ...SMTP_DEFAULTS, url: smtpUrl, pool: true, getSocket: connectWithoutDelay });
}
