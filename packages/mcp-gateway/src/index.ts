/**
 * @countersign/mcp-gateway: an MCP server that fronts another MCP server and
 * forwards a marked tool call only after Countersign approves it, with the
 * approved arguments, once.
 */
export { createGateway, type GatewayOptions } from "./gateway.js";
export { connectDownstream, downstreamEnv, type DownstreamTarget } from "./downstream.js";
export { globToRegExp, markRule, type MarkRule, type Marks } from "./marks.js";
export { ConfigError, gatewayConfigSchema, parseCliConfig, USAGE, type GatewayConfig } from "./config.js";
export { refusalResult } from "./refusal.js";
export { GATEWAY_VERSION } from "./version.js";
