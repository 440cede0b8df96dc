// A real SMTP server (smtp-server) on a local port that keeps every message it
// accepts, parsed with mailparser. It can be stopped and started again on the
// same port to stand for a mail server outage; stopping ends open sessions.
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export type ReceivedMail = { to: string[]; from: string; subject: string; text: string; html: string; messageId: string };

export type SmtpSink = {
  port: number;
  url: string;
  mails: ReceivedMail[];
  start: () => Promise<void>;
  stop: () => Promise<void>;
  /** Resolves when at least `count` messages have arrived; throws after `timeoutMs`. */
  waitFor: (count: number, timeoutMs?: number) => Promise<ReceivedMail[]>;
};

export function smtpSink(port: number): SmtpSink {
  const mails: ReceivedMail[] = [];
  let server: SMTPServer | null = null;

  const make = () =>
    new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      // An outage: stop() ends open sessions at once ("421 Server shutting
      // down"), as a mail server going down would, instead of serving the
      // app's kept-open connections for another 30 s.
      closeTimeout: 1,
      onData(stream, session, callback) {
        simpleParser(stream)
          .then((m) => {
            mails.push({
              to: session.envelope.rcptTo.map((r) => r.address),
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
              subject: m.subject ?? "",
              text: m.text ?? "",
              html: typeof m.html === "string" ? m.html : "",
              messageId: m.messageId ?? "",
            });
            callback();
          })
          .catch((e: Error) => callback(e));
      },
    });

  const sink: SmtpSink = {
    port,
    url: `smtp://127.0.0.1:${port}`,
    mails,
    start: () =>
      new Promise((resolve, reject) => {
        server = make();
        server.once("error", reject);
        server.listen(port, "127.0.0.1", () => resolve());
      }),
    stop: () =>
      new Promise((resolve) => {
        if (!server) return resolve();
        server.close(() => resolve());
        server = null;
      }),
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (mails.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} messages, got ${mails.length}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      return mails;
    },
  };
  return sink;
}
