// Receivers of the audit stream for the tests: an HTTP receiver of the JSON
// Lines webhook that checks each batch's Standard Webhooks signature with the
// official library (`standardwebhooks` computes the signature it expects),
// and an OTLP/HTTP logs receiver (JSON, as the exporter sends it).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export type Line = Record<string, unknown> & { seq: number; hash: string };
export type Batch = { id: string; lines: Line[] };

/** An HTTP receiver of the JSON Lines webhook: keeps batches whose signature the official library reproduces. */
export async function jsonLinesReceiver(secret: string) {
  const verifier = new Webhook(secret);
  const r = {
    batches: [] as Batch[],
    refused: 0,
    /** Answer this many batches with 503 after keeping them (a receiver that crashed before it acknowledged). */
    failAfterKeeping: 0,
    /** Answer 503 without keeping anything (a receiver that is down). */
    down: false,
    contentTypes: new Set<string>(),
    url: "",
    server: undefined as unknown as Server,
  };
  r.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (r.down) return void res.writeHead(503).end();
      const body = Buffer.concat(chunks).toString("utf8");
      const id = String(req.headers["webhook-id"]);
      const ts = Number(req.headers["webhook-timestamp"]);
      const expected = verifier.sign(id, new Date(ts * 1000), body);
      const given = String(req.headers["webhook-signature"]).split(" ");
      if (!given.includes(expected) || Math.abs(Date.now() / 1000 - ts) > 300) {
        r.refused++;
        return void res.writeHead(401).end();
      }
      r.contentTypes.add(String(req.headers["content-type"]));
      const lines = body.split("\n");
      if (lines.pop() !== "") {
        // every line ends with a newline
        r.refused++;
        return void res.writeHead(400).end();
      }
      r.batches.push({ id, lines: lines.map((l) => JSON.parse(l) as Line) });
      if (r.failAfterKeeping > 0) {
        r.failAfterKeeping--;
        return void res.writeHead(503).end();
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => r.server.listen(0, "127.0.0.1", resolve));
  r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}/audit`;
  return r;
}

/** An OTLP/HTTP logs receiver (JSON, as @opentelemetry/exporter-logs-otlp-http sends). */
export async function otlpReceiver() {
  type Attr = { key: string; value: { stringValue?: string; intValue?: string | number } };
  type Rec = { body: { stringValue: string }; attributes: Attr[]; timeUnixNano: string; eventName?: string };
  const r = { records: [] as Rec[], status: 200, url: "", server: undefined as unknown as Server };
  r.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (r.status !== 200) return void res.writeHead(r.status).end();
      const doc = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { resourceLogs: Array<{ scopeLogs: Array<{ logRecords: Rec[] }> }> };
      for (const rl of doc.resourceLogs) for (const sl of rl.scopeLogs) r.records.push(...sl.logRecords);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => r.server.listen(0, "127.0.0.1", resolve));
  r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}/v1/logs`;
  return r;
}

export const close = (s: Server) => new Promise<void>((resolve) => s.close(() => resolve()));
