import { ApprovalPort, CountersignClient } from "@countersign/client";
import { connectDownstream, createGateway, type DownstreamTarget } from "@countersign/mcp-gateway";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/** Serves the payments MCP server behind Countersign: payments.* calls wait for a reviewer. */
export async function servePaymentsGateway(
  downstream: DownstreamTarget = { command: "node", args: ["payments-server.js"] },
  transport: Transport = new StdioServerTransport(),
) {
  const port = new ApprovalPort(CountersignClient.fromEnv(), { timeoutMs: 10 * 60_000 });
  const payments = await connectDownstream(downstream);
  const gateway = createGateway({
    port,
    downstream: payments,
    marks: { approve: ["payments.*"] },
    log: (line) => console.error(line), // stdout is the MCP channel
  });
  await gateway.connect(transport);
  return { gateway, payments }; // close both when done
}
