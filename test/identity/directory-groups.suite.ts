// Directory groups on a real database (docs/identity.md): the groups claim
// of each OIDC sign-in, admin and policy-file mappings, and SCIM's groups
// meet in one rule: a member of a mapped group holds its roles, as
// "via group" rows, for as long as group, mapping and membership last; a
// role granted by hand stays until revoked. Every change is recorded.
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";
import { adminInProcess } from "../helpers/admin-cli";

const ISSUER = "https://idp.example.test";

export function directoryGroupsSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`directory groups (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let linkOidcIdentity: typeof import("@/lib/auth/oidc-users").linkOidcIdentity;
    let groups: typeof import("@/lib/groups/group-mappings");
    let roles: typeof import("@/lib/users/roles");
    let verifyChain: typeof import("@/lib/audit/verify-chain").verifyChain;

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      ({ linkOidcIdentity } = await import("@/lib/auth/oidc-users"));
      groups = await import("@/lib/groups/group-mappings");
      roles = await import("@/lib/users/roles");
      ({ verifyChain } = await import("@/lib/audit/verify-chain"));
    });
    afterAll(async () => ctx?.close());

    const signIn = (email: string, claim: unknown, sub = `sub-${email}`) =>
      linkOidcIdentity(ISSUER, { sub, email, email_verified: true, name: "Dana", ...(claim === undefined ? {} : { groups: claim }) });
    const held = async (email: string) =>
      (await ctx.db.userRole.findMany({ where: { user: { email } }, orderBy: [{ role: "asc" }, { viaGroup: "asc" }] })).map(
        (r) => `${r.role}${r.viaGroup ? `@${r.viaGroup}` : ""}`,
      );
    const eventsAbout = async (type: string, needle: string) =>
      (await ctx.db.auditEvent.findMany({ where: { type, data: { contains: needle } }, orderBy: { seq: "asc" } })).map((e) => ({
        actor: e.actor,
        data: JSON.parse(e.data) as Record<string, unknown>,
      }));

    it("a sign-in's groups claim gives the mapped roles; the next sign-in's claim changes them; hand grants survive", async () => {
      const t = f.uid();
      const [pay, ops, other] = [`payments-${t}`, `ops-${t}`, `lunch-${t}`];
      await groups.mapGroup({ group: pay, role: `payments-${t}`, anyway: true }, "cli");
      await groups.mapGroup({ group: ops, role: `oncall-${t}`, anyway: true }, "cli");
      const email = `sso-${t}@example.com`;

      const first = await signIn(email, [pay, ops, other]);
      expect(first).toMatchObject({ email, disabled: false });
      expect(await held(email)).toEqual([`oncall-${t}@${ops}`, `payments-${t}@${pay}`]);
      expect(await eventsAbout("role.granted", email)).toEqual([
        { actor: "system", data: { user: email, role: `payments-${t}`, group: pay, selfGrant: false } },
        { actor: "system", data: { user: email, role: `oncall-${t}`, group: ops, selfGrant: false } },
      ]);
      expect((await eventsAbout("group.members_changed", email))[0]!.data).toEqual({
        user: email,
        source: "oidc",
        joined: [pay, ops, other],
        left: [],
      });
      // Groups seen in a claim are listed, with their members, whether mapped or not.
      const listed = (await groups.listGroups()).filter((g) => g.name.endsWith(t));
      expect(listed.map((g) => [g.name, g.members, g.roles.map((r) => r.role)])).toEqual([
        [other, 1, []],
        [ops, 1, [`oncall-${t}`]],
        [pay, 1, [`payments-${t}`]],
      ]);

      // A hand grant of the same role, then a claim without the group: the hand grant stays.
      await roles.grantRole({ email, role: `payments-${t}`, anyway: true }, "cli");
      await signIn(email, [ops]);
      expect(await held(email)).toEqual([`oncall-${t}@${ops}`, `payments-${t}`]);
      expect((await eventsAbout("role.revoked", email)).map((e) => e.data)).toEqual([{ user: email, role: `payments-${t}`, group: pay }]);
      // No claim at all is "no groups": the group roles go, the hand grant stays.
      await signIn(email, undefined);
      expect(await held(email)).toEqual([`payments-${t}`]);
      // The same claim twice changes nothing and records nothing.
      await signIn(email, [ops]);
      const count = (await ctx.db.auditEvent.findMany({ where: { data: { contains: email } } })).length;
      await signIn(email, [ops]);
      expect((await ctx.db.auditEvent.findMany({ where: { data: { contains: email } } })).length).toBe(count);
      expect(await verifyChain()).toMatchObject({ ok: true });
    });

    it("unmapping removes the role from every member at once; a hand-held role cannot be revoked while a group holds it", async () => {
      const t = f.uid();
      const group = `reviewers-${t}`;
      const role = `rev-${t}`;
      const map = await adminInProcess(["group", "map", "--group", group, "--role", role, "--anyway"]);
      expect(map.code).toBe(0);
      expect(JSON.parse(map.stdout)).toEqual({ group, role, mapped: true, members: 0 });
      expect((await adminInProcess(["group", "map", "--group", group, "--role", role])).stderr).toMatch(/already mapped/);
      const [a, b] = [`a-${t}@example.com`, `b-${t}@example.com`];
      await signIn(a, [group]);
      await signIn(b, [group]);
      expect(await held(a)).toEqual([`${role}@${group}`]);
      const revoke = await roles.revokeRole({ email: a, role }, "cli").catch((e: Error) => e.message);
      expect(revoke).toBe(`${a} holds ${role} through the group ${group}: unmap the group or change its members`);

      const listed = await adminInProcess(["group", "list"]);
      expect(JSON.parse(listed.stdout).groups).toContainEqual({
        name: group,
        seen: true,
        source: "oidc",
        members: 2,
        roles: [{ role, from: "admin" }],
      });
      const users = JSON.parse((await adminInProcess(["user", "list"])).stdout).users as Array<Record<string, unknown>>;
      expect(users.find((u) => u.email === a)).toMatchObject({ roles: [role], roles_via_group: { [role]: [group] } });

      const unmap = await adminInProcess(["group", "unmap", "--group", group, "--role", role]);
      expect(JSON.parse(unmap.stdout)).toEqual({ group, role, unmapped: true, members: 2 });
      expect(await held(a)).toEqual([]);
      expect(await held(b)).toEqual([]);
      expect((await eventsAbout("group.unmapped", group))[0]).toEqual({ actor: "cli", data: { group, role } });
      expect((await adminInProcess(["group", "unmap", "--group", group, "--role", role])).stderr).toMatch(/not-found: the group .* is not mapped/);
      // Bad input is refused with its reason.
      expect((await adminInProcess(["group", "map", "--group", "", "--role", role])).stderr).toMatch(/group: must not be empty/);
      expect((await adminInProcess(["group", "map", "--group", "g\u200b", "--role", role])).stderr).toMatch(/control or invisible/);
    });

    it("refuses an unreadable claim instead of reading it as no groups, changing nothing", async () => {
      const t = f.uid();
      const group = `keep-${t}`;
      await groups.mapGroup({ group, role: `keep-${t}`, anyway: true }, "cli");
      const email = `claim-${t}@example.com`;
      await signIn(email, [group]);
      for (const bad of [42, { name: group }, [group, 7], Array.from({ length: 1001 }, (_, i) => `g${i}`), ["x\u0000y"]]) {
        expect(await signIn(email, bad)).toEqual({ refused: "groups-claim-invalid" });
      }
      expect(await held(email)).toEqual([`keep-${t}@${group}`]);
      // One name as a string is a list of one.
      await signIn(email, group);
      expect(await held(email)).toEqual([`keep-${t}@${group}`]);
    });

    it("the last admin's group cannot be unmapped, and a disabled user's sign-in changes no membership", async () => {
      const t = f.uid();
      // Every admin made so far is removed from the count: one admin, holding admin only through a group.
      await ctx.db.userRole.deleteMany({ where: { role: "admin" } });
      const group = `admins-${t}`;
      await groups.mapGroup({ group, role: "admin" }, "cli");
      const email = `admin-${t}@example.com`;
      await signIn(email, [group]);
      expect(await held(email)).toEqual([`admin@${group}`]);
      await expect(groups.unmapGroup({ group, role: "admin" }, "cli")).rejects.toThrow(/last active admins' group/);
      expect(await held(email)).toEqual([`admin@${group}`]);

      const { disableUser } = await import("@/lib/users/disable-user");
      const other = `off-${t}@example.com`;
      await signIn(other, []);
      await disableUser(other, "cli");
      expect(await signIn(other, [group])).toMatchObject({ disabled: true });
      expect(await held(other)).toEqual([]);
    });

    it("POLICY_FILE's groups section: validated, synced at start, replacing the file's earlier mappings and keeping an admin's", async () => {
      const { readPolicyFile, PolicyFileError } = await import("@/lib/policies/policy-file");
      const dir = mkdtempSync(join(tmpdir(), "cs-groups-"));
      const t = f.uid();
      const write = (text: string) => {
        const path = join(dir, `${randomUUID()}.yaml`);
        writeFileSync(path, text);
        return path;
      };
      const policies = `policies:\n  - {name: p-${t}, tool: "x.${t}", roles: [fin-${t}], quorum: 1, ttl: 600}\n`;
      const file = readPolicyFile(
        write(`${policies}groups:\n  - {group: "Finance ${t}", roles: [fin-${t}, audit-${t}]}\n  - {group: "Ops ${t}", roles: [ops-${t}]}\n`),
      );
      expect(file.groups).toEqual([
        { group: `Finance ${t}`, role: `fin-${t}` },
        { group: `Finance ${t}`, role: `audit-${t}` },
        { group: `Ops ${t}`, role: `ops-${t}` },
      ]);
      // Fails closed, naming the entry.
      expect(() => readPolicyFile(write(`${policies}groups:\n  - {group: "A", roles: []}\n`))).toThrow(PolicyFileError);
      expect(() => readPolicyFile(write(`${policies}groups:\n  - {group: "A", roles: []}\n`))).toThrow(
        /groups entry 1 is not valid: roles: must name at least one role/,
      );
      expect(() => readPolicyFile(write(`${policies}groups:\n  - {group: "A", roles: [x]}\n  - {group: "A", roles: [y]}\n`))).toThrow(
        /groups entry 2 is not valid: group: repeats entry 1/,
      );
      expect(() => readPolicyFile(write(`${policies}groups:\n  - {group: "A", roles: [x], extra: 1}\n`))).toThrow(/groups entry 1 is not valid/);
      expect(() => readPolicyFile(write(`${policies}team: []\n`))).toThrow(/optionally a `groups` list/);

      const email = `fin-${t}@example.com`;
      await signIn(email, [`Finance ${t}`, `Ops ${t}`]);
      await groups.mapGroup({ group: `Ops ${t}`, role: `pager-${t}`, anyway: true }, "cli");
      expect(await groups.syncFileGroupMappings(file.groups, file.digest)).toEqual({
        mapped: [`Finance ${t}→fin-${t}`, `Finance ${t}→audit-${t}`, `Ops ${t}→ops-${t}`],
        unmapped: [],
      });
      expect(await held(email)).toEqual([`audit-${t}@Finance ${t}`, `fin-${t}@Finance ${t}`, `ops-${t}@Ops ${t}`, `pager-${t}@Ops ${t}`]);
      // The file's mapping is the file's to remove.
      await expect(groups.unmapGroup({ group: `Ops ${t}`, role: `ops-${t}` }, "cli")).rejects.toThrow(/comes from the policy file/);
      // Again with the same file: nothing changes.
      expect(await groups.syncFileGroupMappings(file.groups, file.digest)).toEqual({ mapped: [], unmapped: [] });
      // A new file without Ops: its file mapping goes, the admin's stays.
      const next = readPolicyFile(write(`${policies}groups:\n  - {group: "Finance ${t}", roles: [fin-${t}, audit-${t}]}\n`));
      expect(await groups.syncFileGroupMappings(next.groups, next.digest)).toEqual({ mapped: [], unmapped: [`Ops ${t}→ops-${t}`] });
      expect(await held(email)).toEqual([`audit-${t}@Finance ${t}`, `fin-${t}@Finance ${t}`, `pager-${t}@Ops ${t}`]);
      const unmapped = await eventsAbout("group.unmapped", `Ops ${t}`);
      expect(unmapped).toEqual([{ actor: "system", data: { group: `Ops ${t}`, role: `ops-${t}`, source: "policy-file", file_digest: next.digest } }]);
      expect(await verifyChain()).toMatchObject({ ok: true });
    });
  });
}
