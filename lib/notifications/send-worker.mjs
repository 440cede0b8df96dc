// The thread that sends notifications out (lib/notifications/send-thread.ts
// starts it): SMTP, and the HTTP(S) POSTs of Web Push. Each is a dozen small
// steps (connection, TLS, commands and answers, a message encoded in
// chunks), each waiting its turn on the thread it runs on. On the app's main
// thread a burst of webhooks made every turn wait behind them, and one
// message took seconds; here a turn waits for nothing but the network.
// Everything that needs the database, and every check, stays on the main
// thread: this one only sends what it is handed, to the addresses it is handed.
//
// In: { id, smtp: mail } (nodemailer's message fields) or { id, post: { url,
// hostname, addresses, headers, body, timeoutMs } }. Out: { id, ok: true,
// statusCode? } or { id, ok: false, name, code }: an error's class and code
// only, as an SMTP answer can quote the message. { close: true } closes the
// SMTP connections and the kept-alive HTTP(S) ones, and ends the thread.
import { parentPort, workerData } from "node:worker_threads";
import { createTransport } from "nodemailer";
import { closePinnedConnections, pinnedPost } from "../callbacks/pinned-post.mjs";
import { smtpPool } from "./smtp-transport.mjs";

let transport;
const smtp = () => (transport ??= createTransport(smtpPool(workerData.smtpUrl)));

const failure = (id, e) => ({ id, ok: false, name: e instanceof Error ? e.name : "Error", code: typeof e?.code === "string" ? e.code : undefined });

/** One request: SMTP or a POST. A failure of any kind, even a synchronous one, becomes its answer, never the thread's end. */
async function handle(msg) {
  if (msg.smtp) {
    await smtp().sendMail(msg.smtp);
    return {};
  }
  const p = msg.post;
  const statusCode = await pinnedPost(new URL(p.url), p.hostname, p.addresses, p.headers, Buffer.from(p.body), AbortSignal.timeout(p.timeoutMs));
  return { statusCode };
}

parentPort.on("message", (msg) => {
  if (msg.close) {
    transport?.close();
    closePinnedConnections();
    parentPort.close();
    return;
  }
  handle(msg).then(
    (r) => parentPort.postMessage({ id: msg.id, ok: true, ...r }),
    (e) => parentPort.postMessage(failure(msg.id, e)),
  );
});
