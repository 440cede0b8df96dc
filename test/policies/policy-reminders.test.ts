// A policy's reminders and escalation (docs/notifications.md): the one zod
// schema refuses bad values with messages naming the field, and the fields
// round-trip through a POLICY_FILE and the admin command line (set, list,
// the audit record) on a real SQLite database.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSecrets } from "@/lib/local-secrets";
import { parsePolicyFile, PolicyFileError } from "@/lib/policies/policy-file";
import { policyInputSchema } from "@/lib/policies/schemas";
import { useFreshDatabase } from "../helpers/databases";
import { adminInProcess } from "../helpers/admin-cli";

const base = { name: "pay", tool: "payments.*", roles: ["payments"], quorum: 1, ttl: 3600 };

/** "path: message" of each issue, or [] when the input is valid. */
function issuesOf(input: Record<string, unknown>): string[] {
  const r = policyInputSchema.safeParse({ ...base, ...input });
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

describe("policy reminders and escalation: validation", () => {
  it("accepts fractions as a list or as typed, and escalation with its roles", () => {
    const parsed = policyInputSchema.parse({ ...base, remind_at: "0.5, 0.9", escalate_after: "600", escalate_to_roles: "oncall, sre,oncall" });
    expect(parsed).toMatchObject({ remind_at: [0.5, 0.9], escalate_after: 600, escalate_to_roles: ["oncall", "sre"] });
    expect(policyInputSchema.parse({ ...base, remind_at: [0.1, 0.2, 0.3, 0.4, 0.99] }).remind_at).toEqual([0.1, 0.2, 0.3, 0.4, 0.99]);
    // None of them is required.
    expect(policyInputSchema.parse(base)).toMatchObject({ remind_at: [], escalate_after: null, escalate_to_roles: [] });
    expect(policyInputSchema.parse({ ...base, remind_at: "", escalate_to_roles: "" })).toMatchObject({ remind_at: [], escalate_to_roles: [] });
  });

  it("refuses fractions outside (0, 1), words, and more than five", () => {
    expect(issuesOf({ remind_at: "0" })).toEqual(["remind_at.0: must be more than 0 (a fraction of the TTL)"]);
    expect(issuesOf({ remind_at: "0.5,1" })).toEqual(["remind_at.1: must be less than 1 (a fraction of the TTL)"]);
    expect(issuesOf({ remind_at: [1.5] })).toEqual(["remind_at.0: must be less than 1 (a fraction of the TTL)"]);
    expect(issuesOf({ remind_at: [-0.2] })).toEqual(["remind_at.0: must be more than 0 (a fraction of the TTL)"]);
    expect(issuesOf({ remind_at: "half" })).toEqual(["remind_at.0: must be a fraction of the TTL, e.g. 0.5"]);
    expect(issuesOf({ remind_at: "50%" })).toEqual(["remind_at.0: must be a fraction of the TTL, e.g. 0.5"]);
    expect(issuesOf({ remind_at: "0.1,0.2,0.3,0.4,0.5,0.6" })).toEqual(["remind_at: must name at most 5 reminders"]);
    expect(issuesOf({ remind_at: 0.5 })).toEqual(["remind_at: must be a list of fractions of the TTL, e.g. 0.5,0.9"]);
  });

  it("refuses reminders that are not strictly increasing, naming the one out of order", () => {
    expect(issuesOf({ remind_at: "0.9,0.5" })).toEqual(["remind_at.1: must be larger than the reminder before it (strictly increasing)"]);
    expect(issuesOf({ remind_at: [0.2, 0.5, 0.5] })).toEqual(["remind_at.2: must be larger than the reminder before it (strictly increasing)"]);
  });

  it("refuses escalation without roles, roles without escalation, and escalation after the TTL", () => {
    expect(issuesOf({ escalate_after: 600 })).toEqual(["escalate_to_roles: is required when escalate_after is set: the roles to add"]);
    expect(issuesOf({ escalate_to_roles: ["oncall"] })).toEqual([
      "escalate_after: is required when escalate_to_roles is set: seconds until escalation",
    ]);
    expect(issuesOf({ escalate_after: 3600, escalate_to_roles: ["oncall"] })).toEqual([
      "escalate_after: must be less than the TTL, or the request expires before it escalates",
    ]);
    expect(issuesOf({ escalate_after: 0, escalate_to_roles: ["oncall"] })).toEqual(["escalate_after: must be at least 1"]);
    expect(issuesOf({ escalate_after: "1.5", escalate_to_roles: ["oncall"] })).toEqual(["escalate_after: must be a whole number of seconds"]);
    expect(issuesOf({ escalate_after: 60, escalate_to_roles: ["On Call"] })[0]).toMatch(/^escalate_to_roles\.0: /);
  });

  it("names the bad entry of a policy file", () => {
    const text = "- {name: pay, tool: 'payments.*', roles: [payments], quorum: 1, ttl: 600, remind_at: [0.9, 0.5]}\n";
    expect(() => parsePolicyFile(text, "p.yaml")).toThrow(PolicyFileError);
    expect(() => parsePolicyFile(text, "p.yaml")).toThrow(
      'entry 1 (name "pay") is not valid: remind_at.1: must be larger than the reminder before it (strictly increasing)',
    );
  });
});

describe("policy reminders and escalation: POLICY_FILE and the admin command line (sqlite)", () => {
  let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
  const secrets = generateSecrets();
  const dir = mkdtempSync(join(tmpdir(), "cs-policy-reminders-"));

  beforeAll(async () => {
    Object.assign(process.env, secrets);
    ctx = await useFreshDatabase("sqlite");
  });
  afterAll(async () => ctx?.close());

  /** The admin command line's dispatcher, in this process, on this test's database. */
  const adminCli = adminInProcess;

  it("reads the fields from a policy file and syncs them into the table, then finds nothing to change", async () => {
    const { readPolicyFile } = await import("@/lib/policies/policy-file");
    const { syncPolicyFile } = await import("@/lib/policies/sync-policy-file");
    const { listPolicies, policyJson } = await import("@/lib/policies/list-policies");
    const path = join(dir, "policies.yaml");
    writeFileSync(
      path,
      [
        "policies:",
        "  - name: wires",
        "    tool: 'bank.wire'",
        "    roles: [finance]",
        "    quorum: 2",
        "    ttl: 1800",
        "    remind_at: [0.5, 0.9]",
        "    escalate_after: 600",
        "    escalate_to_roles: [oncall, cfo]",
        "  - {name: default, tool: '*', roles: [reviewer], quorum: 1, ttl: 3600, remind_at: '0.75'}",
      ].join("\n"),
    );
    const file = readPolicyFile(path);
    expect(file.policies[0]).toMatchObject({ remind_at: [0.5, 0.9], escalate_after: 600, escalate_to_roles: ["oncall", "cfo"] });
    expect(await syncPolicyFile(file)).toMatchObject({ created: ["wires"], replaced: ["default"] });
    const listed = (await listPolicies()).map(policyJson);
    expect(listed.find((p) => p.name === "wires")).toMatchObject({
      remind_at: [0.5, 0.9],
      escalate_after: 600,
      escalate_to_roles: ["oncall", "cfo"],
    });
    expect(listed.find((p) => p.name === "default")).toMatchObject({ remind_at: [0.75], escalate_after: null, escalate_to_roles: [] });
    expect(await syncPolicyFile(readPolicyFile(path))).toEqual({ created: [], replaced: [], deleted: [], unchanged: ["wires", "default"] });

    // A changed reminder is a change; the audit record carries the new values.
    writeFileSync(path, "- {name: wires, tool: 'bank.wire', roles: [finance], quorum: 2, ttl: 1800, remind_at: [0.25]}\n");
    expect(await syncPolicyFile(readPolicyFile(path))).toMatchObject({ replaced: ["wires", "default"] });
    const event = await ctx.db.auditEvent.findFirstOrThrow({ where: { type: "policy.changed" }, orderBy: { seq: "desc" }, skip: 1 });
    expect(JSON.parse(event.data)).toMatchObject({
      policy: "wires",
      change: "replaced",
      remind_at: "0.25",
      escalate_after: null,
      escalate_to_roles: [],
    });
  });

  it("sets them with `policy set`, shows them in `policy list` and `policy test`, and audits them", async () => {
    const set = await adminCli([
      "policy",
      "set",
      "--anyway",
      "--name",
      "refunds",
      "--tool",
      "payments.refund",
      "--roles",
      "payments",
      "--quorum",
      "1",
      "--ttl",
      "900",
      "--remind-at",
      "0.5,0.9",
      "--escalate-after",
      "600",
      "--escalate-to-roles",
      "oncall",
    ]);
    expect(set.stderr).toBe("");
    expect(set.code).toBe(0);
    const fields = { remind_at: [0.5, 0.9], escalate_after: 600, escalate_to_roles: ["oncall"] };
    expect(JSON.parse(set.stdout)).toMatchObject({ change: "created", policy: { name: "refunds", ...fields } });

    const list = JSON.parse((await adminCli(["policy", "list"])).stdout) as { policies: Array<Record<string, unknown>> };
    expect(list.policies.find((p) => p.name === "refunds")).toMatchObject(fields);
    const which = JSON.parse((await adminCli(["policy", "test", "--service", "billing", "--tool", "payments.refund"])).stdout) as {
      policy: Record<string, unknown>;
    };
    expect(which.policy).toMatchObject({ name: "refunds", ...fields });

    const event = await ctx.db.auditEvent.findFirstOrThrow({ where: { type: "policy.changed" }, orderBy: { seq: "desc" } });
    expect(event.actor).toBe("cli");
    expect(JSON.parse(event.data)).toMatchObject({
      policy: "refunds",
      change: "created",
      remind_at: "0.5,0.9",
      escalate_after: 600,
      escalate_to_roles: ["oncall"],
    });

    // Refused with the field named, nothing stored.
    const bad = await adminCli([
      "policy",
      "set",
      "--anyway",
      "--name",
      "bad",
      "--tool",
      "x",
      "--roles",
      "r",
      "--quorum",
      "1",
      "--ttl",
      "900",
      "--escalate-after",
      "60",
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("escalate_to_roles: is required when escalate_after is set");
    expect(await ctx.db.policy.count({ where: { name: "bad" } })).toBe(0);
    // Five command-line runs in a row, each a fresh tsx process: on a busy
    // 2-core machine that passes Vitest's default minute.
  }, 180_000);
});
