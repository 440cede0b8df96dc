/**
 * What the downstream says about its tools (annotations), remembered from the
 * lists that pass through and fetched in full when a call names a tool not
 * seen yet. Forgotten when the downstream announces that its list changed.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

export class ToolCatalog {
  private readonly known = new Map<string, Tool>();

  constructor(private readonly downstream: Client) {}

  remember(tools: readonly Tool[]): void {
    for (const tool of tools) this.known.set(tool.name, tool);
  }

  forget(): void {
    this.known.clear();
  }

  /** The downstream's description of `name`, or undefined when it lists no such tool. */
  async find(name: string, signal?: AbortSignal): Promise<Tool | undefined> {
    if (!this.known.has(name)) await this.refresh(signal);
    return this.known.get(name);
  }

  private async refresh(signal?: AbortSignal): Promise<void> {
    let cursor: string | undefined;
    do {
      const page = await this.downstream.listTools(cursor === undefined ? {} : { cursor }, { signal });
      this.remember(page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
  }
}
