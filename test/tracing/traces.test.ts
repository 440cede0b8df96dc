// Traces (docs/operations.md, Traces) against a real OTLP/HTTP receiver this
// test starts: with OTEL_EXPORTER_OTLP_ENDPOINT set, the webhook and the
// consume arrive as spans of the trace their incoming `traceparent` named,
// with database spans under them; the callback of the decision carries a
// `traceparent` of the same trace; no attribute of any span holds a value
// from the arguments, or the search text of an argument search.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSecrets } from "@/lib/local-secrets";
import { startAppServer, type AppServer } from "../helpers/app-server";
import { freshSqliteUrl } from "../helpers/databases";
import { freePort } from "../helpers/ports";
import { signInWithPassword } from "../helpers/sign-in";

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values: OtlpValue[] };
};
type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: Array<{ key: string; value: OtlpValue }> };

/** OTLP/JSON ids are hex; an exporter configured otherwise sends base64: read either. */
const hexId = (id: string) => (/^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, "base64").toString("hex"));
const valueText = (v: OtlpValue): string =>
  v.arrayValue ? v.arrayValue.values.map(valueText).join(" ") : String(v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue ?? "");

async function bodyOf(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)));
}

describe("OpenTelemetry traces", () => {
  const spans: OtlpSpan[] = [];
  const callbacks: Array<{ headers: IncomingMessage["headers"]; body: string }> = [];
  const collector = createServer((req, res) => {
    void bodyOf(req).then((text) => {
      if (req.method === "POST" && req.url === "/v1/traces") {
        const doc = JSON.parse(text) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
        for (const rs of doc.resourceSpans)
          for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.push({ ...s, traceId: hexId(s.traceId), spanId: hexId(s.spanId) });
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  const receiver = createServer((req, res) => {
    void bodyOf(req).then((body) => {
      callbacks.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  let app: AppServer;
  const secret = `sk_live_${randomBytes(12).toString("hex")}`;
  const account = `ACCT-${randomBytes(6).toString("hex")}`;

  beforeAll(async () => {
    const [collectorPort, receiverPort] = [await listen(collector), await listen(receiver)];
    const env: Record<string, string> = {
      ...generateSecrets(),
      DATABASE_URL: freshSqliteUrl(),
      COUNTERSIGN_DATA_DIR: `.tmp/traces-${randomUUID()}`,
      LOG_LEVEL: "warn",
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}`,
      OTEL_SERVICE_NAME: "countersign-test",
      CALLBACK_ALLOW_LOOPBACK: "1",
      CALLBACK_RETRY_BASE_MS: "300",
      AUTH_CREDENTIALS: "1",
    };
    app = await startAppServer({ port: await freePort(), env });
    // This process makes fixtures in the app's database.
    Object.assign(process.env, app.env);
    process.env.RECEIVER_URL = `http://127.0.0.1:${receiverPort}/callback`;
  }, 180_000);

  afterAll(async () => {
    await app?.stop();
    collector.close();
    receiver.close();
  });

  // Generous: a loaded machine exports late; nothing here measures speed.
  const until = async (what: string, check: () => boolean, ms = 90_000) => {
    const end = Date.now() + ms;
    while (!check()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  it("continues the caller's trace through the webhook, the consume and the callback, with database spans and no argument value", async () => {
    const { createService } = await import("@/lib/services/manage-services");
    const { addUser } = await import("@/lib/users/add-user");
    const { db } = await import("@/lib/db/client");
    const { newId } = await import("@/lib/ids");
    const { CountersignClient } = await import("@countersign/client");
    const slug = `trace-${randomBytes(4).toString("hex")}`;
    const service = await createService({ slug, callbackUrl: process.env.RECEIVER_URL! }, "cli");
    const tool = `payments.refund.${randomBytes(3).toString("hex")}`;
    await db().policy.create({
      data: { id: newId("pol"), name: `p-${slug}`, toolPattern: tool, roles: JSON.stringify(["payments"]), quorum: 1, ttlSeconds: 3600 },
    });
    const password = randomBytes(12).toString("base64url");
    const reviewer = await addUser({ email: `${slug}@example.com`, password, roles: ["payments"] }, "cli");

    // The executor's own trace: one trace id for its calls, a fresh parent span id per call.
    const traceId = randomBytes(16).toString("hex");
    const traced: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("traceparent", `00-${traceId}-${randomBytes(8).toString("hex")}-01`);
      return fetch(input, { ...init, headers });
    };
    const client = new CountersignClient({
      baseUrl: app.baseUrl,
      serviceSlug: slug,
      webhookSecret: service.webhook_secret,
      apiToken: service.api_token,
      fetch: traced,
    });
    const args = { account, amount: 987654.321, api_key: secret };
    const call = { run_id: `run_${randomUUID()}`, call_id: "c1", tool, arguments: args };
    const created = await client.requestApproval(call);

    // A reviewer approves in the console (another trace: the browser's), and searches the arguments for the secret.
    const cookie = await signInWithPassword(app.baseUrl, reviewer.email, password);
    const search = await fetch(`${app.baseUrl}/api/approvals/${created.approval_id}/arguments?q=${encodeURIComponent(account)}`, {
      headers: { cookie },
    });
    expect(search.status).toBe(200);
    const { recordReview } = await import("@/lib/reviews/record-review");
    await recordReview(reviewer.id, { approvalId: created.approval_id, decision: "approve", reason: "ok" });
    const consumed = await client.consume(created.approval_id, call);
    expect(consumed.decision).toBe("approved");

    const ours = () => spans.filter((s) => s.traceId === traceId);
    await until("the webhook's and the consume's spans", () => ours().filter((s) => s.name.startsWith("route ")).length >= 2);
    const names = ours().map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(["route webhook", "route approval.consume"]));
    // Database work under them: the driver's statements and Prisma's queries.
    expect(names.some((n) => n.startsWith("db "))).toBe(true);
    // Next's server span for each request is in the same trace, a child of the executor's span. It ends
    // after the route's span, so it may come in a later export batch: wait for it as for the others.
    const server = () => ours().filter((s) => s.name.startsWith("POST"));
    await until("Next's server spans", () => server().length >= 2);
    for (const s of server()) expect(s.parentSpanId).toMatch(/^[0-9a-f]{16}$/);

    // A second call the executor cancels: the decision is made in its traced request, so the callback
    // that tells of it continues the executor's trace, through a delivery span of its own.
    const second = await client.requestApproval({ ...call, call_id: "c2" });
    await client.cancel(second.approval_id);
    const about = (id: string) => callbacks.find((c) => c.body.includes(id));
    await until("the cancellation's callback", () => about(second.approval_id) !== undefined);
    const header = String(about(second.approval_id)!.headers.traceparent);
    expect(header).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    await until("the delivery span", () => ours().some((s) => s.name === "callback deliver"));
    const delivery = ours().find((s) => s.name === "callback deliver")!;
    expect(header.split("-")[2]).toBe(delivery.spanId);
    // The first decision was recorded outside any request: its delivery starts a trace of its own.
    await until("the approval's callback", () => about(created.approval_id) !== undefined);
    expect(String(about(created.approval_id)!.headers.traceparent)).not.toContain(traceId);

    // No attribute of any span holds an argument value or the search's text.
    await new Promise((r) => setTimeout(r, 1500));
    const everything = spans.flatMap((s) => [s.name, ...(s.attributes ?? []).map((a) => `${a.key}=${valueText(a.value)}`)]).join("\n");
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(account);
    expect(everything).not.toContain("987654");
    expect(everything).toContain("/arguments");
  }, 240_000);
});
