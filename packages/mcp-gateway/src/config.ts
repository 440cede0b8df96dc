/**
 * The `countersign-mcp` configuration: Countersign settings from the
 * environment (secrets never go on a command line, where `ps` shows them),
 * the downstream and the marks from flags. Validated once with zod; an error
 * names the flag or variable, never its value.
 */
import { parseArgs } from "node:util";
import { z } from "zod";

export const USAGE = `Usage:
  countersign-mcp [options] -- <command> [args...]
  countersign-mcp [options] --downstream-url <http(s) URL>

Fronts one MCP server (a command spoken to over stdio, or a Streamable HTTP URL)
and serves it on stdio. A marked tool call runs only after Countersign approves it.

Options:
  --approve <glob>          tools that need approval (repeatable); when none is given,
                            every tool not annotated readOnlyHint: true needs approval
  --allow <glob>            tools that pass straight through (repeatable; --approve wins)
  --timeout <seconds>       how long a call waits for a decision (default 300)
  --tool-timeout <seconds>  how long the downstream may take to answer a call (default 60)
  --downstream-url <url>    a Streamable HTTP MCP server instead of a command

Environment: COUNTERSIGN_URL, COUNTERSIGN_SLUG, COUNTERSIGN_WEBHOOK_SECRET,
COUNTERSIGN_API_TOKEN (required); COUNTERSIGN_REQUESTED_BY (optional, who the
requests are made for).`;

const glob = z.string().min(1).max(200);

export const gatewayConfigSchema = z.object({
  countersign: z.object({
    baseUrl: z.url({ protocol: /^https?$/ }),
    serviceSlug: z.string().min(1),
    webhookSecret: z.string().min(1),
    apiToken: z.string().min(1),
    requestedBy: z.string().min(1).max(200).optional(),
  }),
  downstream: z.union([
    z.object({ command: z.string().min(1), args: z.array(z.string()) }).strict(),
    z.object({ url: z.url({ protocol: /^https?$/ }) }).strict(),
  ]),
  marks: z.object({ approve: z.array(glob), allow: z.array(glob) }),
  timeoutSeconds: z.number().int().min(1).max(86_400),
  toolTimeoutSeconds: z.number().int().min(1).max(86_400),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

/** A configuration problem, worded for the person starting the gateway. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

// Where each setting comes from, to name it in an error message.
const SOURCES: Record<string, string> = {
  "countersign.baseUrl": "COUNTERSIGN_URL",
  "countersign.serviceSlug": "COUNTERSIGN_SLUG",
  "countersign.webhookSecret": "COUNTERSIGN_WEBHOOK_SECRET",
  "countersign.apiToken": "COUNTERSIGN_API_TOKEN",
  "countersign.requestedBy": "COUNTERSIGN_REQUESTED_BY",
  downstream: "the downstream (-- <command> or --downstream-url)",
  "downstream.url": "--downstream-url",
  "downstream.command": "the downstream command after --",
  "marks.approve": "--approve",
  "marks.allow": "--allow",
  timeoutSeconds: "--timeout",
  toolTimeoutSeconds: "--tool-timeout",
};

function sourceOf(path: readonly PropertyKey[]): string {
  for (let n = path.length; n > 0; n--) {
    const found = SOURCES[path.slice(0, n).map(String).join(".")];
    if (found) return found;
  }
  return path.map(String).join(".");
}

/** Reads `countersign-mcp`'s argv (without node and the script) and environment. */
export function parseCliConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): GatewayConfig {
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv);
  } catch (e) {
    // node:util's message names the unknown or malformed flag, not a value.
    throw new ConfigError(e instanceof Error ? e.message : "invalid command line");
  }
  const { values, positionals } = parsed;
  if (values["downstream-url"] !== undefined && positionals.length > 0) {
    throw new ConfigError("give either --downstream-url or a command after --, not both");
  }
  const [command, ...args] = positionals;
  const timeout = values.timeout === undefined ? 300 : Number(values.timeout);
  const candidate = {
    countersign: {
      baseUrl: env.COUNTERSIGN_URL,
      serviceSlug: env.COUNTERSIGN_SLUG,
      webhookSecret: env.COUNTERSIGN_WEBHOOK_SECRET,
      apiToken: env.COUNTERSIGN_API_TOKEN,
      requestedBy: env.COUNTERSIGN_REQUESTED_BY || undefined,
    },
    downstream: values["downstream-url"] !== undefined ? { url: values["downstream-url"] } : { command, args },
    marks: { approve: values.approve ?? [], allow: values.allow ?? [] },
    timeoutSeconds: timeout,
    toolTimeoutSeconds: values["tool-timeout"] === undefined ? 60 : Number(values["tool-timeout"]),
  };
  const result = gatewayConfigSchema.safeParse(candidate);
  if (!result.success) {
    const problems = result.error.issues.map(
      (i) => `${sourceOf(i.path)}: ${i.code === "invalid_type" || i.code === "invalid_union" ? "missing or invalid" : i.message}`,
    );
    throw new ConfigError([...new Set(problems)].join("; "));
  }
  return result.data;
}

function parseFlags(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      approve: { type: "string", multiple: true },
      allow: { type: "string", multiple: true },
      timeout: { type: "string" },
      "tool-timeout": { type: "string" },
      "downstream-url": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}

/** True when the command line asks for the usage text. */
export function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  const own = end === -1 ? argv : argv.slice(0, end);
  return own.includes("--help") || own.includes("-h");
}
