// A push service on this machine, for tests: it accepts Web Push requests
// as a vendor's would, over HTTPS (the run's certificate, which every test
// process and app trusts: test/helpers/test-tls.ts), checks each one's VAPID
// signature (RFC 8292) and decrypts its body (RFC 8291) with the
// subscription keys the test made, so a test sees exactly what a browser
// would. It answers with the status it is told to (201 by default) per
// subscription, and counts every connection made to it.
import { createECDH, randomBytes, type ECDH } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { importJWK, jwtVerify } from "jose";
import { testCertificate } from "../helpers/test-tls";

type Ece = { decrypt(body: Buffer, params: { version: "aes128gcm"; privateKey: ECDH; authSecret: Buffer }): Buffer };
const ece = createRequire(import.meta.url)("http_ece") as Ece;

/** What the browser keeps (the private half) and what it hands the server (PushSubscription.toJSON()). */
export type TestSubscription = {
  id: string;
  endpoint: string;
  ecdh: ECDH;
  authSecret: Buffer;
  json: { endpoint: string; expirationTime: null; keys: { p256dh: string; auth: string } };
};

export type ReceivedPush = {
  subscription: string;
  /** The decrypted body, or null when it could not be decrypted (recorded in `problems`). */
  plaintext: Buffer | null;
  /** The raw encrypted body as received. */
  raw: Buffer;
  ttl: string | undefined;
  topic: string | undefined;
  urgency: string | undefined;
  contentEncoding: string | undefined;
  /** The VAPID Authorization header, as sent (already verified). */
  authorization: string;
  status: number;
};

export type PushEndpoint = {
  /** https://127.0.0.1:<port> */
  origin: string;
  port: number;
  /** The certificate authorities the app must trust to reach it (NODE_EXTRA_CA_CERTS). */
  caFile: string;
  /** TCP connections accepted so far, whether or not a request followed. */
  connections: () => number;
  received: ReceivedPush[];
  /** Requests refused before decryption (bad VAPID, unknown subscription, …), in words. */
  problems: string[];
  subscribe: () => TestSubscription;
  /** The status later requests to this subscription get (201, 404, 410, 500…). */
  answer: (subscriptionId: string, status: number) => void;
  /** The VAPID public key requests must be signed with (checked when set). */
  expectKey: (publicKey: string) => void;
  close: () => Promise<void>;
};

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => resolve(Buffer.concat(parts)));
    req.on("error", reject);
  });
}

/** Verifies `vapid t=<jwt>, k=<key>`: an ES256 JWT by k, for this origin, not expired. Returns a problem or null. */
async function checkVapid(header: string | undefined, origin: string, expectedKey: string | null): Promise<string | null> {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? "");
  if (!m) return "no vapid Authorization header";
  const [, token, k] = m as unknown as [string, string, string];
  if (expectedKey && k !== expectedKey) return "signed with another key";
  const point = Buffer.from(k, "base64url");
  if (point.length !== 65 || point[0] !== 4) return "k is not a P-256 public key";
  const key = await importJWK(
    { kty: "EC", crv: "P-256", x: point.subarray(1, 33).toString("base64url"), y: point.subarray(33).toString("base64url") },
    "ES256",
  );
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ["ES256"], audience: origin });
    if (typeof payload.exp !== "number" || payload.exp * 1000 <= Date.now()) return "expired";
    if (payload.exp * 1000 > Date.now() + 24 * 3600 * 1000 + 60_000) return "exp more than 24 h ahead";
    if (typeof payload.sub !== "string" || !/^(mailto:|https:)/.test(payload.sub)) return "no sub contact";
    return null;
  } catch (e) {
    return `JWT refused (${(e as Error).name})`;
  }
}

export async function pushEndpoint(): Promise<PushEndpoint> {
  const subscriptions = new Map<string, TestSubscription>();
  const statuses = new Map<string, number>();
  const received: ReceivedPush[] = [];
  const problems: string[] = [];
  let expectedKey: string | null = null;
  let origin = "";

  const tls = testCertificate();
  let connections = 0;
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    void (async () => {
      const body = await readBody(req);
      const id = /^\/push\/([a-f0-9]+)$/.exec(req.url ?? "")?.[1];
      const sub = id ? subscriptions.get(id) : undefined;
      if (req.method !== "POST" || !sub) {
        problems.push("unknown subscription");
        res.writeHead(404).end();
        return;
      }
      const vapid = await checkVapid(req.headers.authorization, origin, expectedKey);
      if (vapid) {
        problems.push(vapid);
        res.writeHead(403).end();
        return;
      }
      let plaintext: Buffer | null = null;
      try {
        plaintext = ece.decrypt(body, { version: "aes128gcm", privateKey: sub.ecdh, authSecret: sub.authSecret });
      } catch (e) {
        problems.push(`could not decrypt (${(e as Error).message})`);
      }
      const status = statuses.get(sub.id) ?? 201;
      received.push({
        subscription: sub.id,
        plaintext,
        raw: body,
        ttl: req.headers.ttl as string | undefined,
        topic: req.headers.topic as string | undefined,
        urgency: req.headers.urgency as string | undefined,
        contentEncoding: req.headers["content-encoding"],
        authorization: req.headers.authorization ?? "",
        status,
      });
      // A vendor's error answer may quote things; the sender must not repeat it.
      res.writeHead(status, { "content-type": "text/plain" }).end(status >= 400 ? `refused ${sub.endpoint}` : "");
    })().catch(() => res.writeHead(500).end());
  });
  server.on("connection", () => void connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  origin = `https://127.0.0.1:${port}`;

  return {
    origin,
    port,
    caFile: tls.caFile,
    connections: () => connections,
    received,
    problems,
    subscribe() {
      const ecdh = createECDH("prime256v1");
      ecdh.generateKeys();
      const authSecret = randomBytes(16);
      const id = randomBytes(12).toString("hex");
      const endpoint = `${origin}/push/${id}`;
      const sub: TestSubscription = {
        id,
        endpoint,
        ecdh,
        authSecret,
        json: { endpoint, expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: authSecret.toString("base64url") } },
      };
      subscriptions.set(id, sub);
      return sub;
    },
    answer: (id, status) => void statuses.set(id, status),
    expectKey: (k) => void (expectedKey = k),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
