// A local HTTP endpoint that receives signed webhooks and checks each with the
// official Standard Webhooks library (`standardwebhooks`), not Countersign's
// own verifier, keeping only the events whose signature holds.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export type ReceivedEvent = { id: string; body: string; headers: Record<string, string>; event: { type: string; data: Record<string, unknown> } };

export type WebhookReceiver = { url: string; events: ReceivedEvent[]; refused: number; close: () => Promise<void> };

export async function webhookReceiver(secret: string): Promise<WebhookReceiver> {
  const verifier = new Webhook(secret);
  const events: ReceivedEvent[] = [];
  const receiver = { events, refused: 0 } as WebhookReceiver;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      try {
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        const event = verifier.verify(body, headers) as ReceivedEvent["event"];
        events.push({ id: headers["webhook-id"]!, body, headers, event });
        res.writeHead(204).end();
      } catch {
        receiver.refused++;
        res.writeHead(401).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () => new Promise((resolve) => server.close(() => resolve()));
  return receiver;
}
