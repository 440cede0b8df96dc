// The admin pages' ways of giving a role, over real HTTP against the running
// app (the forms' own server actions): creating a user with a role no policy
// uses, granting one, and mapping a group to one are refused with why and the
// page's own way round it ("… anyway"), nothing stored; ticked, they go
// through and the audit trail says what was overridden. The rule itself:
// lib/policies/reachability.ts (test/policies/reachability.suite.ts).
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";
import { postFormAction, serverActionId } from "../helpers/server-action";
import { signInWithPassword } from "../helpers/sign-in";

const WHY = (role: string) =>
  `No policy requires the role “${role}” or escalates to it, so holding it lets nobody review anything: check its spelling, or create the policy first.`;

export function grantFormsSuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`admin pages: giving a role no policy uses (${provider})`, () => {
    const base = app?.baseUrl ?? "";
    let db: import("@/lib/db/client").Db;
    let f: typeof import("../helpers/fixtures");
    let cookie: string;
    let adminEmail: string;

    beforeAll(async () => {
      db = (await import("@/lib/db/client")).db();
      f = await import("../helpers/fixtures");
      const { addUser } = await import("@/lib/users/add-user");
      const password = randomBytes(12).toString("base64url");
      adminEmail = (await addUser({ email: `gf-admin-${f.uid()}@example.com`, password, roles: ["admin"] }, "cli")).email;
      cookie = await signInWithPassword(base, adminEmail, password);
    });

    /** Submits one of the page's forms as the admin's browser does. */
    const submit = (page: "users" | "groups", action: string, fields: Record<string, string>) =>
      postFormAction(`${base}/admin/${page}`, serverActionId(`app/admin/${page}/actions.ts`, action), fields, {
        cookie,
        origin: new URL(base).origin,
      });
    const eventsAbout = async (type: string, needle: string) =>
      (await db.auditEvent.findMany({ where: { type, data: { contains: needle } }, orderBy: { seq: "asc" } })).map((e) => ({
        actor: e.actor,
        data: JSON.parse(e.data) as Record<string, unknown>,
      }));

    it("Create user: refused with why and “Create anyway” named, nobody created; ticked, created and recorded", async () => {
      const email = `gf-new-${f.uid()}@example.com`;
      const role = `gf-unused-${f.uid()}`;
      const fields = { email, name: "", password: "", roles: `reviewer, ${role}` };
      const refused = await submit("users", "createUserAction", fields);
      expect(refused.status).toBe(200);
      expect(refused.body).toContain("Not created: a role given to this user would give nobody anything.");
      expect(refused.body).toContain(WHY(role));
      expect(refused.body).toContain("tick “Create anyway”");
      expect(refused.body).not.toContain("--anyway");
      expect(await db.user.count({ where: { email } })).toBe(0);

      const made = await submit("users", "createUserAction", { ...fields, anyway: "on" });
      expect(made.body).toContain(`Created ${email} with ${["reviewer", role].sort().join(", ")}.`);
      expect(await eventsAbout("role.granted", email)).toContainEqual({
        actor: `user:${adminEmail}`,
        data: { user: email, role, selfGrant: false, anyway: [`role-unused:${role}`] },
      });
    });

    it("Grant role: refused with why and “Grant anyway” named; ticked, granted and recorded", async () => {
      const target = await f.makeUser([]);
      const role = `gf-grant-${f.uid()}`;
      const refused = await submit("users", "grantRoleAction", { email: target.email, role, until: "" });
      expect(refused.body).toContain("Not granted: this role would give nobody anything.");
      expect(refused.body).toContain(WHY(role));
      expect(refused.body).toContain("tick “Grant anyway”");
      expect(await db.userRole.count({ where: { userId: target.id } })).toBe(0);
      expect((await submit("users", "grantRoleAction", { email: target.email, role, until: "", anyway: "on" })).body).toContain(
        `Granted ${role} to ${target.email}.`,
      );
      expect((await eventsAbout("role.granted", target.email)).map((e) => e.data)).toEqual([
        { user: target.email, role, selfGrant: false, anyway: [`role-unused:${role}`] },
      ]);
    });

    it("Map group: refused with why and “Map anyway” named, nothing mapped; ticked, mapped and recorded", async () => {
      const group = `GF Group ${f.uid()}`;
      const role = `gf-map-${f.uid()}`;
      const refused = await submit("groups", "mapGroupAction", { group, role });
      expect(refused.status).toBe(200);
      expect(refused.body).toContain("Not mapped: this role would give nobody anything.");
      expect(refused.body).toContain(WHY(role));
      expect(refused.body).toContain("tick “Map anyway”");
      expect(await db.groupRoleMapping.count({ where: { groupName: group } })).toBe(0);

      expect((await submit("groups", "mapGroupAction", { group, role, anyway: "on" })).body).toContain(
        `Mapped ${group} to ${role}; 0 members hold it now.`,
      );
      expect(await eventsAbout("group.mapped", group)).toEqual([
        { actor: `user:${adminEmail}`, data: { group, role, anyway: [`role-unused:${role}`] } },
      ]);
      // A role a policy uses maps without the box.
      const used = `gf-used-${f.uid()}`;
      await f.makePolicy({ tool: `gf${f.uid()}.*`, roles: [used], quorum: 1 });
      expect((await submit("groups", "mapGroupAction", { group, role: used })).body).toContain(`Mapped ${group} to ${used};`);
    });
  });
}
