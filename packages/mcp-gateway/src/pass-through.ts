/**
 * Resources and prompts carry no side effects the gateway guards, so their
 * requests go to the downstream as they are, when the downstream offers them.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  GetPromptRequestSchema,
  GetPromptResultSchema,
  ListPromptsRequestSchema,
  ListPromptsResultSchema,
  ListResourcesRequestSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesRequestSchema,
  ListResourceTemplatesResultSchema,
  PromptListChangedNotificationSchema,
  ReadResourceRequestSchema,
  ReadResourceResultSchema,
  ResourceListChangedNotificationSchema,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";

/**
 * The client's `_meta` (its progressToken above all) belongs to the client's
 * request, not to the gateway's request downstream.
 */
export function withoutMeta<P extends { _meta?: unknown }>(params: P | undefined): Omit<P, "_meta"> | undefined {
  if (params === undefined) return undefined;
  const { _meta: _ignored, ...rest } = params;
  return rest;
}

export function passThroughResourcesAndPrompts(server: Server, downstream: Client, offered: ServerCapabilities): void {
  if (offered.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, (r, extra) =>
      downstream.request({ method: r.method, params: withoutMeta(r.params) }, ListResourcesResultSchema, { signal: extra.signal }),
    );
    server.setRequestHandler(ListResourceTemplatesRequestSchema, (r, extra) =>
      downstream.request({ method: r.method, params: withoutMeta(r.params) }, ListResourceTemplatesResultSchema, { signal: extra.signal }),
    );
    server.setRequestHandler(ReadResourceRequestSchema, (r, extra) =>
      downstream.request({ method: r.method, params: withoutMeta(r.params)! }, ReadResourceResultSchema, { signal: extra.signal }),
    );
    downstream.setNotificationHandler(ResourceListChangedNotificationSchema, () => server.sendResourceListChanged().catch(() => undefined));
  }
  if (offered.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, (r, extra) =>
      downstream.request({ method: r.method, params: withoutMeta(r.params) }, ListPromptsResultSchema, { signal: extra.signal }),
    );
    server.setRequestHandler(GetPromptRequestSchema, (r, extra) =>
      downstream.request({ method: r.method, params: withoutMeta(r.params)! }, GetPromptResultSchema, { signal: extra.signal }),
    );
    downstream.setNotificationHandler(PromptListChangedNotificationSchema, () => server.sendPromptListChanged().catch(() => undefined));
  }
}
