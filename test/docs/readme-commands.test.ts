// The README's shell blocks, run as a newcomer runs them, on a temporary data
// directory: `npm start` serves, prints where to sign in and records its
// instance; the admin command (run exactly as written, without DATABASE_URL)
// registers its service in that server's database; `npm run demo:agent`
// finds that server by itself and files its first request. `npm install`
// and `npm test` are not run again here: `.ci/run` runs `npm ci`, then
// exactly `npm test`, which is this run (checked below).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/ports";

const readme = readFileSync("README.md", "utf8");
const shellBlocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
const commands = shellBlocks.flatMap((block) => block.split("\n")).flatMap((line) => line.split(" && "));

type Running = { child: ChildProcess; output: () => string; exited: Promise<number> };

/** Runs a README command in a shell, in a process group of its own, with only the newcomer's environment. */
function run(command: string, env: Record<string, string>): Running {
  const child = spawn("sh", ["-c", command], {
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? tmpdir(), NEXT_TELEMETRY_DISABLED: "1", ...env } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  return { child, output: () => out, exited: new Promise((r) => child.once("exit", (code) => r(code ?? 1))) };
}

const signalGroup = (r: Running, signal: NodeJS.Signals) => {
  try {
    process.kill(-r.child.pid!, signal);
  } catch {
    // already gone
  }
};

/** Stops a command's whole process group and waits for it: nothing it started outlives the test. */
async function stop(r: Running | undefined): Promise<void> {
  if (!r || r.child.exitCode !== null) return;
  signalGroup(r, "SIGTERM");
  const exited = await Promise.race([r.exited.then(() => true), new Promise<false>((res) => setTimeout(() => res(false), 15_000))]);
  // The group, not only its leader: the server is a grandchild of `sh`.
  signalGroup(r, exited ? "SIGTERM" : "SIGKILL");
}

async function until(r: Running, pattern: RegExp, ms: number): Promise<RegExpMatchArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const m = r.output().match(pattern);
    if (m) return m;
    if (r.child.exitCode !== null || Date.now() > deadline) throw new Error(`no ${pattern} in:\n${r.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("the README's commands", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "cs-readme-"));
  const database = join(dataDir, "countersign.db");
  let server: Running | undefined;
  let agent: Running | undefined;
  afterAll(async () => {
    await Promise.all([stop(agent), stop(server)]);
  }, 40_000);

  it("are the two commands, the demo agent, the tests and one admin command", () => {
    expect(commands).toEqual([
      "npm install",
      "npm start",
      "npm run demo:agent",
      "npm test",
      "npm run admin -- service add --slug billing --callback-url https://billing.internal/countersign",
    ]);
    // npm install and npm test: what CI runs, in that order (npm ci is npm install from the lockfile).
    const ci = readFileSync(".ci/run", "utf8").trim().split("\n");
    expect(ci.slice(-2)).toEqual(["npm ci --no-audit --no-fund", "npm test"]);
    expect(JSON.parse(readFileSync("package.json", "utf8")).scripts.test).toBe("node scripts/test.mjs");
  });

  it("serve, register a service in the server's database, and let the demo agent file a request", async () => {
    const port = await freePort();
    server = run("npm start", { COUNTERSIGN_DATA_DIR: dataDir, DATABASE_URL: `file:${database}`, PORT: String(port) });
    await until(server, /countersign: sign in at http:\/\/localhost:\d+\/signin/, 120_000);
    // Printed once the server listens (scripts/server/serve.mjs).
    await until(server, /countersign: server ready on port \d+/, 60_000);
    const out = server.output();
    expect(out).toContain(`countersign: listening on http://localhost:${port}`);
    expect(out).toMatch(/admin: {5}admin@example\.com/);
    expect(out).toMatch(/password \(all demo users\): \S+/);
    expect((await fetch(`http://localhost:${port}/api/health`)).status).toBe(200);

    // Exactly as written, from another shell that has only the data directory: no DATABASE_URL.
    const add = run(commands[4]!, { COUNTERSIGN_DATA_DIR: dataDir });
    expect(await add.exited, add.output()).toBe(0);
    expect(add.output()).toMatch(/\{"slug":"billing","webhook_secret":"whsec_[^"]+","api_token":"cs_tok_[^"]+","callback_secret":"whsec_[^"]+"/);
    const sqlite = new Database(database, { readonly: true });
    try {
      expect(sqlite.prepare("SELECT callback_url FROM services WHERE slug = ?").get("billing")).toEqual({
        callback_url: "https://billing.internal/countersign",
      });
    } finally {
      sqlite.close();
    }

    // The demo agent finds the server from the data directory alone.
    agent = run(commands[2]!, { COUNTERSIGN_DATA_DIR: dataDir });
    await until(agent, /requested payments\.pay: http:\/\/localhost:\d+\/approvals\/apr_\S+/, 60_000);
    await until(agent, /the request expires in \d+ minutes/, 10_000);
    expect(agent.output()).toContain(`http://localhost:${port}/approvals/`);
    // The test's own limit covers the waits above (`npm start` through tsx,
    // migrations and the demo seed, then the server, then the demo agent):
    // Vitest's default cut it short on a loaded machine.
  }, 300_000);
});
