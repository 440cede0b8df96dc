// The README's examples are real: the programmatic example is
// examples/payments-gateway.ts word for word, and it runs against the live
// app; the MCP host configuration parses to the configuration it describes.
import { fileURLToPath } from "node:url";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseCliConfig } from "@countersign/mcp-gateway";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { appFor } from "@/test/helpers/app";
import { linesNotInExample, readmeExcerpt } from "@/test/helpers/readme-excerpt";
import { decideNextRequest, invocationsIn, textOf } from "./harness";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const blocks = (lang: string) => [...readme.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]!);

describe("README", () => {
  it("shows examples/payments-gateway.ts exactly", () => {
    const example = readFileSync(new URL("../examples/payments-gateway.ts", import.meta.url), "utf8");
    expect(blocks("ts")).toContain(example);
  });

  it("its MCP host configuration is a valid countersign-mcp command line, excerpted in the project README", () => {
    const [json] = blocks("json");
    expect(
      linesNotInExample(readmeExcerpt("(packages/mcp-gateway/README.md)", "json", fileURLToPath(new URL("../../..", import.meta.url))), json!),
    ).toEqual([]);
    const host = JSON.parse(json!) as { mcpServers: { payments: { args: string[]; env: Record<string, string> } } };
    const { args, env } = host.mcpServers.payments;
    expect(parseCliConfig(args, env)).toMatchObject({
      countersign: { baseUrl: "https://countersign.example.com", serviceSlug: "claude-payments" },
      downstream: { command: "node", args: ["/path/to/payments-server.js"] },
      marks: { approve: ["payments.*"], allow: [] },
      timeoutSeconds: 300,
      toolTimeoutSeconds: 60,
    });
  });

  describe("the programmatic example (live, sqlite)", () => {
    const app = appFor("sqlite");
    const saved = { ...process.env };
    afterEach(() => {
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    });

    it.runIf(app)("fronts the payments server: payments.* waits for a reviewer, the rest passes", async () => {
      const f = await import("@/test/helpers/fixtures");
      const svc = await f.makeService();
      const reviewer = await f.makeUser(["reviewer"]);
      const logFile = join(mkdtempSync(join(tmpdir(), "mcp-readme-")), "downstream.jsonl");
      // What the example reads: CountersignClient.fromEnv(), and the downstream inherits the rest.
      Object.assign(process.env, {
        COUNTERSIGN_URL: app!.baseUrl,
        COUNTERSIGN_SLUG: svc.slug,
        COUNTERSIGN_WEBHOOK_SECRET: svc.webhook_secret,
        COUNTERSIGN_API_TOKEN: svc.api_token,
        DOWNSTREAM_LOG: logFile,
      });
      const { servePaymentsGateway } = await import("../examples/payments-gateway");
      const [gatewaySide, clientSide] = InMemoryTransport.createLinkedPair();
      const downstream = {
        command: process.execPath,
        args: [join(process.cwd(), "node_modules/tsx/dist/cli.mjs"), join(process.cwd(), "packages/mcp-gateway/test/fixtures/stdio-downstream.ts")],
      };
      const { gateway, payments } = await servePaymentsGateway(downstream, gatewaySide);
      const client = new Client({ name: "readme-agent", version: "1.0.0" });
      await client.connect(clientSide);
      try {
        const [refund] = await Promise.all([
          client.callTool({ name: "payments.refund", arguments: { order: "R-1", amount: 7 } }),
          decideNextRequest(svc.auth.id, reviewer.id, "approve", "fine"),
        ]);
        expect(textOf(refund)).toBe("refunded 7 on R-1");
        expect(textOf(await client.callTool({ name: "email.send", arguments: { to: "R-2", subject: "s" } }))).toBe("sent to R-2");
      } finally {
        await client.close();
        await gateway.close();
        await payments.close();
      }
      expect(invocationsIn(logFile).map((i) => i.tool)).toEqual(["payments.refund", "email.send"]);
      const { db } = await import("@/lib/db/client");
      expect(await db().approval.count({ where: { serviceId: svc.auth.id } })).toBe(1);
    });
  });
});
