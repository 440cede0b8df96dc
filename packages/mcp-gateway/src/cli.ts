#!/usr/bin/env node
/**
 * `countersign-mcp`: serves the gateway on stdio in front of one downstream
 * MCP server. stdout is the MCP channel, so everything else goes to stderr,
 * and never a secret or an argument value.
 */
import { ApprovalPort, CountersignClient, CountersignError } from "@countersign/client";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ConfigError, parseCliConfig, USAGE, wantsHelp } from "./config.js";
import { connectDownstream } from "./downstream.js";
import { createGateway } from "./gateway.js";

const say = (line: string) => process.stderr.write(`countersign-mcp: ${line}\n`);

/** A start-up failure worded for the person starting the gateway. */
class StartError extends Error {}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (wantsHelp(argv)) {
    process.stderr.write(`${USAGE}\n`);
    return;
  }
  const config = parseCliConfig(argv, process.env);
  const { countersign } = config;
  const client = new CountersignClient({
    baseUrl: countersign.baseUrl,
    serviceSlug: countersign.serviceSlug,
    webhookSecret: countersign.webhookSecret,
    apiToken: countersign.apiToken,
  });
  const port = new ApprovalPort(client, {
    timeoutMs: config.timeoutSeconds * 1000,
    // Codes and ids only: a report's error never reaches the MCP client, and never quotes values.
    onReportError: (error, report) => {
      const why = error instanceof CountersignError ? error.code : error instanceof Error ? error.name : "error";
      say(`${report.approvalId ?? "a call"}: the execution report was not recorded (${why})`);
    },
  });
  const downstream = await connectDownstream(config.downstream).catch((e: unknown) => {
    // The error's code (ENOENT, ECONNREFUSED…) says enough; its message may quote a URL with a token in it.
    const code = e instanceof Error && "code" in e ? ` (${String(e.code)})` : "";
    throw new StartError(`could not start or reach the downstream server${code}`);
  });
  const gateway = createGateway({
    port,
    downstream,
    marks: config.marks,
    requestedBy: countersign.requestedBy,
    toolTimeoutMs: config.toolTimeoutSeconds * 1000,
    log: say,
  });

  let stopping = false;
  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    // Closing the downstream client also stops a spawned downstream command.
    void Promise.allSettled([gateway.close(), downstream.close()]).finally(() => process.exit(code));
  };
  downstream.onclose = () => {
    if (!stopping) say("the downstream server went away; stopping");
    stop(1);
  };
  process.stdin.on("end", () => stop(0)); // the MCP host closed our stdin
  process.on("SIGTERM", () => stop(0));
  process.on("SIGINT", () => stop(0));

  await gateway.connect(new StdioServerTransport());
  say(`serving on stdio for service ${countersign.serviceSlug}`);
}

main().catch((e: unknown) => {
  // Our own errors are worded for the user; anything else is named by its class only.
  if (e instanceof ConfigError) say(`configuration: ${e.message} (see countersign-mcp --help)`);
  else if (e instanceof StartError) say(e.message);
  else say(`failed to start (${e instanceof Error ? e.name : "error"})`);
  process.exit(e instanceof ConfigError ? 2 : 1);
});
