// countersign-mcp's command line and marks, as pure functions, and the
// built command's start-up failures.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ConfigError, markRule, parseCliConfig } from "@countersign/mcp-gateway";

const env = {
  COUNTERSIGN_URL: "http://localhost:3000",
  COUNTERSIGN_SLUG: "agents",
  COUNTERSIGN_WEBHOOK_SECRET: "whsec_c2VjcmV0LXZhbHVlLWZvci10ZXN0cw==",
  COUNTERSIGN_API_TOKEN: "cs_tok_not-a-real-one",
};

describe("parseCliConfig", () => {
  it("reads the downstream command after --, the globs and the timeout", () => {
    const config = parseCliConfig(
      [
        "--approve",
        "payments.*",
        "--approve",
        "email.send",
        "--allow",
        "*.read",
        "--timeout",
        "60",
        "--tool-timeout",
        "120",
        "--",
        "node",
        "server.js",
        "--port",
        "1",
      ],
      env,
    );
    expect(config).toEqual({
      countersign: {
        baseUrl: "http://localhost:3000",
        serviceSlug: "agents",
        webhookSecret: env.COUNTERSIGN_WEBHOOK_SECRET,
        apiToken: env.COUNTERSIGN_API_TOKEN,
      },
      downstream: { command: "node", args: ["server.js", "--port", "1"] },
      marks: { approve: ["payments.*", "email.send"], allow: ["*.read"] },
      timeoutSeconds: 60,
      toolTimeoutSeconds: 120,
    });
    expect(parseCliConfig(["--downstream-url", "https://mcp.internal/mcp"], env).downstream).toEqual({ url: "https://mcp.internal/mcp" });
  });

  it("names what is wrong, never a value", () => {
    const problem = (argv: string[], e: Record<string, string | undefined> = env) => {
      try {
        parseCliConfig(argv, e);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error("no error");
    };
    const missing = problem(["--", "node"], { ...env, COUNTERSIGN_API_TOKEN: undefined, COUNTERSIGN_URL: "file:///etc/passwd" });
    expect(missing).toBe("COUNTERSIGN_URL: Invalid URL; COUNTERSIGN_API_TOKEN: missing or invalid");
    expect(problem([])).toBe("the downstream (-- <command> or --downstream-url): missing or invalid");
    expect(problem(["--downstream-url", "http://x/mcp", "--", "node"])).toMatch(/either --downstream-url or a command/);
    expect(problem(["--timeout", "soon", "--", "node"])).toMatch(/^--timeout: /);
    expect(problem(["--approve", "", "--", "node"])).toMatch(/^--approve: /);
    expect(problem(["--secret-flag", "--", "node"])).toMatch(/--secret-flag/);
    for (const text of [missing, problem(["--timeout", "soon", "--", "node"])]) {
      expect(text).not.toContain(env.COUNTERSIGN_WEBHOOK_SECRET);
      expect(text).not.toContain("passwd");
    }
  });
});

describe("markRule", () => {
  it("by default marks every tool the downstream does not call read-only", () => {
    const rule = markRule();
    expect(rule("payments.refund", undefined)).toBe(true);
    expect(rule("payments.refund", { readOnlyHint: false, destructiveHint: true })).toBe(true);
    expect(rule("orders.lookup", { readOnlyHint: true })).toBe(false);
  });

  it("--approve marks exactly its globs; --allow exempts, and --approve wins", () => {
    const rule = markRule({ approve: ["payments.*", "db.?rop"], allow: ["payments.quote", "search*"] });
    expect(rule("payments.refund", { readOnlyHint: true })).toBe(true);
    expect(rule("payments.quote", undefined)).toBe(true);
    expect(rule("db.drop", undefined)).toBe(true);
    expect(rule("db.xxdrop", undefined)).toBe(false);
    expect(rule("email.send", undefined)).toBe(false);
    expect(rule("paymentsXrefund", undefined)).toBe(false); // "." is literal
    const allowOnly = markRule({ allow: ["search*"] });
    expect(allowOnly("search.web", undefined)).toBe(false);
    expect(allowOnly("email.send", undefined)).toBe(true);
  });
});

describe("countersign-mcp start-up failures", () => {
  const run = (args: string[], extraEnv: Record<string, string> = {}) =>
    spawnSync(process.execPath, ["packages/mcp-gateway/dist/cli.js", ...args], {
      env: { ...process.env, ...env, ...extraEnv },
      encoding: "utf8",
      timeout: 30_000,
    });

  it("a bad configuration exits 2 and names the setting, never a secret", () => {
    const r = run(["--timeout", "0", "--", "node", "server.js"], { COUNTERSIGN_URL: "not a url" });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe(""); // stdout belongs to MCP
    expect(r.stderr).toBe(
      "countersign-mcp: configuration: COUNTERSIGN_URL: Invalid URL; --timeout: Too small: expected number to be >=1 (see countersign-mcp --help)\n",
    );
  });

  it("a downstream command that cannot start exits 1 and says so", () => {
    const r = run(["--", "/nonexistent/mcp-server"]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("countersign-mcp: could not start or reach the downstream server (ENOENT)");
    for (const secret of [env.COUNTERSIGN_WEBHOOK_SECRET, env.COUNTERSIGN_API_TOKEN]) expect(r.stderr).not.toContain(secret);
  });

  it("--help prints the usage on stderr", () => {
    const r = run(["--help"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^Usage:\n {2}countersign-mcp /);
  });
});
