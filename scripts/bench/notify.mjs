// Bench scenario (scripts/bench.mjs): how soon a reviewer hears of a request
// while the bench's ingest load runs. A real SMTP server (smtp-server) and a
// local HTTPS push endpoint stand for the mail server and the browser's push
// service; the app sends to them as it would in production (SMTP_URL, VAPID
// keys, a reviewer's push subscription made of a real P-256 key and auth
// secret). Each mail is matched to its request by the review URL in it, each
// push by the URL inside its payload, decrypted here with the browser's keys
// (http_ece), so a push that would not decrypt in a browser is not counted.
import { spawnSync } from "node:child_process";
import { createECDH, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import { join } from "node:path";
import ece from "http_ece";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import webpush from "web-push";

const REVIEW_URL = /\/approvals\/(apr_[a-z0-9]+)/;
const round1 = (x) => (x == null ? null : Math.round(x * 10) / 10);
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] : null;
};

/** A server's close waits for its clients; the bench's clean-up waits 5 s at most. */
const bounded = (p) => Promise.race([p, new Promise((r) => setTimeout(r, 5000).unref())]);

/** Fresh VAPID keys for the app under bench (as web-push makes them). */
export function vapidEnv() {
  const k = webpush.generateVAPIDKeys();
  return { VAPID_PUBLIC_KEY: k.publicKey, VAPID_PRIVATE_KEY: k.privateKey, VAPID_SUBJECT: "mailto:bench@countersign.invalid" };
}

/** The SMTP server: records when it accepted each message, and for which request. */
export function startSmtpSink() {
  const mails = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    size: 1024 * 1024,
    onData(stream, _session, callback) {
      const chunks = [];
      stream.on("data", (c) => chunks.push(c));
      stream.on("end", () => {
        const at = performance.now();
        const raw = Buffer.concat(chunks);
        // Quoted-printable folds long lines with "=\r\n"; unfold before looking.
        const id = REVIEW_URL.exec(raw.toString("latin1").replace(/=\r?\n/g, ""))?.[1];
        if (id) mails.push({ at, approvalId: id });
        else
          simpleParser(raw)
            .then((m) => mails.push({ at, approvalId: REVIEW_URL.exec(`${m.text ?? ""}`)?.[1] ?? null }))
            .catch(() => mails.push({ at, approvalId: null }));
        callback();
      });
    },
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.server.address();
      resolve({ url: `smtp://127.0.0.1:${port}`, mails, stop: () => bounded(new Promise((r) => server.close(() => r()))) });
    });
  });
}

/**
 * The push endpoint, over HTTPS as every push service is (a self-signed
 * certificate the app trusts through NODE_EXTRA_CA_CERTS). Each POST is
 * decrypted with the subscription's keys; the request id comes from the
 * payload's URL.
 */
export function startPushEndpoint(dir) {
  const key = join(dir, "push-key.pem");
  const cert = join(dir, "push-cert.pem");
  const made = spawnSync(
    "openssl",
    ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert, "-days", "1"].concat([
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
    ]),
    { encoding: "utf8" },
  );
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
  // The browser's side of the subscription: a P-256 key pair and a 16-byte auth secret.
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const auth = randomBytes(16);
  const pushes = [];
  const refused = { count: 0 };
  const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const at = performance.now();
      let approvalId;
      try {
        if (!/^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=[\w-]+$/.test(req.headers.authorization ?? "")) throw new Error("no VAPID authorization");
        const plain = ece.decrypt(Buffer.concat(chunks), { version: "aes128gcm", privateKey: ecdh, authSecret: auth }).toString("utf8");
        approvalId = REVIEW_URL.exec(JSON.parse(plain).url ?? "")?.[1] ?? null;
      } catch {
        refused.count++;
        res.writeHead(400).end();
        return;
      }
      pushes.push({ at, approvalId, topic: req.headers.topic ?? null, urgency: req.headers.urgency ?? null });
      res.writeHead(201).end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        endpoint: `https://127.0.0.1:${port}/push/bench-${randomBytes(8).toString("hex")}`,
        caFile: cert,
        keys: { p256dh: ecdh.getPublicKey("base64url"), auth: auth.toString("base64url") },
        pushes,
        refused,
        stop: () => {
          server.closeAllConnections();
          return bounded(new Promise((r) => server.close(() => r())));
        },
      });
    });
  });
}

/**
 * Waits until every request has its messages or nothing new has arrived for
 * `quietMs` (bounded by `maxMs`), so the drain does not spill into the next phase.
 */
export async function waitForDrain(sink, push, { quietMs = 5000, maxMs = 240_000 } = {}) {
  const t0 = performance.now();
  let last = -1;
  let since = performance.now();
  for (;;) {
    const n = sink.mails.length + push.pushes.length;
    if (n !== last) {
      last = n;
      since = performance.now();
    }
    if (performance.now() - since >= quietMs || performance.now() - t0 >= maxMs) return round1((performance.now() - t0) / 1000);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Latency from each request's 2xx answer to each message about it; `accepted`: approval id → time of the answer. */
export function notifyLatencies(accepted, arrivals) {
  const ms = [];
  const seen = new Set();
  let unmatched = 0;
  for (const a of arrivals) {
    const t = a.approvalId ? accepted.get(a.approvalId) : undefined;
    if (t === undefined) {
      unmatched++; // a message about a request outside the measured load (warm-up, set-up)
      continue;
    }
    seen.add(a.approvalId);
    ms.push(a.at - t);
  }
  return {
    messages: ms.length,
    requests: accepted.size,
    requests_reached: seen.size,
    other_messages: unmatched,
    p50: round1(quantile(ms, 0.5)),
    p95: round1(quantile(ms, 0.95)),
    max: ms.length ? round1(Math.max(...ms)) : null,
  };
}

/**
 * The two rows for the bench table. A request none of whose messages had
 * arrived when the wait ended fails the figure: its latency is unknown, and
 * leaving it out would flatter the p95.
 */
export function notifyFigures(n, { when = "during the ingest load", keySuffix = "" } = {}) {
  const row = (key, what, r) => ({
    key: `${key}${keySuffix}`,
    figure: `Webhook accepted → ${what}, p95 (${when})`,
    value: r.p95 == null ? null : r.p95 / 1000,
    detail:
      r.p95 == null
        ? `no message arrived (${r.requests} requests)`
        : `p50 ${(r.p50 / 1000).toFixed(2)} s, max ${(r.max / 1000).toFixed(2)} s; ${r.messages} messages for ${r.requests_reached} of ${r.requests} requests` +
          (r.requests_reached < r.requests ? ` (the rest had none ${n.drain_seconds} s after the load)` : ""),
    unit: " s",
    target: "≤ 2 s",
    met: (v) => v <= 2 && r.requests_reached === r.requests,
  });
  return [row("notify_email_p95", "message accepted by the SMTP server", n.email), row("notify_push_p95", "push endpoint hit", n.push)];
}
