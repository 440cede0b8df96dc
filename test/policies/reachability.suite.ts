// Policies and role grants nobody could satisfy (lib/policies/reachability.ts)
// on a real database: a role nobody holds, a quorum above the people who
// could give it, a role no policy uses given by a grant, to a new user or to
// a group's members, each refused with its reason and nothing stored, and
// each saved with "anyway" and recorded as such; the same on the command line
// (--anyway); a policy file's mappings to roles none of its policies uses,
// named by `policy check`; who counts: enabled people only, roles by hand or
// through a group, a time-bound role until its end.
// The admin pages' forms: test/admin/grant-forms.suite.ts.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";
import { refusalWithMessage } from "../helpers/refusal-code";
import { adminInProcess } from "../helpers/admin-cli";

export function reachabilitySuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`policies and grants nobody could satisfy (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let setPolicy: typeof import("@/lib/policies/set-policy").setPolicy;
    let reach: typeof import("@/lib/policies/reachability");
    let roles: typeof import("@/lib/users/roles");
    let groups: typeof import("@/lib/groups/group-mappings");
    let addUser: typeof import("@/lib/users/add-user").addUser;

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      ({ setPolicy } = await import("@/lib/policies/set-policy"));
      reach = await import("@/lib/policies/reachability");
      roles = await import("@/lib/users/roles");
      groups = await import("@/lib/groups/group-mappings");
      ({ addUser } = await import("@/lib/users/add-user"));
    });
    afterAll(async () => ctx?.close());

    const eventsOf = async (type: string, key: string, value: string) =>
      (await ctx.db.auditEvent.findMany({ where: { type }, orderBy: { seq: "asc" } }))
        .map((e) => JSON.parse(e.data) as Record<string, unknown>)
        .filter((d) => d[key] === value);
    /** The page's view: every stored policy with its problems' codes. */
    const pageView = async (name: string) => {
      const facts = await reach.readRoleFacts();
      const row = (await ctx.db.policy.findUnique({ where: { name } }))!;
      const p = { roles: JSON.parse(row.roles) as string[], escalate_to_roles: JSON.parse(row.escalateToRoles) as string[], quorum: row.quorum };
      return reach.policyReachability(p, facts);
    };
    const team = async (n: number) => {
      const role = `rev-${f.uid()}`;
      const people = [];
      for (let i = 0; i < n; i++) people.push(await f.makeUser([role]));
      return { role, people };
    };

    it("refuses a policy naming a role nobody holds (a typo), naming the role; nothing saved; anyway saves it and records why", async () => {
      const { role } = await team(2);
      const typo = `${role}x`;
      const name = `typo-${f.uid()}`;
      const policy = { name, tool: `${name}.*`, roles: [typo], quorum: 1, ttl: 600 };
      const refused = await refusalWithMessage(setPolicy(policy, "user:admin@example.com"));
      expect(refused).toEqual({
        code: "invalid-request",
        message: `Not saved: nobody could satisfy this policy now. No enabled user holds the role “${typo}” and no directory group is mapped to it: check its spelling, or grant it first. It needs 1 approval, but no enabled user holds “${typo}”.`,
      });
      expect(await ctx.db.policy.count({ where: { name } })).toBe(0);
      expect(await eventsOf("policy.changed", "policy", name)).toEqual([]);

      const saved = await setPolicy(policy, "user:admin@example.com", { anyway: true });
      expect(saved.change).toBe("created");
      expect(saved.overridden.map((p) => p.code)).toEqual(["unknown-role", "quorum-above-eligible"]);
      expect((await eventsOf("policy.changed", "policy", name))[0]).toMatchObject({
        change: "created",
        anyway: [`unknown-role:${typo}`, "quorum-above-eligible:1>0"],
      });
      // Listed as unreachable, with the same reasons.
      expect((await pageView(name)).problems.map((p) => p.code)).toEqual(["unknown-role", "quorum-above-eligible"]);
      // A known role beside the typo does not excuse it.
      expect((await refusalWithMessage(setPolicy({ ...policy, roles: [role, typo] }, "cli"))) as { message: string }).toMatchObject({
        message: expect.stringContaining(`the role “${typo}”`),
      });
    });

    it("refuses a quorum above the people who could give it, counting each person once and only the enabled", async () => {
      const { role, people } = await team(4);
      const other = `other-${f.uid()}`;
      await roles.grantRole({ email: people[0]!.email, role: other, anyway: true }, "cli");
      await f.makeUser([other]);
      const name = `q-${f.uid()}`;
      const policy = { name, tool: `${name}.*`, roles: [role, other], quorum: 9, ttl: 600 };
      // Four hold role, two hold other, one of them both: five people.
      expect(await refusalWithMessage(setPolicy(policy, "cli"))).toEqual({
        code: "invalid-request",
        message: `Not saved: nobody could satisfy this policy now. It needs 9 approvals, but only 5 enabled people hold “${role}” or “${other}”.`,
      });
      expect((await setPolicy({ ...policy, quorum: 4 }, "cli")).notes).toEqual([]);
      // A disabled reviewer no longer counts.
      await ctx.db.user.update({ where: { id: people[1]!.id }, data: { disabledAt: new Date() } });
      await ctx.db.user.update({ where: { id: people[2]!.id }, data: { disabledAt: new Date() } });
      expect(await refusalWithMessage(setPolicy({ ...policy, quorum: 4 }, "cli"))).toMatchObject({
        message: expect.stringContaining("It needs 4 approvals, but only 3 enabled people hold"),
      });
      expect((await pageView(name)).problems).toEqual([expect.objectContaining({ code: "quorum-above-eligible", quorum: 4, eligible: 3 })]);
      // Equal to the count: saved, with the note that a request by one of them cannot reach it.
      const tight = await setPolicy({ ...policy, quorum: 3 }, "cli");
      expect(tight.overridden).toEqual([]);
      expect(tight.notes).toEqual([
        `Only 3 enabled people hold “${role}” or “${other}”: a request raised by one of them cannot reach 3 approvals, since nobody approves their own request.`,
      ]);
    });

    it("counts escalation roles (a request may wait for escalation), roles held through a group, and a time-bound role until its end", async () => {
      const { role } = await team(1);
      const oncall = `oncall-${f.uid()}`;
      const name = `esc-${f.uid()}`;
      const base = { name, tool: `${name}.*`, roles: [role], quorum: 2, ttl: 3600 };
      expect(await refusalWithMessage(setPolicy(base, "cli"))).toMatchObject({ code: "invalid-request" });
      // A time-bound holder of the escalation role, ending in a minute, counts now.
      const soon = await f.makeUser([]);
      await roles.grantRole({ email: soon.email, role: oncall, until: new Date(Date.now() + 60_000).toISOString(), anyway: true }, "cli");
      const escalating = { ...base, escalate_after: 600, escalate_to_roles: [oncall] };
      expect((await setPolicy(escalating, "cli")).overridden).toEqual([]);
      // ... and not once it has ended, swept or not.
      await ctx.db.userRole.updateMany({ where: { userId: soon.id, role: oncall }, data: { expiresAt: new Date(Date.now() - 1000) } });
      expect(await refusalWithMessage(setPolicy(escalating, "cli"))).toMatchObject({
        message: expect.stringContaining(`the role “${oncall}” and no directory group`),
      });

      // A role mapped from a directory group is known before anyone holds it (no unknown-role),
      // though nobody holds it yet (the quorum is still out of reach).
      const mappedRole = `dir-${f.uid()}`;
      await groups.mapGroup({ group: `grp-${f.uid()}`, role: mappedRole, anyway: true }, "cli");
      const mapped = await refusalWithMessage(setPolicy({ ...base, roles: [mappedRole], quorum: 1 }, "cli"));
      expect(mapped).toMatchObject({ message: expect.not.stringContaining("no directory group") });
      expect(mapped).toMatchObject({ message: expect.stringContaining(`It needs 1 approval, but no enabled user holds “${mappedRole}”`) });
      // Held through a group: counted like one held by hand.
      const member = await f.makeUser([]);
      await ctx.db.userRole.create({ data: { userId: member.id, role: mappedRole, viaGroup: "some-group" } });
      expect((await setPolicy({ ...base, roles: [mappedRole], quorum: 1 }, "cli")).notes).toHaveLength(1);
    });

    it("refuses granting a role no policy uses, with nothing stored; anyway grants it and records that; admin and auditor need no policy", async () => {
      const u = await f.makeUser([]);
      const unused = `nobody-${f.uid()}`;
      expect(await refusalWithMessage(roles.grantRole({ email: u.email, role: unused }, `user:admin@example.com`))).toEqual({
        code: "invalid-request",
        message: `Not granted: this role would give nobody anything. No policy requires the role “${unused}” or escalates to it, so holding it lets nobody review anything: check its spelling, or create the policy first.`,
      });
      expect(await ctx.db.userRole.count({ where: { userId: u.id } })).toBe(0);
      expect(await eventsOf("role.granted", "user", u.email)).toEqual([]);

      await roles.grantRole({ email: u.email, role: unused, anyway: true }, "user:admin@example.com");
      expect(await eventsOf("role.granted", "user", u.email)).toEqual([
        { user: u.email, role: unused, selfGrant: false, anyway: [`role-unused:${unused}`] },
      ]);

      // Used by a policy (required or escalated to): granted without a word.
      const used = `used-${f.uid()}`;
      const esc = `esc-${f.uid()}`;
      await f.makePolicy({ tool: `t${f.uid()}.*`, roles: [used], quorum: 1 });
      await ctx.db.policy.updateMany({ where: { roles: JSON.stringify([used]) }, data: { escalateToRoles: JSON.stringify([esc]) } });
      await roles.grantRole({ email: u.email, role: used }, "cli");
      await roles.grantRole({ email: u.email, role: esc }, "cli");
      await roles.grantRole({ email: u.email, role: "auditor" }, "cli");
      expect((await eventsOf("role.granted", "user", u.email)).slice(1)).toEqual([
        { user: u.email, role: used, selfGrant: false },
        { user: u.email, role: esc, selfGrant: false },
        { user: u.email, role: "auditor", selfGrant: false },
      ]);
    });

    it("on the command line: refused with the reason and --anyway named; --anyway saves and says what it overrode", async () => {
      const name = `cli-${f.uid()}`;
      const role = `ghost-${f.uid()}`;
      const args = ["policy", "set", "--name", name, "--tool", `${name}.*`, "--roles", role, "--quorum", "1", "--ttl", "600"];
      const refused = await adminInProcess(args);
      expect(refused).toMatchObject({ code: 1, stdout: "" });
      expect(refused.stderr).toContain(
        `error: invalid-request: Not saved: nobody could satisfy this policy now. No enabled user holds the role “${role}”`,
      );
      expect(refused.stderr).toContain("add --anyway");
      const saved = await adminInProcess([...args, "--anyway"]);
      expect(saved.code, saved.stderr).toBe(0);
      const body = JSON.parse(saved.stdout) as { change: string; saved_anyway: string[] };
      expect(body.change).toBe("created");
      expect(body.saved_anyway).toHaveLength(2);
      expect((await adminInProcess([...args, "--anyway", "yes"])).stderr).toContain("--anyway takes no value");

      const u = await f.makeUser([]);
      const grant = ["role", "grant", "--email", u.email, "--role", `unused-${f.uid()}`];
      expect((await adminInProcess(grant)).stderr).toContain("Not granted: this role would give nobody anything.");
      const granted = await adminInProcess([...grant, "--anyway"]);
      expect(granted.code, granted.stderr).toBe(0);
      // Now that a policy uses the ghost role, granting it needs no --anyway.
      expect((await adminInProcess(["role", "grant", "--email", u.email, "--role", role])).code).toBe(0);
    });

    it("refuses a new user with a role no policy uses, creating nothing; anyway creates them and records which role it overrode", async () => {
      const email = `new-${f.uid()}@example.com`;
      const unused = `nobody-${f.uid()}`;
      const refused = await refusalWithMessage(addUser({ email, roles: ["reviewer", unused] }, "user:admin@example.com"));
      expect(refused).toEqual({
        code: "invalid-request",
        message: `Not created: a role given to this user would give nobody anything. No policy requires the role “${unused}” or escalates to it, so holding it lets nobody review anything: check its spelling, or create the policy first.`,
      });
      expect(await ctx.db.user.count({ where: { email } })).toBe(0);
      expect(await eventsOf("user.created", "user", email)).toEqual([]);
      expect(await eventsOf("role.granted", "user", email)).toEqual([]);

      const made = await addUser({ email, roles: ["reviewer", unused] }, "user:admin@example.com", { anyway: true });
      expect(made.roles).toEqual(["reviewer", unused].sort());
      // Only the unused role's event says what was overridden ("reviewer" is the default policy's).
      expect(await eventsOf("role.granted", "user", email)).toEqual(
        [
          { user: email, role: "reviewer", selfGrant: false },
          { user: email, role: unused, selfGrant: false, anyway: [`role-unused:${unused}`] },
        ].sort((a, b) => a.role.localeCompare(b.role)),
      );
      // Roles a policy uses, or the permission table names, need no anyway; neither does no role at all.
      const used = `used-${f.uid()}`;
      await f.makePolicy({ tool: `t${f.uid()}.*`, roles: [used], quorum: 1 });
      expect((await addUser({ email: `ok-${f.uid()}@example.com`, roles: [used, "admin", "auditor"] }, "cli")).roles).toHaveLength(3);
      expect((await addUser({ email: `none-${f.uid()}@example.com` }, "cli")).roles).toEqual([]);
      // An email already taken is that conflict, whatever the roles.
      expect(await refusalWithMessage(addUser({ email, roles: [`other-${f.uid()}`] }, "cli"))).toMatchObject({ code: "conflict" });
    });

    it("refuses mapping a group to a role no policy uses, mapping nothing; anyway maps it, gives it to the members and records that", async () => {
      const group = `grp-${f.uid()}`;
      const unused = `nobody-${f.uid()}`;
      expect(await refusalWithMessage(groups.mapGroup({ group, role: unused }, "user:admin@example.com"))).toEqual({
        code: "invalid-request",
        message: `Not mapped: this role would give nobody anything. No policy requires the role “${unused}” or escalates to it, so holding it lets nobody review anything: check its spelling, or create the policy first.`,
      });
      expect(await ctx.db.groupRoleMapping.count({ where: { groupName: group } })).toBe(0);
      expect(await eventsOf("group.mapped", "group", group)).toEqual([]);

      expect(await groups.mapGroup({ group, role: unused, anyway: true }, "user:admin@example.com")).toMatchObject({ mapped: true });
      expect(await eventsOf("group.mapped", "group", group)).toEqual([{ group, role: unused, anyway: [`role-unused:${unused}`] }]);
      // Mapped twice: the conflict, not the unused role.
      expect(await refusalWithMessage(groups.mapGroup({ group, role: unused }, "cli"))).toMatchObject({ code: "conflict" });
      // A role a policy escalates to, and admin, need no anyway.
      const esc = `esc-${f.uid()}`;
      await setPolicy(
        { name: `m-${f.uid()}`, tool: `m${f.uid()}.*`, roles: ["reviewer"], quorum: 1, ttl: 600, escalate_after: 60, escalate_to_roles: [esc] },
        "cli",
        {
          anyway: true,
        },
      );
      await groups.mapGroup({ group, role: esc }, "cli");
      await groups.mapGroup({ group, role: "admin" }, "cli");
      expect((await eventsOf("group.mapped", "group", group)).slice(1)).toEqual([
        { group, role: esc },
        { group, role: "admin" },
      ]);
    });

    it("user add and group map on the command line: refused with the reason and --anyway named, nothing stored; --anyway goes ahead", async () => {
      const email = `cli-new-${f.uid()}@example.com`;
      const role = `unused-${f.uid()}`;
      const add = ["user", "add", "--email", email, "--role", "reviewer", "--role", role];
      const refused = await adminInProcess(add);
      expect(refused).toMatchObject({ code: 1, stdout: "" });
      expect(refused.stderr).toContain(
        `error: invalid-request: Not created: a role given to this user would give nobody anything. No policy requires the role “${role}”`,
      );
      expect(refused.stderr).toContain("To go ahead all the same (a policy you will write later), add --anyway.");
      expect(await ctx.db.user.count({ where: { email } })).toBe(0);
      const added = await adminInProcess([...add, "--anyway"]);
      expect(added.code, added.stderr).toBe(0);
      expect(JSON.parse(added.stdout)).toMatchObject({ email, roles: ["reviewer", role].sort() });
      expect((await adminInProcess(["user", "add", "--email", `x-${f.uid()}@example.com`, "--anyway", "yes"])).stderr).toContain(
        "--anyway takes no value",
      );

      const group = `cli-grp-${f.uid()}`;
      const map = ["group", "map", "--group", group, "--role", role];
      const notMapped = await adminInProcess(map);
      expect(notMapped).toMatchObject({ code: 1, stdout: "" });
      expect(notMapped.stderr).toContain(
        `error: invalid-request: Not mapped: this role would give nobody anything. No policy requires the role “${role}”`,
      );
      expect(notMapped.stderr).toContain("add --anyway");
      expect(await ctx.db.groupRoleMapping.count({ where: { groupName: group } })).toBe(0);
      const mapped = await adminInProcess([...map, "--anyway"]);
      expect(mapped.code, mapped.stderr).toBe(0);
      expect(JSON.parse(mapped.stdout)).toEqual({ group, role, mapped: true, members: 0 });
      // Once a policy uses the role, neither needs --anyway.
      await setPolicy({ name: `c-${f.uid()}`, tool: `c${f.uid()}.*`, roles: [role], quorum: 1, ttl: 600 }, "cli");
      expect((await adminInProcess(["user", "add", "--email", `later-${f.uid()}@example.com`, "--role", role])).code).toBe(0);
      expect((await adminInProcess(["group", "map", "--group", `later-${f.uid()}`, "--role", role])).code).toBe(0);
    });

    it("policy check names a policy file's group mappings whose role none of the file's policies uses, and still accepts the file", async () => {
      const dir = mkdtempSync(join(tmpdir(), "cs-reach-file-"));
      const t = f.uid();
      const path = join(dir, "policies.yaml");
      writeFileSync(
        path,
        [
          "policies:",
          `  - {name: pay-${t}, tool: "pay.*", roles: [pay-${t}], quorum: 1, ttl: 600, escalate_after: 60, escalate_to_roles: [cfo-${t}]}`,
          "groups:",
          `  - {group: "Payments ${t}", roles: [pay-${t}, payy-${t}]}`,
          `  - {group: "Finance ${t}", roles: [cfo-${t}, admin, reviewer]}`,
        ].join("\n"),
      );
      const checked = await adminInProcess(["policy", "check", path]);
      expect(checked.code, checked.stderr).toBe(0);
      // "reviewer": the file has no "default", so the default's baseline (which requires it) stays.
      expect(JSON.parse(checked.stdout)).toEqual({
        ok: true,
        policies: 1,
        group_mappings: 5,
        notes: [
          `The group “Payments ${t}”: No policy requires the role “payy-${t}” or escalates to it, so holding it lets nobody review anything: check its spelling, or create the policy first.`,
        ],
      });
      // With a "default" that requires something else, "reviewer" is unused too.
      writeFileSync(path, `- {name: default, tool: "*", roles: [ops-${t}], quorum: 1, ttl: 600}\n`);
      expect(JSON.parse((await adminInProcess(["policy", "check", path])).stdout)).toEqual({ ok: true, policies: 1 });
      writeFileSync(
        path,
        `policies:\n  - {name: default, tool: "*", roles: [ops-${t}], quorum: 1, ttl: 600}\ngroups:\n  - {group: "Ops ${t}", roles: [ops-${t}, reviewer]}\n`,
      );
      expect(JSON.parse((await adminInProcess(["policy", "check", path])).stdout).notes).toEqual([
        `The group “Ops ${t}”: No policy requires the role “reviewer” or escalates to it, so holding it lets nobody review anything: check its spelling, or create the policy first.`,
      ]);
    });
  });
}
