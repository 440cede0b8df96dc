// POLICY_FILE parsing (docs/architecture.md): YAML or JSON, every entry validated with
// the CLI's rules, and a refusal that names the bad entry.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePolicyFile, PolicyFileError, readPolicyFile } from "@/lib/policies/policy-file";

const dir = mkdtempSync(join(tmpdir(), "cs-policies-"));
const write = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const errorOf = (text: string) => {
  try {
    parsePolicyFile(text, "test.yaml");
  } catch (e) {
    if (e instanceof PolicyFileError) return e.message;
    throw e;
  }
  throw new Error("the file was accepted");
};

// A policy without reminders, escalation (docs/notifications.md) or a Slack channel (docs/slack.md).
const NO_FOLLOW_UPS = {
  remind_at: [],
  escalate_after: null,
  escalate_to_roles: [],
  slack_channel: null,
  standing_max_ttl: 0,
  require_passkey: false,
  min_review_seconds: 0,
  require_full_view: false,
};

const GOOD_YAML = `
policies:
  - name: payments-large
    tool: "payments.*"
    effects: destructive
    roles: [payments, finance]
    quorum: 2
    ttl: 1800
  - name: default
    tool: "*"
    roles: [reviewer]
    quorum: 1
    ttl: 3600
`;

describe("policy file", () => {
  it("reads YAML with a policies list", () => {
    const file = readPolicyFile(write("good.yaml", GOOD_YAML));
    expect(file.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(file.policies).toEqual([
      {
        name: "payments-large",
        tool: "payments.*",
        service: null,
        effects: "destructive",
        roles: ["payments", "finance"],
        quorum: 2,
        ttl: 1800,
        priority: 100,
        ...NO_FOLLOW_UPS,
      },
      { name: "default", tool: "*", service: null, effects: null, roles: ["reviewer"], quorum: 1, ttl: 3600, priority: 100, ...NO_FOLLOW_UPS },
    ]);
  });

  it("reads JSON, as a bare list too", () => {
    const json = JSON.stringify([{ name: "mail", tool: "mail.send", service: "billing", roles: ["reviewer"], quorum: 1, ttl: 60, priority: 7 }]);
    expect(readPolicyFile(write("good.json", json)).policies).toEqual([
      { name: "mail", tool: "mail.send", service: "billing", effects: null, roles: ["reviewer"], quorum: 1, ttl: 60, priority: 7, ...NO_FOLLOW_UPS },
    ]);
    expect(parsePolicyFile("policies: []", "empty.yaml")).toEqual([]);
  });

  it("names the bad entry by position and name, and the field, without echoing values", () => {
    const text = GOOD_YAML.replace("quorum: 2", "quorum: 0");
    const message = errorOf(text);
    expect(message).toContain("policy file test.yaml");
    expect(message).toContain('entry 1 (name "payments-large")');
    expect(message).toContain("quorum: must be at least 1");

    expect(errorOf(`- {name: a, tool: x, roles: [r], quorum: 1, ttl: 60}\n- {name: b, tool: "bad tool", roles: [r], quorum: 1, ttl: 60}`)).toMatch(
      /entry 2 \(name "b"\) is not valid: tool: /,
    );
    expect(errorOf(`- {tool: x, roles: [r], quorum: 1, ttl: 60}`)).toMatch(/entry 1 is not valid: name: /);
    expect(errorOf(`- {name: a, tool: x, roles: [r], quorum: 1, ttl: 10}`)).toContain("ttl: must be at least 60");
    expect(errorOf(`- {name: a, tool: x, roles: [r], quorum: 1, ttl: 2592001}`)).toContain("ttl: must be at most 2592000");
    expect(errorOf(`- {name: a, tool: x, roles: [Bad Role], quorum: 1, ttl: 60}`)).toContain("roles.0:");
    expect(errorOf(`- {name: a, tool: x, roles: [r], quorum: 1, ttl: 60, approvers: 2}`)).toMatch(
      /entry 1 \(name "a"\) is not valid: entry: .*approvers/,
    );
    expect(errorOf(`- {name: default, tool: "pay.*", roles: [r], quorum: 1, ttl: 60}`)).toContain("tool: the default policy matches every tool");
    expect(errorOf(`- {name: a, tool: x, roles: [r], quorum: 1, ttl: 60}\n- {name: a, tool: y, roles: [r], quorum: 1, ttl: 60}`)).toContain(
      'entry 2 (name "a") is not valid: name: repeats entry 1',
    );
  });

  it("refuses a file that is not YAML, not a list, empty, or missing", () => {
    expect(errorOf("policies: [")).toContain("not valid YAML or JSON");
    expect(errorOf("a: 1\na: 2")).toContain("not valid YAML or JSON");
    expect(errorOf("name: a")).toContain("expected a list of policies");
    expect(errorOf("")).toContain("is empty");
    expect(() => readPolicyFile(join(dir, "missing.yaml"))).toThrow(/cannot be read \(ENOENT\)/);
  });
});
