// Time-bound roles (role grant --until, the admin page's "until" field) on a
// real database, with explicit clocks: the role decides up to its end and not
// at it, swept or not (the authority check, the session's permissions, the
// queue's visibility, who is told, the users list); the sweep records one
// role.expired per role, once, however often it runs; bad or past times are
// refused with nothing stored.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { direct } from "@/lib/db/sql";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";
import { refusalWithMessage as refusal } from "../helpers/refusal-code";
import { adminInProcess } from "../helpers/admin-cli";

export function timeBoundRolesSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`time-bound roles (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let roles: typeof import("@/lib/users/roles");
    let expireRoles: typeof import("@/lib/users/expire-roles").expireRoles;
    let listUsers: typeof import("@/lib/users/list-users").listUsers;
    let authority: typeof import("@/lib/reviews/authority");
    let loadPerson: typeof import("@/lib/reviews/people").loadPerson;
    let recordVoteInTx: typeof import("@/lib/reviews/record-review").recordVoteInTx;
    let inTransaction: typeof import("@/lib/db/transaction").inTransaction;
    let recipientsAmong: typeof import("@/lib/notifications/recipients").recipientsAmong;
    let countPossibleApprovers: typeof import("@/lib/notifications/recipients").countPossibleApprovers;
    let visibility: typeof import("@/lib/reviews/visibility");
    let verifyChain: typeof import("@/lib/audit/verify-chain").verifyChain;

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      roles = await import("@/lib/users/roles");
      ({ expireRoles } = await import("@/lib/users/expire-roles"));
      ({ listUsers } = await import("@/lib/users/list-users"));
      authority = await import("@/lib/reviews/authority");
      ({ loadPerson } = await import("@/lib/reviews/people"));
      ({ recordVoteInTx } = await import("@/lib/reviews/record-review"));
      ({ inTransaction } = await import("@/lib/db/transaction"));
      ({ recipientsAmong, countPossibleApprovers } = await import("@/lib/notifications/recipients"));
      visibility = await import("@/lib/reviews/visibility");
      ({ verifyChain } = await import("@/lib/audit/verify-chain"));
      // The roles granted below are used by a policy (granting one nobody uses needs "anyway": test/policies/reachability.suite.ts).
      await f.makePolicy({ tool: "time-bound.*", roles: ["oncall", "payments"], quorum: 1 });
    });
    afterAll(async () => ctx?.close());

    const at = (iso: string) => new Date(iso);
    const events = async (type: string, email: string) =>
      (await ctx.db.auditEvent.findMany({ where: { type }, orderBy: { seq: "asc" } }))
        .map((e) => ({ actor: e.actor, data: JSON.parse(e.data) as Record<string, unknown> }))
        .filter((e) => e.data.user === email);

    it("grants a role until a time: stored, listed with its end, and recorded with it", async () => {
      const u = await f.makeUser([]);
      const now = new Date();
      const until = new Date(now.getTime() + 3600_000);
      const r = await roles.grantRole({ email: u.email, role: "oncall", until: until.toISOString() }, "cli", now);
      expect(r).toEqual({ email: u.email, role: "oncall", granted: true, until: until.toISOString() });
      const row = await ctx.db.userRole.findUniqueOrThrow({ where: { userId_role_viaGroup: { userId: u.id, role: "oncall", viaGroup: "" } } });
      expect(row.expiresAt?.toISOString()).toBe(until.toISOString());
      expect((await listUsers(now)).find((x) => x.email === u.email)!.roles).toMatchObject([{ role: "oncall", until }]);
      expect(await events("role.granted", u.email)).toEqual([
        { actor: "cli", data: { user: u.email, role: "oncall", selfGrant: false, until: until.toISOString() } },
      ]);
      // Without --until nothing changes: no end, no "until" in the record.
      const plain = await roles.grantRole({ email: u.email, role: "reviewer" }, "cli");
      expect(plain).toEqual({ email: u.email, role: "reviewer", granted: true });
      expect((await events("role.granted", u.email))[1]!.data).toEqual({ user: u.email, role: "reviewer", selfGrant: false });
    });

    it("reads a time without an offset as UTC, and refuses past, unreadable and too distant times with nothing stored", async () => {
      const u = await f.makeUser([]);
      const now = at("2026-12-04T12:00:00Z");
      const r = await roles.grantRole({ email: u.email, role: "oncall", until: "2026-12-04T18:30" }, "cli", now);
      expect(r.until).toBe("2026-12-04T18:30:00.000Z");
      const offset = await roles.grantRole({ email: u.email, role: "payments", until: "2026-12-04T19:30+01:00" }, "cli", now);
      expect(offset.until).toBe("2026-12-04T18:30:00.000Z");
      for (const [until, message] of [
        ["2026-12-04T11:59:59Z", "until: must be in the future"],
        ["2026-12-04T12:00:00Z", "until: must be in the future"],
        ["tomorrow", "until: must be a date and time such as 2026-12-31T18:00Z (UTC when no offset is given)"],
        ["2026-02-30T10:00Z", "until: must be a date and time such as 2026-12-31T18:00Z (UTC when no offset is given)"],
        ["2032-12-04T12:00:00Z", "until: must be within five years"],
      ] as const) {
        expect(await refusal(roles.grantRole({ email: u.email, role: "auditor-x", until }, "cli", now))).toMatchObject({
          code: "invalid-request",
          message,
        });
      }
      expect(await ctx.db.userRole.count({ where: { userId: u.id, role: "auditor-x" } })).toBe(0);
      expect(await events("role.granted", u.email)).toHaveLength(2);
    });

    it("decides up to its end and not at it, on every reading of roles, before any sweep", async () => {
      const service = await f.makeService();
      const tool = `tb.${f.uid()}`;
      const role = `tb-${f.uid()}`;
      await f.makePolicy({ tool, roles: [role], quorum: 2 });
      const ria = await f.makeUser([]);
      const grantedAt = new Date();
      const until = new Date(grantedAt.getTime() + 10 * 60_000);
      await roles.grantRole({ email: ria.email, role, until: until.toISOString() }, "cli", grantedAt);
      const a = await f.makeApproval(service, { tool });
      const row = await ctx.db.approval.findUniqueOrThrow({ where: { id: a.approval_id } });
      const before = new Date(until.getTime() - 1);
      const after = new Date(until.getTime() + 1);

      // The authority check, at its own clock.
      const person = await loadPerson(direct(), ria.id);
      expect(person!.roles).toEqual([{ role, expiresAt: until }]);
      const subject = { ...row, expiresAt: new Date(until.getTime() + 3600_000) };
      expect(authority.mayDecide(person, subject, { roles: [role] }, before)).toEqual({ ok: true });
      expect(authority.mayDecide(person, subject, { roles: [role] }, until)).toMatchObject({ ok: false, code: "not-eligible" });
      expect(authority.mayDecide(person, subject, { roles: [role] }, after)).toMatchObject({ ok: false, code: "not-eligible" });

      // A vote at a time after the end is refused and records nothing; before it, it counts.
      expect(
        await refusal(
          inTransaction((tx) => recordVoteInTx(tx, ria.id, { approvalId: a.approval_id, decision: "approve" }, "browser", { at: after })),
        ),
      ).toMatchObject({ code: "not-eligible" });
      expect(await ctx.db.review.count({ where: { approvalId: a.approval_id } })).toBe(0);
      await inTransaction((tx) => recordVoteInTx(tx, ria.id, { approvalId: a.approval_id, decision: "approve" }, "browser", { at: before }));
      expect(await ctx.db.review.count({ where: { approvalId: a.approval_id } })).toBe(1);

      // The session's permissions, what the queue and pages let them see, who is told, who could approve, the users list.
      expect(await roles.rolesOf(ctx.db, ria.id, before)).toEqual([role]);
      expect(await roles.rolesOf(ctx.db, ria.id, until)).toEqual([]);
      const viewer = (await visibility.loadViewer(ria.id))!;
      expect(visibility.rolesOf(viewer, before)).toEqual([role]);
      expect(visibility.rolesOf(viewer, after)).toEqual([]);
      const facts = { ...row, reviews: [], expiresAt: subject.expiresAt };
      const among = await inTransaction((tx) => recipientsAmong(tx, [role]));
      expect(among.eligibleFor(facts, before).map((r) => r.email)).toEqual([ria.email]);
      expect(among.eligibleFor(facts, after)).toEqual([]);
      expect(await countPossibleApprovers(direct(), row, before)).toBe(1);
      expect(await countPossibleApprovers(direct(), row, after)).toBe(0);
      expect((await listUsers(after)).find((x) => x.email === ria.email)!.roles).toEqual([]);
      // The row is still there: nothing above depended on the sweep.
      expect(await ctx.db.userRole.count({ where: { userId: ria.id, role } })).toBe(1);
    });

    it("ends by itself: the sweep removes the role at its end with one role.expired, once, and the chain verifies", async () => {
      const u = await f.makeUser([]);
      const now = new Date();
      const until = new Date(now.getTime() + 60_000);
      await roles.grantRole({ email: u.email, role: "oncall", until: until.toISOString() }, "cli", now);
      await roles.grantRole({ email: u.email, role: "reviewer" }, "cli", now);

      // (Other tests' roles share this database: the counts below are this user's.)
      await expireRoles(new Date(until.getTime() - 1));
      expect(await ctx.db.userRole.count({ where: { userId: u.id } })).toBe(2);
      expect(await events("role.expired", u.email)).toEqual([]);
      // Two sweeps at once (two instances): between them it ends once.
      const [a, b] = await Promise.all([expireRoles(until), expireRoles(until)]);
      expect(a + b).toBeGreaterThanOrEqual(1);
      await expireRoles(new Date(until.getTime() + 60_000));
      expect((await ctx.db.userRole.findMany({ where: { userId: u.id } })).map((r) => r.role)).toEqual(["reviewer"]);
      expect(await events("role.expired", u.email)).toEqual([
        { actor: "system", data: { user: u.email, role: "oncall", until: until.toISOString() } },
      ]);
      expect(await verifyChain()).toMatchObject({ ok: true });
    });

    it("a role in force cannot be granted again; one that ended (not yet swept) is recorded as ended, then granted anew", async () => {
      const u = await f.makeUser([]);
      const now = new Date();
      const until = new Date(now.getTime() + 60_000);
      await roles.grantRole({ email: u.email, role: "oncall", until: until.toISOString() }, "cli", now);
      expect(await refusal(roles.grantRole({ email: u.email, role: "oncall" }, "cli", now))).toMatchObject({
        code: "conflict",
        message: `${u.email} already has role oncall until ${until.toISOString()}`,
      });
      const later = new Date(until.getTime() + 1000);
      await roles.grantRole({ email: u.email, role: "oncall" }, "cli", later);
      const seq = (await ctx.db.auditEvent.findMany({ where: { type: { in: ["role.expired", "role.granted"] } }, orderBy: { seq: "asc" } }))
        .filter((e) => (JSON.parse(e.data) as { user: string }).user === u.email)
        .map((e) => e.type);
      expect(seq).toEqual(["role.granted", "role.expired", "role.granted"]);
      const row = await ctx.db.userRole.findUniqueOrThrow({ where: { userId_role_viaGroup: { userId: u.id, role: "oncall", viaGroup: "" } } });
      expect(row.expiresAt).toBeNull();
      await expireRoles(new Date(later.getTime() + 3600_000));
      expect(await ctx.db.userRole.count({ where: { userId: u.id, role: "oncall" } })).toBe(1);
      expect(await events("role.expired", u.email)).toHaveLength(1);
    });

    it("an ended admin role does not count as an admin, and revoking an ended role says it is not held", async () => {
      const u = await f.makeUser([]);
      const now = new Date();
      await roles.grantRole({ email: u.email, role: "admin", until: new Date(now.getTime() + 60_000).toISOString() }, "cli", now);
      const admins = await roles.countActiveAdmins(ctx.db, now);
      expect(await roles.countActiveAdmins(ctx.db, new Date(now.getTime() + 120_000))).toBe(admins - 1);
      await ctx.db.userRole.update({
        where: { userId_role_viaGroup: { userId: u.id, role: "admin", viaGroup: "" } },
        data: { expiresAt: new Date(Date.now() - 1000) },
      });
      expect(await refusal(roles.revokeRole({ email: u.email, role: "admin" }, "cli"))).toMatchObject({ code: "not-found" });
      // Nor does it make them "the last admin": with every other admin disabled, disabling them is still allowed.
      const { disableUser, enableUser } = await import("@/lib/users/disable-user");
      const others = await ctx.db.user.findMany({
        where: { disabledAt: null, roles: { some: { role: "admin" } }, id: { not: u.id } },
        select: { email: true },
      });
      await ctx.db.user.updateMany({ where: { email: { in: others.map((o) => o.email) } }, data: { disabledAt: new Date() } });
      try {
        expect(await refusal(disableUser(u.email, "cli"))).toBe("accepted");
        await enableUser(u.email, "cli");
      } finally {
        await ctx.db.user.updateMany({ where: { email: { in: others.map((o) => o.email) } }, data: { disabledAt: null } });
      }
    });

    it("on the command line: role grant --until, shown by user list; a bad time is refused with its reason", async () => {
      const u = await f.makeUser([]);
      const until = new Date(Date.now() + 3 * 3600_000);
      until.setUTCMilliseconds(0);
      const granted = await adminInProcess(["role", "grant", "--email", u.email, "--role", "oncall", "--until", until.toISOString()]);
      expect(granted.code, granted.stderr).toBe(0);
      expect(JSON.parse(granted.stdout)).toEqual({ email: u.email, role: "oncall", granted: true, until: until.toISOString() });
      const listed = JSON.parse((await adminInProcess(["user", "list"])).stdout) as { users: Array<Record<string, unknown>> };
      expect(listed.users.find((x) => x.email === u.email)).toMatchObject({ roles: ["oncall"], roles_until: { oncall: until.toISOString() } });
      const bad = await adminInProcess(["role", "grant", "--email", u.email, "--role", "payments", "--until", "yesterday"]);
      expect(bad).toMatchObject({ code: 1, stdout: "" });
      expect(bad.stderr).toBe("error: invalid-request: until: must be a date and time such as 2026-12-31T18:00Z (UTC when no offset is given)\n");
    });
  });
}
