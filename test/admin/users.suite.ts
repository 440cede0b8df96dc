// Disabling and enabling users (docs/operations.md) on a real database: sessions
// stop at once, every change is audited, and the last active admin can be
// neither disabled nor stripped of the admin role.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";
import { refusal } from "../helpers/refusal-code";

export function usersSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`user disable/enable (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let users: typeof import("@/lib/users/disable-user");
    let roles: typeof import("@/lib/users/roles");
    let sessions: typeof import("@/lib/auth/sessions");
    let listUsers: typeof import("@/lib/users/list-users").listUsers;

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      users = await import("@/lib/users/disable-user");
      roles = await import("@/lib/users/roles");
      sessions = await import("@/lib/auth/sessions");
      ({ listUsers } = await import("@/lib/users/list-users"));
      // The role granted below is used by a policy (granting one nobody uses needs "anyway": test/policies/reachability.suite.ts).
      await f.makePolicy({ tool: "users-suite.*", roles: ["payments"], quorum: 1 });
    });
    afterAll(async () => ctx?.close());

    const eventsFor = async (email: string) =>
      (await ctx.db.auditEvent.findMany({ where: { type: { in: ["user.disabled", "user.enabled"] } }, orderBy: { seq: "asc" } }))
        .map((e) => ({ type: e.type, actor: e.actor, data: JSON.parse(e.data) as Record<string, unknown> }))
        .filter((e) => e.data.user === email);
    /** Every admin but `keep` disabled, so the test controls who the active admins are. */
    const onlyActiveAdmins = async (keep: string[]) => {
      await ctx.db.user.updateMany({ where: { roles: { some: { role: "admin" } }, email: { notIn: keep } }, data: { disabledAt: new Date() } });
    };

    it("disables a user: live sessions stop at once and their rows are revoked; enabling does not revive them", async () => {
      const u = await f.makeUser(["reviewer"]);
      const s1 = await sessions.createSession(u.id);
      const s2 = await sessions.createSession(u.id);
      expect(await sessions.sessionUser(s1.id, u.id)).toMatchObject({ email: u.email, roles: ["reviewer"] });

      expect(await users.disableUser(u.email.toUpperCase(), "user:boss@example.com")).toEqual({
        email: u.email,
        disabled: true,
        sessions_revoked: 2,
      });
      expect(await sessions.sessionUser(s1.id, u.id)).toBeNull();
      expect(await sessions.sessionUser(s2.id, u.id)).toBeNull();
      expect(await ctx.db.session.count({ where: { userId: u.id, revokedAt: null } })).toBe(0);
      expect((await listUsers()).find((x) => x.email === u.email)).toMatchObject({ disabled: true });

      expect(await users.enableUser(u.email, "cli")).toEqual({ email: u.email, enabled: true });
      expect(await sessions.sessionUser(s1.id, u.id)).toBeNull();
      const fresh = await sessions.createSession(u.id);
      expect(await sessions.sessionUser(fresh.id, u.id)).toMatchObject({ email: u.email });

      expect(await eventsFor(u.email)).toEqual([
        { type: "user.disabled", actor: "user:boss@example.com", data: { user: u.email, self: false } },
        { type: "user.enabled", actor: "cli", data: { user: u.email } },
      ]);
    });

    it("refuses to disable a disabled user, enable an active one, or touch an unknown email; nothing is audited", async () => {
      const u = await f.makeUser([]);
      expect(await refusal(users.enableUser(u.email, "cli"))).toBe("conflict");
      await users.disableUser(u.email, "cli");
      expect(await refusal(users.disableUser(u.email, "cli"))).toBe("conflict");
      expect(await refusal(users.disableUser(`nobody-${f.uid()}@example.com`, "cli"))).toBe("not-found");
      expect(await refusal(users.disableUser("not an email", "cli"))).toBe("ZodError");
      expect((await eventsFor(u.email)).map((e) => e.type)).toEqual(["user.disabled"]);
    });

    it("never disables the last active admin, but disables an admin while another is active", async () => {
      const a1 = await f.makeUser(["admin"]);
      const a2 = await f.makeUser(["admin", "reviewer"]);
      await onlyActiveAdmins([a1.email, a2.email]);

      expect(await users.disableUser(a1.email, `user:${a2.email}`)).toMatchObject({ disabled: true });
      const session = await sessions.createSession(a2.id);
      expect(await refusal(users.disableUser(a2.email, `user:${a2.email}`))).toBe("last-admin");
      // Refused as a whole: still active, session alive, no event.
      expect((await ctx.db.user.findUniqueOrThrow({ where: { id: a2.id } })).disabledAt).toBeNull();
      expect(await sessions.sessionUser(session.id, a2.id)).not.toBeNull();
      expect((await eventsFor(a2.email)).length).toBe(0);

      // A disabled admin does not count: a2 cannot lose the admin role either.
      expect(await refusal(roles.revokeRole({ email: a2.email, role: "admin" }, "cli"))).toBe("last-admin");
      expect(await roles.rolesOf(ctx.db, a2.id)).toEqual(["admin", "reviewer"]);

      // Enabling a1 again makes a2 free to go.
      await users.enableUser(a1.email, "cli");
      expect(await users.disableUser(a2.email, `user:${a2.email}`)).toMatchObject({ disabled: true });
      expect((await eventsFor(a2.email))[0]).toMatchObject({ data: { self: true } });
    });

    it("races: two admins disabling each other at once → exactly one succeeds (20 trials)", async () => {
      for (let i = 0; i < 20; i++) {
        const a = await f.makeUser(["admin"]);
        const b = await f.makeUser(["admin"]);
        await onlyActiveAdmins([a.email, b.email]);
        const results = await Promise.allSettled([users.disableUser(a.email, `user:${b.email}`), users.disableUser(b.email, `user:${a.email}`)]);
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        expect((results.find((r) => r.status === "rejected") as PromiseRejectedResult).reason.code).toBe("last-admin");
        expect(await roles.countActiveAdmins(ctx.db)).toBe(1);
      }
    });

    it("lists users with roles, who granted them, and marks a self-grant", async () => {
      const admin = await f.makeUser(["admin"]);
      await roles.grantRole({ email: admin.email, role: "payments" }, `user:${admin.email}`);
      const other = await f.makeUser([]);
      await roles.grantRole({ email: other.email, role: "payments" }, `user:${admin.email}`);
      const listed = await listUsers();
      const me = listed.find((u) => u.email === admin.email)!;
      expect(me.roles.map((r) => [r.role, r.grantedBy, r.selfGranted])).toEqual([
        ["admin", "cli", false],
        ["payments", `user:${admin.email}`, true],
      ]);
      expect(listed.find((u) => u.email === other.email)!.roles).toMatchObject([{ role: "payments", selfGranted: false }]);
      const grant = await ctx.db.auditEvent.findFirstOrThrow({
        where: { type: "role.granted", actor: `user:${admin.email}` },
        orderBy: { seq: "asc" },
      });
      expect(JSON.parse(grant.data)).toEqual({ user: admin.email, role: "payments", selfGrant: true });
    });

    it("finds users a page at a time, by part of an email or a name in any case, and reads the page's query strictly", async () => {
      const { findUsers, usersQuerySchema, USERS_PAGE_SIZE } = await import("@/lib/users/list-users");
      const { addUser } = await import("@/lib/users/add-user");
      const tag = `pg${f.uid()}`.toLowerCase();
      const made: string[] = [];
      for (let i = 0; i < USERS_PAGE_SIZE + 3; i++) made.push((await f.makeUser([], `${tag}-${String(i).padStart(3, "0")}@example.com`)).email);
      await addUser({ email: `someone-${f.uid()}@example.com`, name: `Ada ${tag.toUpperCase()} Lovelace`, roles: [] }, "cli", { anyway: true });

      const first = await findUsers({ q: tag, page: 1 });
      expect(first).toMatchObject({ total: USERS_PAGE_SIZE + 4, page: 1, pages: 2, q: tag });
      expect(first.users.map((u) => u.email)).toEqual(made.slice(0, USERS_PAGE_SIZE));
      const second = await findUsers({ q: tag.toUpperCase(), page: 2 });
      expect(second.users.map((u) => u.email)).toEqual([...made.slice(USERS_PAGE_SIZE), expect.stringMatching(/^someone-/)]);
      expect(second.users.at(-1)!.name).toBe(`Ada ${tag.toUpperCase()} Lovelace`);
      // Found by the name alone, in another case; past the last page, the last page.
      const byName = await findUsers({ q: `ada ${tag} LOVE`, page: 9 });
      expect(byName).toMatchObject({ total: 1, page: 1, pages: 1 });
      expect(await findUsers({ q: `${tag}-none`, page: 1 })).toMatchObject({ total: 0, page: 1, pages: 1, users: [] });
      // LIKE's wildcards in a search are plain characters.
      expect((await findUsers({ q: `${tag}-00%`, page: 1 })).total).toBe(0);

      expect(usersQuerySchema.parse({ q: "  ", page: undefined })).toEqual({ q: undefined, page: 1 });
      for (const [input, message] of [
        [{ page: "0" }, "pages start at 1"],
        [{ page: "two" }, "page must be a number"],
        [{ page: "1.5" }, "page must be a whole number"],
        [{ q: "x".repeat(201) }, "the search is limited to 200 characters"],
      ] as const) {
        const r = usersQuerySchema.safeParse(input);
        expect(r.success).toBe(false);
        expect(r.error!.issues.map((i) => i.message)).toEqual([message]);
      }
    });
  });
}
