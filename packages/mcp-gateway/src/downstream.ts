/**
 * Connects to the MCP server being fronted: a command spoken to over stdio,
 * or a Streamable HTTP URL.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { GATEWAY_VERSION } from "./version.js";

export type DownstreamTarget = { command: string; args?: readonly string[]; cwd?: string } | { url: string };

/**
 * The downstream command's environment: the gateway's own (an MCP host passes
 * the server's API keys this way) minus the COUNTERSIGN_* settings, which are
 * the gateway's secrets and none of the downstream's business.
 */
export function downstreamEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !name.startsWith("COUNTERSIGN_")) kept[name] = value;
  }
  return kept;
}

/** A connected client of the downstream server; closing it stops a spawned command. */
export async function connectDownstream(target: DownstreamTarget, env: Readonly<Record<string, string | undefined>> = process.env): Promise<Client> {
  const client = new Client({ name: "countersign-mcp", version: GATEWAY_VERSION });
  const transport =
    "url" in target
      ? new StreamableHTTPClientTransport(new URL(target.url))
      : new StdioClientTransport({
          command: target.command,
          args: [...(target.args ?? [])],
          env: downstreamEnv(env),
          ...(target.cwd ? { cwd: target.cwd } : {}),
          stderr: "inherit",
        });
  await client.connect(transport);
  return client;
}
