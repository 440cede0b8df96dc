/**
 * The gateway: an MCP server that fronts one connected downstream MCP client.
 * tools/list passes through unchanged; a tools/call that the marks select is
 * asked of Countersign first (through the ApprovalPort, which fails closed)
 * and forwarded once with exactly the approved arguments; anything short of
 * an approval comes back as a tool error and the downstream never sees it.
 * After an approved call was forwarded, the run is reported to Countersign:
 * succeeded when the downstream answered without isError, failed when it
 * answered isError or the call threw, with a salted digest of the result's
 * content (of the error's class name when it threw). The report is awaited,
 * at most the port's `reportTimeoutMs` (5 s by default), and never changes
 * what the MCP client gets.
 */
import { randomUUID } from "node:crypto";
import type { ApprovalPort, PortDecision } from "@countersign/client";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ListToolsRequestSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type Progress,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { markRule, type Marks } from "./marks.js";
import { passThroughResourcesAndPrompts, withoutMeta } from "./pass-through.js";
import { refusalResult } from "./refusal.js";
import { ToolCatalog } from "./tool-catalog.js";
import { GATEWAY_VERSION } from "./version.js";

export type GatewayOptions = {
  /** Asks Countersign and reports approved runs; an `ApprovalPort` from @countersign/client. */
  port: Pick<ApprovalPort, "ask" | "reportExecution">;
  /** A connected MCP client of the server being fronted. */
  downstream: Client;
  /** Which tool calls need approval (default: every tool not annotated readOnlyHint). */
  marks?: Marks;
  /**
   * The Countersign run id of this gateway session (default `mcp-<uuid>`). Countersign
   * refuses ids that look like a secret, e.g. a long run of digits.
   */
  runId?: string;
  /** Who the requests are made for (Countersign's requested_by). */
  requestedBy?: string;
  /** How long one call waits for a decision (default: the port's). */
  timeoutMs?: number;
  /** How long the downstream may take to answer a forwarded call, restarted by its progress (default 60 s). */
  toolTimeoutMs?: number;
  /** How often the MCP client hears progress while a call waits (default 5 s). */
  progressIntervalMs?: number;
  /** One line per event; never carries argument values or secrets. */
  log?: (line: string) => void;
};

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export function createGateway(options: GatewayOptions): Server {
  const { port, downstream } = options;
  const runId = options.runId ?? `mcp-${randomUUID()}`;
  const needsApproval = markRule(options.marks);
  const catalog = new ToolCatalog(downstream);
  const log = options.log ?? (() => undefined);
  const offered = downstream.getServerCapabilities() ?? {};

  const server = new Server(
    { name: "countersign-mcp", version: GATEWAY_VERSION },
    {
      capabilities: {
        tools: offered.tools?.listChanged ? { listChanged: true } : {},
        ...(offered.resources ? { resources: offered.resources.listChanged ? { listChanged: true } : {} } : {}),
        ...(offered.prompts ? { prompts: offered.prompts.listChanged ? { listChanged: true } : {} } : {}),
      },
      instructions: downstream.getInstructions(),
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const page = await downstream.listTools(withoutMeta(request.params), { signal: extra.signal });
    catalog.remember(page.tools);
    return page;
  });

  downstream.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    catalog.forget();
    await server.sendToolListChanged().catch(() => undefined); // no client connected yet
  });
  passThroughResourcesAndPrompts(server, downstream, offered);

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = request.params.name;
    const args = request.params.arguments ?? {};
    const described = await catalog.find(tool, extra.signal);
    const progress = progressReporter(extra);
    if (!needsApproval(tool, described?.annotations)) return forward(tool, args, extra, progress);

    const named = printable(tool);
    log(`${named}: asking Countersign`);
    const verdict: PortDecision = await port.ask(
      {
        run_id: runId,
        call_id: randomUUID(),
        tool,
        arguments: args,
        effects: described?.annotations?.destructiveHint ? "destructive" : "write",
        summary: `MCP tool call from ${server.getClientVersion()?.name ?? "an MCP client"}`.slice(0, 200),
        ...(options.requestedBy ? { requested_by: options.requestedBy } : {}),
      },
      {
        signal: extra.signal,
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        progressIntervalMs: options.progressIntervalMs ?? 5_000,
        onProgress: (elapsedMs) => progress.waiting(elapsedMs),
      },
    );
    if (!verdict.allowed || verdict.arguments === undefined) {
      log(`${named}: not run (${verdict.code}${verdict.approvalId ? `, ${verdict.approvalId}` : ""})`);
      return refusalResult(tool, verdict);
    }
    log(`${named}: approved (${verdict.approvalId ?? "?"}), forwarding once`);
    let result: CallToolResult;
    try {
      // Exactly the approved (frozen, digest-bound) arguments, never the request's own object.
      result = await forward(tool, verdict.arguments, extra, progress);
    } catch (error) {
      await port.reportExecution(verdict, { status: "failed", error, finishedAt: new Date() });
      throw error;
    }
    const status = result.isError ? "failed" : "succeeded";
    const reported = await port.reportExecution(verdict, { status, result: result.content, finishedAt: new Date() });
    log(`${named}: ${status}${reported ? ", reported" : ", not reported"} (${verdict.approvalId ?? "?"})`);
    return { ...result, _meta: { ...result._meta, "countersign/approval_id": verdict.approvalId } };
  });

  /** One downstream tools/call; its errors reach the client as they are. */
  async function forward(tool: string, args: Record<string, unknown>, extra: Extra, progress: ProgressReporter): Promise<CallToolResult> {
    return downstream.request({ method: "tools/call", params: { name: tool, arguments: args } }, CallToolResultSchema, {
      signal: extra.signal,
      ...(options.toolTimeoutMs !== undefined ? { timeout: options.toolTimeoutMs } : {}),
      resetTimeoutOnProgress: true,
      onprogress: (p) => progress.relay(p),
    });
  }

  return server;
}

/** A client-chosen tool name as one short, plain log token (no line breaks or escapes). */
function printable(tool: string): string {
  return tool.replace(/[^\x21-\x7e]/g, "?").slice(0, 200);
}

type ProgressReporter = { waiting(elapsedMs: number): void; relay(p: Progress): void };

/**
 * Progress for the client's request, when it sent a progressToken: seconds
 * waited while Countersign decides, then the downstream's own progress on
 * top of that, so the numbers only ever grow.
 */
function progressReporter(extra: Extra): ProgressReporter {
  const token = extra._meta?.progressToken;
  let base = 0;
  const send = (p: Progress) => {
    if (token === undefined || extra.signal.aborted) return;
    extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, ...p } }).catch(() => undefined);
  };
  return {
    waiting(elapsedMs) {
      base = Math.max(base, elapsedMs / 1000);
      send({ progress: base, message: `Waiting for approval in Countersign (${Math.round(base)} s)` });
    },
    relay(p) {
      send({
        progress: base + p.progress,
        ...(p.total !== undefined ? { total: base + p.total } : {}),
        ...(p.message ? { message: p.message } : {}),
      });
    },
  };
}
