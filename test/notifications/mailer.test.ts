// sendEmail against a real SMTP server started here (smtp-server): messages
// share a few kept-open connections (opened by Countersign, handed to
// nodemailer), SMTP_URL's query overrides the defaults, and a server that
// never greets fails the attempt within the configured wait instead of holding it.
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SMTPServer } from "smtp-server";
import { freePort } from "../helpers/ports";
import { smtpPool } from "@/lib/notifications/smtp-transport.mjs";

let smtp: SMTPServer;
let port: number;
let connections = 0;
const received: string[] = [];
let mailer: typeof import("@/lib/notifications/mailer");

beforeAll(async () => {
  port = await freePort();
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onConnect(_session, callback) {
      connections++;
      callback();
    },
    onData(stream, session, callback) {
      stream.resume();
      stream.on("end", () => {
        received.push(session.envelope.rcptTo.map((r) => r.address).join(","));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(port, "127.0.0.1", resolve));
  Object.assign(process.env, { SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_FROM: "countersign@example.com" });
  mailer = await import("@/lib/notifications/mailer");
});
afterAll(async () => {
  (await import("@/lib/notifications/send-thread")).stopSendThread();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

describe("smtpPool", () => {
  it("pools connections with bounded waits, and SMTP_URL's query overrides them", () => {
    const pool = smtpPool("smtps://user:p%40ss@mail.example.com:465/?maxConnections=2&tls.rejectUnauthorized=false");
    expect(pool.options).toMatchObject({
      host: "mail.example.com",
      port: 465,
      secure: true,
      auth: { user: "user", pass: "p@ss" },
      maxConnections: 2,
      maxMessages: 1000,
      greetingTimeout: 10_000,
      tls: { rejectUnauthorized: false },
    });
    pool.close();
  });
});

describe("sendEmail", () => {
  it("sends a burst of messages over at most four connections", async () => {
    const to = Array.from({ length: 24 }, (_, i) => `reviewer${i}@example.com`);
    await Promise.all(
      to.map((address, i) => mailer.sendEmail({ to: address, subject: "Review needed", text: "t", html: "<p>t</p>", messageId: `ntf_${i}` })),
    );
    expect([...received].sort()).toEqual([...to].sort());
    expect(connections).toBeGreaterThanOrEqual(1);
    expect(connections).toBeLessThanOrEqual(4);
  });
});

describe("a mail server that goes down and comes back", () => {
  it("refuses while it is down, every time, and sends again once it is back", async () => {
    const outagePort = await freePort();
    const got: string[] = [];
    const server = () =>
      new SMTPServer({
        authOptional: true,
        disabledCommands: ["STARTTLS"],
        logger: false,
        closeTimeout: 1, // going down ends open sessions ("421 Server shutting down")
        onData(stream, session, callback) {
          stream.resume();
          stream.on("end", () => {
            got.push(session.envelope.rcptTo[0]!.address);
            callback();
          });
        },
      });
    const { createTransport } = await import("nodemailer");
    const transport = createTransport(smtpPool(`smtp://127.0.0.1:${outagePort}`));
    const send = (to: string) =>
      transport.sendMail({ from: "a@example.com", to, text: "t" }).then(
        () => "sent",
        (e: { code?: string }) => e.code ?? "error",
      );
    let up = server();
    await new Promise<void>((resolve) => up.listen(outagePort, "127.0.0.1", resolve));
    expect(await Promise.all(["a@x.example", "b@x.example", "c@x.example"].map(send))).toEqual(["sent", "sent", "sent"]);
    await new Promise<void>((resolve) => up.close(() => resolve()));
    // More failures than the pool has connections: none may leave a slot taken for good.
    const down = await Promise.all(Array.from({ length: 10 }, (_, i) => send(`down${i}@x.example`)));
    expect(down.every((r) => r !== "sent")).toBe(true);
    up = server();
    await new Promise<void>((resolve) => up.listen(outagePort, "127.0.0.1", resolve));
    expect(await Promise.all(["d@x.example", "e@x.example"].map(send))).toEqual(["sent", "sent"]);
    expect(got.sort()).toEqual(["a@x.example", "b@x.example", "c@x.example", "d@x.example", "e@x.example"]);
    transport.close();
    await new Promise<void>((resolve) => up.close(() => resolve()));
  });
});

describe("a server that accepts the connection and never greets", () => {
  let silent: Server;
  const sockets: Socket[] = [];
  afterAll(() => {
    for (const s of sockets) s.destroy();
    silent?.close();
  });

  it("fails within the greeting wait SMTP_URL sets", async () => {
    const silentPort = await freePort();
    silent = createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(silentPort, "127.0.0.1", resolve));
    const { createTransport } = await import("nodemailer");
    const transport = createTransport(smtpPool(`smtp://127.0.0.1:${silentPort}/?greetingTimeout=300`));
    const started = Date.now();
    await expect(transport.sendMail({ from: "a@example.com", to: "b@example.com", text: "t" })).rejects.toMatchObject({ code: "ETIMEDOUT" });
    // Half nodemailer's own default greeting wait (30 s): the URL's 300 ms is what ended it.
    expect(Date.now() - started).toBeLessThan(15_000);
    transport.close();
  });
});
