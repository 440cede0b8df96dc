// In-process wiring for the gateway tests: an official SDK Client talks to
// the gateway over the SDK's in-memory transport; the gateway asks the live
// Countersign through a real ApprovalPort and forwards to a real downstream.
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { ApprovalPort, CountersignClient, type ExecutionOutcome, type ExecutionRecorded, type PortDecision } from "@countersign/client";
import { createGateway, type Marks } from "@countersign/mcp-gateway";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Invocation } from "./fixtures/downstream";

export type ServiceSecrets = { slug: string; webhook_secret: string; api_token: string };

export function countersignClient(baseUrl: string, svc: ServiceSecrets): CountersignClient {
  return new CountersignClient({ baseUrl, serviceSlug: svc.slug, webhookSecret: svc.webhook_secret, apiToken: svc.api_token });
}

type Options = {
  downstream: Client;
  countersign: CountersignClient;
  marks?: Marks;
  /** Called with each new request's id, the moment the port has sent it. */
  onRequest?: (approvalId: string) => Promise<void> | void;
  timeoutMs?: number;
  toolTimeoutMs?: number;
};

/** One execution report the gateway made through its port, with what the server recorded (undefined: not recorded). */
export type Reported = { decision: PortDecision; outcome: ExecutionOutcome; recorded: ExecutionRecorded | undefined };

export type Harness = {
  client: Client;
  runId: string;
  /** Approval ids the port created, in order. */
  requested: string[];
  /** Gateway log lines. */
  logs: string[];
  /** Execution reports the gateway made, in order. */
  reports: Reported[];
  /** Resolves when every onRequest has finished (and rethrows its error). */
  settled: () => Promise<void>;
  close: () => Promise<void>;
};

export async function clientThroughGateway(o: Options): Promise<Harness> {
  const requested: string[] = [];
  const logs: string[] = [];
  const pending: Array<Promise<void>> = [];
  const port = new ApprovalPort(o.countersign, {
    timeoutMs: o.timeoutMs ?? 30_000,
    onRequest: (created) => {
      requested.push(created.approval_id);
      if (o.onRequest) pending.push(Promise.resolve(o.onRequest(created.approval_id)));
    },
  });
  // Seen from outside: the decision (its salt included), the outcome and the server's answer.
  const reports: Reported[] = [];
  const report = port.reportExecution.bind(port);
  port.reportExecution = async (decision, outcome) => {
    const recorded = await report(decision, outcome);
    reports.push({ decision, outcome, recorded });
    return recorded;
  };
  // A UUID, as the gateway's own default: Countersign refuses ids that look like a secret
  // (a run of digits can pass for a card number).
  const runId = `mcp-${randomUUID()}`;
  const gateway = createGateway({
    port,
    downstream: o.downstream,
    marks: o.marks,
    runId,
    progressIntervalMs: 250,
    log: (l) => logs.push(l),
    ...(o.toolTimeoutMs !== undefined ? { toolTimeoutMs: o.toolTimeoutMs } : {}),
  });
  const [gatewaySide, clientSide] = InMemoryTransport.createLinkedPair();
  await gateway.connect(gatewaySide);
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(clientSide);
  return {
    client,
    runId,
    requested,
    logs,
    reports,
    settled: async () => void (await Promise.all(pending)),
    close: async () => {
      await client.close();
      await gateway.close();
    },
  };
}

/** Invocations a stdio downstream wrote to its log file. */
export function invocationsIn(logFile: string): Invocation[] {
  if (!existsSync(logFile)) return [];
  return readFileSync(logFile, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { event: string } & Invocation)
    .filter((e) => e.event === "invoked")
    .map(({ tool, args }) => ({ tool, args }));
}

/** The text of a tool result's first content block. */
export function textOf(result: unknown): string {
  const first = (result as { content?: Array<{ type: string; text?: string }> }).content?.[0];
  return first?.type === "text" ? (first.text ?? "") : "";
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Decides, as `reviewerId`, the next pending request of the service once it
 * arrives (for gateways whose port the test cannot hook), and returns it.
 */
export async function decideNextRequest(serviceId: string, reviewerId: string, decision: "approve" | "deny", reason: string) {
  const { db } = await import("@/lib/db/client");
  const { recordReview } = await import("@/lib/reviews/record-review");
  for (const until = Date.now() + 30_000; Date.now() < until; await sleep(100)) {
    const pending = await db().approval.findFirst({ where: { serviceId, status: "pending" }, select: { id: true, tool: true, effects: true } });
    if (!pending) continue;
    await recordReview(reviewerId, { approvalId: pending.id, decision, reason });
    return pending;
  }
  throw new Error("no request arrived");
}
