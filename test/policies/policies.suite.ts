// The policies domain on a real database: create/replace/delete through the
// one set of rules the CLI and the admin page share, the default policy,
// the "which policy matches?" tester, and snapshots on pending requests.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";
import { refusal } from "../helpers/refusal-code";

export function policiesSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`policies (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let setPolicy: typeof import("@/lib/policies/set-policy").setPolicy;
    let deletePolicy: typeof import("@/lib/policies/delete-policy").deletePolicy;
    let listPolicies: typeof import("@/lib/policies/list-policies").listPolicies;
    let whichPolicy: typeof import("@/lib/policies/which-policy").whichPolicy;

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      ({ setPolicy } = await import("@/lib/policies/set-policy"));
      ({ deletePolicy } = await import("@/lib/policies/delete-policy"));
      ({ listPolicies } = await import("@/lib/policies/list-policies"));
      ({ whichPolicy } = await import("@/lib/policies/which-policy"));
    });
    afterAll(async () => ctx?.close());

    const policyEvents = (name: string) =>
      ctx.db.auditEvent
        .findMany({ where: { type: "policy.changed" }, orderBy: { seq: "asc" } })
        .then((rows) =>
          rows.map((r) => ({ actor: r.actor, data: JSON.parse(r.data) as Record<string, unknown> })).filter((e) => e.data.policy === name),
        );
    const base = { tool: "payments.*", roles: ["payments"], quorum: 2, ttl: 600 };

    it("creates a policy, then replaces it by name; each change is audited with its actor and values", async () => {
      const name = `pay-${f.uid()}`;
      const created = await setPolicy({ name, ...base }, "user:admin@example.com", { anyway: true });
      expect(created.change).toBe("created");
      expect(created.policy).toMatchObject({
        name,
        tool: "payments.*",
        service: null,
        effects: null,
        roles: ["payments"],
        quorum: 2,
        ttl: 600,
        priority: 100,
        isDefault: false,
      });

      const replaced = await setPolicy(
        {
          name,
          tool: "payments.refund",
          service: "billing",
          effects: "destructive",
          roles: ["payments", "finance"],
          quorum: "3",
          ttl: "7200",
          priority: 5,
        },
        "cli",
        { anyway: true },
      );
      expect(replaced.change).toBe("replaced");
      expect(replaced.policy).toMatchObject({
        tool: "payments.refund",
        service: "billing",
        effects: "destructive",
        roles: ["payments", "finance"],
        quorum: 3,
        ttl: 7200,
        priority: 5,
      });
      expect(await ctx.db.policy.count({ where: { name } })).toBe(1);

      const events = await policyEvents(name);
      expect(events).toEqual([
        {
          actor: "user:admin@example.com",
          data: expect.objectContaining({ change: "created", tool: "payments.*", roles: ["payments"], quorum: 2, ttl: 600 }),
        },
        { actor: "cli", data: expect.objectContaining({ change: "replaced", tool: "payments.refund", service: "billing", quorum: 3 }) },
      ]);
    });

    it("validates every field, names the field, and stores nothing on refusal", async () => {
      const name = `bad-${f.uid()}`;
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ quorum: 0 }, "quorum"],
        [{ quorum: 1.5 }, "quorum"],
        [{ ttl: 59 }, "ttl"],
        [{ ttl: 30 * 24 * 3600 + 1 }, "ttl"],
        [{ roles: [] }, "roles"],
        [{ roles: ["Admin!"] }, "roles.0"],
        [{ tool: "pay ments" }, "tool"],
        [{ tool: "" }, "tool"],
        [{ effects: "delete" }, "effects"],
        [{ service: "Not A Slug" }, "service"],
        [{ extra: 1 }, ""],
      ];
      for (const [change, path] of cases) {
        const error = await setPolicy({ name, ...base, ...change }, "cli", { anyway: true }).then(
          () => null,
          (e: { name: string; issues?: Array<{ path: unknown[] }> }) => e,
        );
        expect(error?.name, JSON.stringify(change)).toBe("ZodError");
        if (path)
          expect(
            error?.issues?.map((i) => i.path.join(".")),
            JSON.stringify(change),
          ).toContain(path);
      }
      expect(await refusal(setPolicy({ ...base, name: "no spaces allowed" }, "cli", { anyway: true }))).toBe("ZodError");
      expect(await ctx.db.policy.count({ where: { name } })).toBe(0);
      expect(await policyEvents(name)).toEqual([]);
    });

    it("deletes a policy (audited), refuses an unknown one, and never deletes the default", async () => {
      const name = `gone-${f.uid()}`;
      await setPolicy({ name, ...base }, "cli", { anyway: true });
      expect(await deletePolicy(name, "user:admin@example.com")).toEqual({ name, deleted: true });
      expect(await ctx.db.policy.count({ where: { name } })).toBe(0);
      expect((await policyEvents(name)).at(-1)).toEqual({ actor: "user:admin@example.com", data: { policy: name, change: "deleted" } });

      expect(await refusal(deletePolicy(name, "cli"))).toBe("not-found");
      const defaultEvents = (await policyEvents("default")).length;
      expect(await refusal(deletePolicy("default", "cli"))).toBe("conflict");
      expect(await ctx.db.policy.count({ where: { isDefault: true } })).toBe(1);
      expect((await policyEvents("default")).length).toBe(defaultEvents);
    });

    it("edits the default policy's roles, quorum and TTL, but not its match-all shape", async () => {
      const out = await setPolicy({ name: "default", tool: "*", roles: ["reviewer", "oncall"], quorum: 2, ttl: 900 }, "cli", { anyway: true });
      expect(out).toMatchObject({ change: "replaced", policy: { isDefault: true, tool: "*", roles: ["reviewer", "oncall"], quorum: 2, ttl: 900 } });
      expect(
        await refusal(setPolicy({ name: "default", tool: "payments.*", roles: ["reviewer"], quorum: 1, ttl: 900 }, "cli", { anyway: true })),
      ).toBe("ZodError");
      expect(
        await refusal(
          setPolicy({ name: "default", tool: "*", service: "billing", roles: ["reviewer"], quorum: 1, ttl: 900 }, "cli", { anyway: true }),
        ),
      ).toBe("ZodError");
      await setPolicy({ name: "default", tool: "*", roles: ["reviewer"], quorum: 1, ttl: 3600 }, "cli", { anyway: true });
      const list = await listPolicies();
      expect(list.at(-1)).toMatchObject({ name: "default", isDefault: true });
      expect(list.filter((p) => p.isDefault)).toHaveLength(1);
    });

    it("answers which policy matches: exact tool, then service, then longer glob, then effects; else the default", async () => {
      const t = f.uid();
      const svc = `svc-${t}`;
      await setPolicy({ name: `${t}-glob`, tool: `${t}.*`, roles: ["a"], quorum: 1, ttl: 60 }, "cli", { anyway: true });
      await setPolicy({ name: `${t}-longer`, tool: `${t}.pay*`, roles: ["b"], quorum: 1, ttl: 60 }, "cli", { anyway: true });
      await setPolicy({ name: `${t}-svc`, tool: `${t}.*`, service: svc, roles: ["c"], quorum: 1, ttl: 60 }, "cli", { anyway: true });
      await setPolicy({ name: `${t}-exact`, tool: `${t}.pay`, effects: "destructive", roles: ["d"], quorum: 2, ttl: 60 }, "cli", { anyway: true });

      const ask = async (service: string, tool: string, effects?: string) => (await whichPolicy({ service, tool, effects })).policy.name;
      expect(await ask("other", `${t}.pay`, "destructive")).toBe(`${t}-exact`);
      expect(await ask("other", `${t}.pay`, "write")).toBe(`${t}-longer`);
      expect(await ask(svc, `${t}.payout`)).toBe(`${t}-svc`);
      expect(await ask("other", `${t}.payout`)).toBe(`${t}-longer`);
      expect(await ask("other", `${t}.mail`)).toBe(`${t}-glob`);
      expect(await ask("other", `nothing-${t}`)).toBe("default");

      const answer = await whichPolicy({ service: "other", tool: `${t}.pay`, effects: "destructive" });
      expect(answer.question).toEqual({ service: "other", tool: `${t}.pay`, effects: "destructive" });
      expect(answer.policy).toMatchObject({ roles: ["d"], quorum: 2 });
      expect(answer.alsoMatching).toEqual([`${t}-longer`, `${t}-glob`]);
      expect((await whichPolicy({ service: "other", tool: "x" })).question.effects).toBe("write");
      expect(await refusal(whichPolicy({ service: "other", tool: "bad tool" }))).toBe("ZodError");
    });

    it("applies a change to new requests only: a pending request keeps its snapshot", async () => {
      const t = f.uid();
      const service = await f.makeService();
      await setPolicy({ name: `${t}-snap`, tool: `${t}.*`, roles: ["alpha"], quorum: 1, ttl: 600 }, "cli", { anyway: true });
      const before = await f.makeApproval(service, { tool: `${t}.go` });
      await setPolicy({ name: `${t}-snap`, tool: `${t}.*`, roles: ["beta"], quorum: 2, ttl: 300 }, "cli", { anyway: true });
      const after = await f.makeApproval(service, { tool: `${t}.go` });
      const row = (id: string) => ctx.db.approval.findUniqueOrThrow({ where: { id } });
      expect(await row(before.approval_id)).toMatchObject({ policyName: `${t}-snap`, requiredRoles: '["alpha"]', quorum: 1, ttlSeconds: 600 });
      expect(await row(after.approval_id)).toMatchObject({ policyName: `${t}-snap`, requiredRoles: '["beta"]', quorum: 2, ttlSeconds: 300 });
      await deletePolicy(`${t}-snap`, "cli");
      expect(await row(before.approval_id)).toMatchObject({ requiredRoles: '["alpha"]', quorum: 1 });
    });

    it("races: concurrent sets of one new name → one row, one 'created' and the rest 'replaced' (20 trials)", async () => {
      for (let i = 0; i < 20; i++) {
        const name = `race-${f.uid()}`;
        const results = await Promise.all(
          [1, 2, 3].map((q) => setPolicy({ name, tool: "race.*", roles: ["r"], quorum: q, ttl: 60 }, "cli", { anyway: true })),
        );
        expect(results.map((r) => r.change).sort()).toEqual(["created", "replaced", "replaced"]);
        expect(await ctx.db.policy.count({ where: { name } })).toBe(1);
        const changes = (await policyEvents(name)).map((e) => e.data.change);
        expect(changes).toEqual(["created", "replaced", "replaced"]);
      }
    });
  });
}
