// With POLICY_FILE set the file is the only source of policies: start-up
// makes the table equal the file (audited), and edits from the admin page
// or the CLI are refused.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";

export function policyFileSyncSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`policy file sync (${provider})`, () => {
    const path = join(mkdtempSync(join(tmpdir(), "cs-policy-sync-")), "policies.yaml");
    const previous = process.env.POLICY_FILE;
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let sync: typeof import("@/lib/policies/sync-policy-file").syncPolicyFile;
    let read: typeof import("@/lib/policies/policy-file").readPolicyFile;
    let setPolicy: typeof import("@/lib/policies/set-policy").setPolicy;
    let deletePolicy: typeof import("@/lib/policies/delete-policy").deletePolicy;
    let listPolicies: typeof import("@/lib/policies/list-policies").listPolicies;

    beforeAll(async () => {
      writeFileSync(path, "policies: []\n");
      // Set before the first env() of this file's module registry.
      process.env.POLICY_FILE = path;
      ctx = await useFreshDatabase(provider);
      ({ syncPolicyFile: sync } = await import("@/lib/policies/sync-policy-file"));
      ({ readPolicyFile: read } = await import("@/lib/policies/policy-file"));
      ({ setPolicy } = await import("@/lib/policies/set-policy"));
      ({ deletePolicy } = await import("@/lib/policies/delete-policy"));
      ({ listPolicies } = await import("@/lib/policies/list-policies"));
    });
    afterAll(async () => {
      if (previous === undefined) delete process.env.POLICY_FILE;
      else process.env.POLICY_FILE = previous;
      await ctx?.close();
    });

    const events = () => ctx.db.auditEvent.findMany({ where: { type: "policy.changed" }, orderBy: { seq: "asc" } });
    const rules = async () => (await listPolicies()).map((p) => ({ name: p.name, tool: p.tool, roles: p.roles, quorum: p.quorum, ttl: p.ttl }));

    it("makes the table equal the file, audits each change as the system, and then has nothing left to do", async () => {
      // A policy made before the file took over: not in the file, so it goes.
      await ctx.db.policy.create({
        data: { id: "pol_old", name: "old-rule", toolPattern: "old.*", roles: '["r"]', quorum: 1, ttlSeconds: 60 },
      });
      writeFileSync(
        path,
        [
          "policies:",
          "  - {name: pay, tool: 'payments.*', roles: [payments], quorum: 2, ttl: 900}",
          "  - {name: default, tool: '*', roles: [reviewer, oncall], quorum: 1, ttl: 1200}",
        ].join("\n"),
      );
      const seqBefore = (await events()).at(-1)?.seq ?? 0;
      const result = await sync(read(path));
      expect(result).toEqual({ created: ["pay"], replaced: ["default"], deleted: ["old-rule"], unchanged: [] });
      expect(await rules()).toEqual([
        { name: "pay", tool: "payments.*", roles: ["payments"], quorum: 2, ttl: 900 },
        { name: "default", tool: "*", roles: ["reviewer", "oncall"], quorum: 1, ttl: 1200 },
      ]);
      const added = (await events()).filter((e) => e.seq > seqBefore);
      expect(added.every((e) => e.actor === "system")).toBe(true);
      expect(added.map((e) => JSON.parse(e.data) as Record<string, unknown>)).toEqual([
        expect.objectContaining({ change: "synced", source: "policy-file", policies: 2, file_digest: expect.stringMatching(/^sha256:/) }),
        expect.objectContaining({ policy: "pay", change: "created", source: "policy-file" }),
        expect.objectContaining({ policy: "default", change: "replaced", source: "policy-file" }),
        { policy: "old-rule", change: "deleted", source: "policy-file" },
      ]);

      const count = (await events()).length;
      expect(await sync(read(path))).toEqual({ created: [], replaced: [], deleted: [], unchanged: ["pay", "default"] });
      expect((await events()).length).toBe(count);
    });

    it("returns the default policy to its baseline when the file has no default entry", async () => {
      writeFileSync(path, "- {name: pay, tool: 'payments.*', roles: [payments], quorum: 3, ttl: 900}\n");
      const result = await sync(read(path));
      expect(result).toMatchObject({ replaced: ["pay", "default"], deleted: [] });
      expect(await rules()).toEqual([
        { name: "pay", tool: "payments.*", roles: ["payments"], quorum: 3, ttl: 900 },
        { name: "default", tool: "*", roles: ["reviewer"], quorum: 1, ttl: 3600 },
      ]);
    });

    it("refuses edits and deletes from the admin page and the CLI, naming the file", async () => {
      const before = await rules();
      const count = (await events()).length;
      const refused = (p: Promise<unknown>) =>
        p.then(
          () => null,
          (e: Error & { code?: string }) => ({ code: e.code, message: e.message }),
        );
      const set = await refused(setPolicy({ name: "pay", tool: "payments.*", roles: ["x"], quorum: 1, ttl: 60 }, "user:admin@example.com"));
      expect(set).toEqual({ code: "conflict", message: expect.stringContaining(`POLICY_FILE=${path}`) });
      expect(await refused(setPolicy({ name: "new-one", tool: "x", roles: ["x"], quorum: 1, ttl: 60 }, "cli"))).toMatchObject({ code: "conflict" });
      expect(await refused(deletePolicy("pay", "cli"))).toMatchObject({ code: "conflict" });
      expect(await rules()).toEqual(before);
      expect((await events()).length).toBe(count);
    });
  });
}
