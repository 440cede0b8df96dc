// docs/passkeys.md: require_passkey in a POLICY_FILE. The file's policies
// reach the table with it, new requests snapshot it, a false or missing value
// means false, and an entry that would allow standing approvals with it is
// refused as a whole (fail closed), with a message naming the field.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";

export function passkeyPolicyFileSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`require_passkey in a policy file (${provider})`, () => {
    const path = join(mkdtempSync(join(tmpdir(), "cs-pk-policy-")), "policies.yaml");
    const previous = process.env.POLICY_FILE;
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;

    beforeAll(async () => {
      writeFileSync(path, "policies: []\n");
      process.env.POLICY_FILE = path;
      ctx = await useFreshDatabase(provider);
    });
    afterAll(async () => {
      if (previous === undefined) delete process.env.POLICY_FILE;
      else process.env.POLICY_FILE = previous;
      await ctx?.close();
    });

    it("syncs require_passkey into the table, and new requests snapshot it", async () => {
      const { syncPolicyFile } = await import("@/lib/policies/sync-policy-file");
      const { readPolicyFile, PolicyFileError } = await import("@/lib/policies/policy-file");
      const f = await import("../helpers/fixtures");
      writeFileSync(
        path,
        [
          "policies:",
          "  - {name: signed-pay, tool: 'pay.*', roles: [payments], quorum: 2, ttl: 900, require_passkey: true}",
          "  - {name: plain-mail, tool: 'mail.*', roles: [reviewer], quorum: 1, ttl: 900}",
        ].join("\n"),
      );
      expect(await syncPolicyFile(readPolicyFile(path))).toMatchObject({ created: ["signed-pay", "plain-mail"] });
      const rows = await ctx.db.policy.findMany({ where: { name: { in: ["signed-pay", "plain-mail"] } }, orderBy: { name: "asc" } });
      expect(rows.map((r) => [r.name, r.requirePasskey])).toEqual([
        ["plain-mail", false],
        ["signed-pay", true],
      ]);
      const event = await ctx.db.auditEvent.findFirstOrThrow({ where: { type: "policy.changed", data: { contains: "signed-pay" } } });
      expect(JSON.parse(event.data)).toMatchObject({ policy: "signed-pay", require_passkey: true });
      const svc = await f.makeService();
      const a = await f.makeApproval(svc, { tool: "pay.send" });
      expect((await ctx.db.approval.findUniqueOrThrow({ where: { id: a.approval_id } })).requirePasskey).toBe(true);
      const b = await f.makeApproval(svc, { tool: "mail.send" });
      expect((await ctx.db.approval.findUniqueOrThrow({ where: { id: b.approval_id } })).requirePasskey).toBe(false);

      // Unchanged file: nothing to do. Turned off: replaced.
      expect(await syncPolicyFile(readPolicyFile(path))).toMatchObject({ unchanged: expect.arrayContaining(["signed-pay"]) });
      writeFileSync(path, "policies:\n  - {name: signed-pay, tool: 'pay.*', roles: [payments], quorum: 2, ttl: 900, require_passkey: false}\n");
      expect(await syncPolicyFile(readPolicyFile(path))).toMatchObject({ replaced: ["signed-pay"] });
      expect((await ctx.db.policy.findUniqueOrThrow({ where: { name: "signed-pay" } })).requirePasskey).toBe(false);

      // With standing approvals allowed, or not a boolean: the whole file is refused.
      writeFileSync(path, "policies:\n  - {name: both, tool: 'x.*', roles: [r], quorum: 1, ttl: 900, require_passkey: true, standing_max_ttl: 60}\n");
      expect(() => readPolicyFile(path)).toThrow(PolicyFileError);
      expect(() => readPolicyFile(path)).toThrow(/standing_max_ttl: must be 0 when require_passkey is true/);
      writeFileSync(path, "policies:\n  - {name: odd, tool: 'x.*', roles: [r], quorum: 1, ttl: 900, require_passkey: sometimes}\n");
      expect(() => readPolicyFile(path)).toThrow(/require_passkey: must be true or false/);
    });
  });
}
