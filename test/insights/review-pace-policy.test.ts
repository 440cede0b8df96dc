// docs/insights.md: a policy's min_review_seconds and require_full_view. The
// one zod schema checks them (with messages naming the field), and they
// round-trip through a POLICY_FILE and the admin command line (set, list,
// test, the audit record) on a real SQLite database.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSecrets } from "@/lib/local-secrets";
import { parsePolicyFile } from "@/lib/policies/policy-file";
import { policyInputSchema } from "@/lib/policies/schemas";
import { useFreshDatabase } from "../helpers/databases";
import { adminInProcess } from "../helpers/admin-cli";

const base = { name: "pay", tool: "payments.*", roles: ["payments"], quorum: 1, ttl: 3600 };
const issuesOf = (input: Record<string, unknown>): string[] => {
  const r = policyInputSchema.safeParse({ ...base, ...input });
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("min_review_seconds and require_full_view: validation", () => {
  it("defaults both to off, and accepts numbers and booleans as typed", () => {
    expect(policyInputSchema.parse(base)).toMatchObject({ min_review_seconds: 0, require_full_view: false });
    expect(policyInputSchema.parse({ ...base, min_review_seconds: "30", require_full_view: "true" })).toMatchObject({
      min_review_seconds: 30,
      require_full_view: true,
    });
    expect(policyInputSchema.parse({ ...base, min_review_seconds: 3600, require_full_view: "off" })).toMatchObject({
      min_review_seconds: 3600,
      require_full_view: false,
    });
  });

  it("refuses negative, fractional, too long and worded values, naming the field", () => {
    expect(issuesOf({ min_review_seconds: -1 })).toEqual(["min_review_seconds: must be at least 0"]);
    expect(issuesOf({ min_review_seconds: 3601 })).toEqual(["min_review_seconds: must be at most 3600"]);
    expect(issuesOf({ min_review_seconds: 1.5 })).toEqual(["min_review_seconds: must be a whole number of seconds"]);
    expect(issuesOf({ min_review_seconds: "ten" })).toEqual(["min_review_seconds: must be a whole number of seconds"]);
    expect(issuesOf({ require_full_view: "maybe" })).toEqual(["require_full_view: must be true or false"]);
    expect(() =>
      parsePolicyFile("- {name: pay, tool: 'payments.*', roles: [payments], quorum: 1, ttl: 600, min_review_seconds: 7200}\n", "p.yaml"),
    ).toThrow('entry 1 (name "pay") is not valid: min_review_seconds: must be at most 3600');
  });
});

describe("min_review_seconds and require_full_view: POLICY_FILE and the admin command line (sqlite)", () => {
  let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
  const secrets = generateSecrets();
  const dir = mkdtempSync(join(tmpdir(), "cs-review-pace-"));

  beforeAll(async () => {
    Object.assign(process.env, secrets);
    ctx = await useFreshDatabase("sqlite");
  });
  afterAll(async () => ctx?.close());

  /** The admin command line's dispatcher, in this process, on this test's database. */
  const adminCli = adminInProcess;

  it("syncs the fields from a policy file, then finds nothing to change, and a change replaces the policy", async () => {
    const { readPolicyFile } = await import("@/lib/policies/policy-file");
    const { syncPolicyFile } = await import("@/lib/policies/sync-policy-file");
    const path = join(dir, "policies.yaml");
    writeFileSync(
      path,
      [
        "policies:",
        "  - {name: careful, tool: 'db.*', roles: [dba], quorum: 1, ttl: 900, min_review_seconds: 45, require_full_view: true}",
        "  - {name: plain, tool: 'mail.*', roles: [reviewer], quorum: 1, ttl: 900}",
      ].join("\n"),
    );
    expect(await syncPolicyFile(readPolicyFile(path))).toMatchObject({ created: ["careful", "plain"] });
    const rows = await ctx.db.policy.findMany({ where: { name: { in: ["careful", "plain"] } }, orderBy: { name: "asc" } });
    expect(rows.map((r) => [r.name, r.minReviewSeconds, r.requireFullView])).toEqual([
      ["careful", 45, true],
      ["plain", 0, false],
    ]);
    const event = await ctx.db.auditEvent.findFirstOrThrow({ where: { type: "policy.changed", data: { contains: '"careful"' } } });
    expect(JSON.parse(event.data)).toMatchObject({ policy: "careful", min_review_seconds: 45, require_full_view: true });
    expect(await syncPolicyFile(readPolicyFile(path))).toMatchObject({
      created: [],
      replaced: [],
      unchanged: expect.arrayContaining(["careful", "plain"]),
    });
    writeFileSync(path, "policies:\n  - {name: careful, tool: 'db.*', roles: [dba], quorum: 1, ttl: 900, min_review_seconds: 10}\n");
    expect(await syncPolicyFile(readPolicyFile(path))).toMatchObject({ replaced: ["careful"] });
    expect(await ctx.db.policy.findUniqueOrThrow({ where: { name: "careful" } })).toMatchObject({ minReviewSeconds: 10, requireFullView: false });
  });

  it("sets them with `policy set`, shows them in `policy list` and `policy test`, and refuses a bad value", async () => {
    const flags = ["--tool", "ops.*", "--roles", "ops", "--quorum", "1", "--ttl", "600"];
    const set = await adminCli(["policy", "set", "--anyway", "--name", "ops", ...flags, "--min-review-seconds", "20", "--require-full-view", "true"]);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ change: "created", policy: { name: "ops", min_review_seconds: 20, require_full_view: true } });
    const list = await adminCli(["policy", "list"]);
    expect(JSON.parse(list.stdout).policies.find((p: { name: string }) => p.name === "ops")).toMatchObject({
      min_review_seconds: 20,
      require_full_view: true,
    });
    const which = await adminCli(["policy", "test", "--service", "any", "--tool", "ops.restart"]);
    expect(JSON.parse(which.stdout).policy).toMatchObject({ name: "ops", min_review_seconds: 20, require_full_view: true });
    const bad = await adminCli(["policy", "set", "--anyway", "--name", "ops", ...flags, "--min-review-seconds", "99999"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr + bad.stdout).toContain("min_review_seconds: must be at most 3600");
    expect(await ctx.db.policy.findUniqueOrThrow({ where: { name: "ops" } })).toMatchObject({ minReviewSeconds: 20 });
    // Four command-line runs, each a fresh tsx process.
  }, 180_000);
});
