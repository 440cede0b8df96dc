// Fail closed (docs/architecture.md): `npm start` with a POLICY_FILE that does not
// validate exits non-zero before serving, naming the bad entry; and
// `policy check FILE` validates offline (no database is touched).
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "cs-policy-start-"));
const bad = join(dir, "bad.yaml");
writeFileSync(
  bad,
  "policies:\n  - {name: ok, tool: 'mail.*', roles: [reviewer], quorum: 1, ttl: 600}\n  - {name: wire-transfers, tool: 'bank.wire', roles: [finance], quorum: 0, ttl: 600}\n",
);
const good = join(dir, "good.json");
writeFileSync(
  good,
  JSON.stringify({
    policies: [
      { name: "a", tool: "a.*", roles: ["r"], quorum: 1, ttl: 60 },
      { name: "b", tool: "b", roles: ["r"], quorum: 2, ttl: 60 },
    ],
  }),
);

function run(script: string, args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", script, ...args], {
    cwd: process.cwd(),
    env: { ...process.env, COUNTERSIGN_DATA_DIR: dir, NODE_ENV: "test", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// A database nothing can reach: touching it would fail the command.
const UNREACHABLE_DB = "postgresql://nobody@127.0.0.1:1/none";

describe("POLICY_FILE at start-up", () => {
  it("stops `npm start` with a message naming the bad entry, before the database or the server", () => {
    const r = run("scripts/start.ts", [], { POLICY_FILE: bad, PORT: "3299", DATABASE_URL: UNREACHABLE_DB });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`policy file ${bad}`);
    expect(r.stderr).toContain('entry 2 (name "wire-transfers") is not valid: quorum: must be at least 1');
    expect(r.stdout).not.toContain("listening");
  });

  it("stops `npm start` when the file is missing", () => {
    const r = run("scripts/start.ts", [], { POLICY_FILE: join(dir, "nope.yaml"), PORT: "3299", DATABASE_URL: UNREACHABLE_DB });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("cannot be read");
  });

  it("`policy check FILE` validates offline: exit 0 with the count, or exit 1 naming the entry", () => {
    const ok = run("scripts/admin.ts", ["policy", "check", good], { DATABASE_URL: UNREACHABLE_DB });
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({ ok: true, policies: 2 });

    const refused = run("scripts/admin.ts", ["policy", "check", bad], { DATABASE_URL: UNREACHABLE_DB });
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain('entry 2 (name "wire-transfers")');
    // Two command runs, each allowed the minute `run` gives one.
  }, 150_000);
});
