// @countersign/mcp-gateway as a user gets it: both packages packed with
// `npm pack` (as `npm test` built them), installed from the tarballs into an
// empty project, and the installed `countersign-mcp` command run as a stdio
// MCP server by the official SDK Client, fronting a stdio downstream, against
// the live app: an approved call runs once with its arguments, a denied one
// never runs, the downstream gets none of the gateway's secrets, and the
// gateway's stderr carries no secret and no argument value.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { downstreamEnv } from "@countersign/mcp-gateway";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { appFor } from "@/test/helpers/app";
import { decideNextRequest, invocationsIn, textOf } from "./harness";

const root = process.cwd();
const TSX = join(root, "node_modules/tsx/dist/cli.mjs");
const STDIO_DOWNSTREAM = join(root, "packages/mcp-gateway/test/fixtures/stdio-downstream.ts");

/** This process's environment without npm's own settings (when run under `npm test`). */
function withoutNpmSettings(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (/^npm_/i.test(name)) delete env[name];
  return env;
}

function npm(args: string[], cwd: string): void {
  execFileSync("npm", args, { cwd, env: withoutNpmSettings(), stdio: "pipe", timeout: 300_000 });
}

describe("@countersign/mcp-gateway from its tarball (live, sqlite)", () => {
  const app = appFor("sqlite");

  it.runIf(app)("the installed countersign-mcp forwards an approved call once and never runs a denied one", { timeout: 600_000 }, async () => {
    const f = await import("@/test/helpers/fixtures");
    const { db } = await import("@/lib/db/client");
    const svc = await f.makeService();
    const reviewer = await f.makeUser(["reviewer"]);

    const started = Date.now();
    const dir = mkdtempSync(join(tmpdir(), "mcp-gateway-tarball-"));
    // As built by npm test's first step: prepack would recompile dist/ while other test processes import it.
    for (const pkg of ["client", "mcp-gateway"]) npm(["pack", "--ignore-scripts", "--pack-destination", dir], join(root, "packages", pkg));
    const packed = Date.now();
    const project = join(dir, "project");
    mkdirSync(project);
    npm(["init", "-y"], project);
    const tarballs = readdirSync(dir).filter((name) => name.endsWith(".tgz"));
    expect(tarballs.sort()).toEqual(["countersign-client-0.1.0.tgz", "countersign-mcp-gateway-0.1.0.tgz"]);
    npm(["install", "--prefer-offline", "--no-audit", "--no-fund", ...tarballs.map((t) => join(dir, t))], project);
    console.log(`mcp-gateway tarball: packed in ${(packed - started) / 1000} s, installed in ${(Date.now() - packed) / 1000} s`);

    const logFile = join(dir, "downstream.jsonl");
    const transport = new StdioClientTransport({
      command: join(project, "node_modules/.bin/countersign-mcp"),
      args: ["--approve", "payments.*", "--timeout", "60", "--tool-timeout", "30", "--", process.execPath, TSX, STDIO_DOWNSTREAM],
      cwd: project,
      env: {
        ...downstreamEnv(withoutNpmSettings()), // the defined variables, as the transport wants them
        COUNTERSIGN_URL: app!.baseUrl,
        COUNTERSIGN_SLUG: svc.slug,
        COUNTERSIGN_WEBHOOK_SECRET: svc.webhook_secret,
        COUNTERSIGN_API_TOKEN: svc.api_token,
        DOWNSTREAM_LOG: logFile,
      },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: "tarball-agent", version: "1.0.0" });
    await client.connect(transport);

    const decideNext = async (decision: "approve" | "deny", reason: string) => {
      const decided = await decideNextRequest(svc.auth.id, reviewer.id, decision, reason);
      expect(decided).toMatchObject({ tool: "payments.refund", effects: "destructive" });
    };

    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["email.send", "orders.lookup", "payments.refund"]);

      const [approved] = await Promise.all([
        client.callTool({ name: "payments.refund", arguments: { order: "TB-1", amount: 5 } }),
        decideNext("approve", "ticket 9"),
      ]);
      expect(textOf(approved), stderr).toBe("refunded 5 on TB-1");
      expect(approved.isError).toBeFalsy();

      const [denied] = await Promise.all([
        client.callTool({ name: "payments.refund", arguments: { order: "TB-2", amount: 500 } }),
        decideNext("deny", "over the limit"),
      ]);
      expect(denied.isError).toBe(true);
      expect(textOf(denied)).toBe('Countersign denied this call: over the limit. The tool "payments.refund" was not run.');

      // Not matched by --approve: straight through, no request.
      expect(textOf(await client.callTool({ name: "email.send", arguments: { to: "TB-3", subject: "s" } }))).toBe("sent to TB-3");
    } finally {
      await client.close();
    }

    expect(invocationsIn(logFile)).toEqual([
      { tool: "payments.refund", args: { order: "TB-1", amount: 5 } },
      { tool: "email.send", args: { to: "TB-3", subject: "s" } },
    ]);
    const downstreamStart = JSON.parse(readFileSync(logFile, "utf8").split("\n")[0]!) as { countersignEnv: string[] };
    expect(downstreamStart.countersignEnv).toEqual([]);
    expect(await db().approval.count({ where: { serviceId: svc.auth.id } })).toBe(2);
    expect(stderr).toContain(`serving on stdio for service ${svc.slug}`);
    for (const secret of [svc.webhook_secret, svc.api_token, "TB-1", "TB-2", "TB-3"]) expect(stderr).not.toContain(secret);
    rmSync(dir, { recursive: true, force: true }); // kept for a look when the test fails
  });
});
