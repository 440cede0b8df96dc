// The SCIM 2.0 server (docs/identity.md) over real HTTP against the built
// app, driven the way Okta and Entra ID drive it: look a user up by
// userName, create, PATCH `active` (both providers' spellings), push group
// memberships by PATCH add and remove by value filter, page through lists.
// Roles follow the group mappings at once; deprovisioning ends an open
// session and stops a standing approval the person approved from applying.
// Every refusal is in SCIM's error schema; tokens are checked on every call.
import { randomBytes, randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";
import { signInWithPassword } from "../helpers/sign-in";

const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";
const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
const ENTERPRISE_SCHEMA = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

type Answer = { status: number; body: Record<string, unknown>; headers: Headers };

export function scimSuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`SCIM 2.0 server (${provider})`, () => {
    const base = `${app?.baseUrl ?? ""}/scim/v2`;
    let token = "";
    let tokenId = "";
    let f: typeof import("../helpers/fixtures");
    let db: typeof import("@/lib/db/client").db;
    let mapGroup: typeof import("@/lib/groups/group-mappings").mapGroup;

    const call = async (method: string, path: string, body?: unknown, auth: string | null = `Bearer ${token}`, raw?: string): Promise<Answer> => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { ...(auth ? { authorization: auth } : {}), ...(body !== undefined || raw ? { "content-type": "application/scim+json" } : {}) },
        body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: res.headers };
    };
    /** `scimType` null: the error must carry none (RFC 7644 §3.12 defines them for 400 and 409 only). */
    const expectError = (a: Answer, status: number, scimType: string | null = null) => {
      expect(a.headers.get("content-type")).toMatch(/^application\/scim\+json/);
      expect(a.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: String(status) });
      expect(typeof a.body.detail).toBe("string");
      expect(a.body.scimType ?? null).toBe(scimType);
      expect(a.status).toBe(status);
    };
    const newUser = (email: string, extra: Record<string, unknown> = {}) => ({
      schemas: [USER_SCHEMA],
      userName: email,
      name: { givenName: "Dana", familyName: "Reviewer" },
      emails: [{ value: email, type: "work", primary: true }],
      active: true,
      ...extra,
    });
    const rolesOf = async (userId: string) =>
      (await db().userRole.findMany({ where: { userId }, orderBy: [{ role: "asc" }, { viaGroup: "asc" }] })).map(
        (r) => `${r.role}${r.viaGroup ? `@${r.viaGroup}` : ""}`,
      );

    beforeAll(async () => {
      f = await import("../helpers/fixtures");
      ({ db } = await import("@/lib/db/client"));
      ({ mapGroup } = await import("@/lib/groups/group-mappings"));
      const { createScimToken } = await import("@/lib/scim/scim-tokens");
      const made = await createScimToken({ name: `idp-${f.uid()}` }, "cli");
      token = made.token;
      tokenId = made.id;
    });

    it("refuses a missing, unknown or revoked token with 401 in SCIM's error schema, on every route", async () => {
      const { createScimToken, revokeScimToken } = await import("@/lib/scim/scim-tokens");
      const other = await createScimToken({ name: "to revoke" }, "cli");
      expect((await call("GET", "/Users", undefined, `Bearer ${other.token}`)).status).toBe(200);
      await revokeScimToken(other.id, "cli");
      for (const auth of [
        null,
        "Bearer cs_scim_notarealtokennotarealtoken",
        `Basic ${Buffer.from("a:b").toString("base64")}`,
        `Bearer ${other.token}`,
      ]) {
        for (const [method, path] of [
          ["GET", "/Users"],
          ["POST", "/Users"],
          ["GET", "/Groups/grp_x"],
          ["DELETE", "/Users/usr_x"],
          ["GET", "/ServiceProviderConfig"],
          ["GET", "/Schemas"],
        ] as const) {
          const a = await call(method, path, method === "POST" ? newUser(`nope-${f.uid()}@example.com`) : undefined, auth);
          expectError(a, 401);
          expect(a.headers.get("www-authenticate")).toMatch(/^Bearer/);
        }
      }
      // The stored token is a hash: the database never holds the token itself.
      const row = await db().scimToken.findUniqueOrThrow({ where: { id: other.id }, omit: { tokenHash: false } });
      expect(row.tokenHash).not.toContain(other.token);
      expect(row.revokedAt).not.toBeNull();
    });

    it("describes itself: ServiceProviderConfig, Schemas and ResourceTypes", async () => {
      const config = await call("GET", "/ServiceProviderConfig");
      expect(config.status).toBe(200);
      expect(config.body).toMatchObject({
        patch: { supported: true },
        filter: { supported: true, maxResults: 200 },
        bulk: { supported: false },
        sort: { supported: false },
        etag: { supported: false },
        changePassword: { supported: false },
        authenticationSchemes: [expect.objectContaining({ type: "oauthbearertoken" })],
      });
      const schemas = await call("GET", "/Schemas");
      expect(schemas.body.schemas).toEqual([LIST_SCHEMA]);
      expect((schemas.body.Resources as Array<{ id: string }>).map((s) => s.id).sort()).toEqual(
        [ENTERPRISE_SCHEMA, GROUP_SCHEMA, USER_SCHEMA].sort(),
      );
      const user = await call("GET", `/Schemas/${USER_SCHEMA}`);
      expect(user.body).toMatchObject({ id: USER_SCHEMA, name: "User" });
      expect((user.body.attributes as Array<{ name: string }>).map((a) => a.name)).toEqual(expect.arrayContaining(["userName", "active", "emails"]));
      expectError(await call("GET", "/Schemas/urn:nope"), 404);
      const types = await call("GET", "/ResourceTypes");
      expect((types.body.Resources as Array<{ name: string; endpoint: string }>).map((t) => [t.name, t.endpoint]).sort()).toEqual([
        ["Group", "/Groups"],
        ["User", "/Users"],
      ]);
      expect((await call("GET", "/ResourceTypes/User")).body).toMatchObject({ name: "User", schema: USER_SCHEMA });
      expectError(await call("GET", "/ResourceTypes/Printer"), 404);
    });

    it("Okta's sequence: look up by userName, create, read, deactivate by PATCH (ending the open session), reactivate", async () => {
      const { addUser } = await import("@/lib/users/add-user");
      const email = `okta-${f.uid()}@example.com`;
      const password = randomBytes(12).toString("base64url");
      // A user who signed in before provisioning began: SCIM adopts the account rather than making a second one.
      const existing = await addUser({ email, password, roles: ["reviewer"] }, "cli");
      const cookie = await signInWithPassword(app!.baseUrl, email, password);
      const page = (c: string) => fetch(`${app!.baseUrl}/approvals`, { headers: { cookie: c }, redirect: "manual" });
      expect((await page(cookie)).status).toBe(200);

      const lookup = await call("GET", `/Users?filter=${encodeURIComponent(`userName eq "${email.toUpperCase()}"`)}`);
      expect(lookup.body).toEqual({ schemas: [LIST_SCHEMA], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });

      const created = await call("POST", "/Users", newUser(email, { externalId: `00u${f.uid()}` }));
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ id: existing.id, userName: email, active: true, emails: [{ value: email, primary: true }] });
      expect(created.headers.get("location")).toBe(`${base}/Users/${existing.id}`);
      expect((created.body.meta as Record<string, unknown>).location).toBe(`${base}/Users/${existing.id}`);
      expect(created.headers.get("content-type")).toMatch(/^application\/scim\+json/);

      // userName matches case-insensitively, as RFC 7643 defines it.
      const found = await call("GET", `/Users?filter=${encodeURIComponent(`userName eq "${email.toUpperCase()}"`)}`);
      expect(found.body).toMatchObject({ totalResults: 1, Resources: [{ id: existing.id }] });
      expect((await call("GET", `/Users/${existing.id}`)).body).toMatchObject({ id: existing.id, displayName: "Dana Reviewer" });
      // attributes= narrows the answer, keeping id and schemas.
      const narrow = await call("GET", `/Users/${existing.id}?attributes=userName`);
      expect(narrow.body).toEqual({ schemas: [USER_SCHEMA], id: existing.id, userName: email });

      const off = await call("PATCH", `/Users/${existing.id}`, {
        schemas: [PATCH_SCHEMA],
        Operations: [{ op: "replace", value: { active: false } }],
      });
      expect(off.status).toBe(200);
      expect(off.body.active).toBe(false);
      expect(await db().user.findUniqueOrThrow({ where: { id: existing.id } })).toMatchObject({ disabledAt: expect.any(Date) });
      // The open session ended at once: the next page load is sent to sign in.
      const after = await page(cookie);
      expect(after.status).toBe(307);
      expect(after.headers.get("location")).toContain("/signin");
      expect((await db().session.findMany({ where: { userId: existing.id, revokedAt: null } })).length).toBe(0);

      const on = await call("PATCH", `/Users/${existing.id}`, {
        schemas: [PATCH_SCHEMA],
        Operations: [{ op: "replace", path: "active", value: true }],
      });
      expect(on.body.active).toBe(true);
      // Every change names the token that made it, and never a secret.
      const events = await db().auditEvent.findMany({ where: { actor: `scim:${tokenId}` }, orderBy: { seq: "asc" } });
      const mine = events.filter((e) => e.data.includes(email)).map((e) => [e.type, JSON.parse(e.data) as Record<string, unknown>]);
      expect(mine).toEqual([
        ["user.updated", { user: email, change: "provisioned" }],
        ["user.disabled", { user: email, source: "scim", sessions_revoked: 1 }],
        ["user.enabled", { user: email, source: "scim" }],
      ]);
      for (const e of events) expect(e.data).not.toContain(token);
    });

    it('Entra ID\'s spellings: "Replace" and active as the text "False"; PUT replaces the user', async () => {
      const email = `entra-${f.uid()}@example.com`;
      const created = await call(
        "POST",
        "/Users",
        newUser(email, { [ENTERPRISE_SCHEMA]: { department: "Finance" }, schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA] }),
      );
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      const off = await call("PATCH", `/Users/${id}`, {
        schemas: [PATCH_SCHEMA],
        Operations: [{ op: "Replace", path: "active", value: "False" }],
      });
      expect(off.status).toBe(200);
      expect(off.body.active).toBe(false);
      const renamed = `entra-${f.uid()}@example.com`;
      const put = await call("PUT", `/Users/${id}`, newUser(renamed, { displayName: "Dana R.", active: true }));
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ id, userName: renamed, displayName: "Dana R.", active: true });
      expect(await db().user.findUniqueOrThrow({ where: { id } })).toMatchObject({ email: renamed, name: "Dana R.", disabledAt: null });
    });

    it("lists with filters and pages: eq, co, sw, pr, and, or; startIndex and count", async () => {
      const tag = `page${f.uid()}`;
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const a = await call("POST", "/Users", newUser(`${tag}-${i}@example.com`, { externalId: i % 2 === 0 ? `${tag}-ext-${i}` : undefined }));
        ids.push(a.body.id as string);
      }
      const list = async (filter: string, query = "") => call("GET", `/Users?filter=${encodeURIComponent(filter)}${query}`);
      const all = await list(`userName sw "${tag}"`);
      expect(all.body).toMatchObject({ totalResults: 5, itemsPerPage: 5, startIndex: 1 });
      expect((all.body.Resources as Array<{ id: string }>).map((r) => r.id)).toEqual(ids);
      const page2 = await list(`userName sw "${tag}"`, "&startIndex=2&count=2");
      expect(page2.body).toMatchObject({ totalResults: 5, itemsPerPage: 2, startIndex: 2 });
      expect((page2.body.Resources as Array<{ id: string }>).map((r) => r.id)).toEqual(ids.slice(1, 3));
      const past = await list(`userName sw "${tag}"`, "&startIndex=9");
      expect(past.body).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
      expect((await list(`userName sw "${tag}"`, "&count=0")).body).toMatchObject({ totalResults: 5, itemsPerPage: 0 });
      expect((await list(`userName co "${tag}-3"`)).body).toMatchObject({ totalResults: 1, Resources: [{ id: ids[3] }] });
      expect((await list(`userName sw "${tag}" and externalId pr`)).body.totalResults).toBe(3);
      expect((await list(`externalId eq "${tag}-ext-0" or emails.value eq "${tag}-1@example.com"`)).body.totalResults).toBe(2);
      expect((await list(`userName sw "${tag}" and active eq true`)).body.totalResults).toBe(5);
      // Count above the server's limit is lowered to it, not refused.
      expect((await list(`userName sw "${tag}"`, "&count=100000")).status).toBe(200);
    });

    it("answers every refusal in SCIM's error schema, changing nothing", async () => {
      const before = await db().user.count();
      expectError(await call("POST", "/Users", undefined, undefined, "{not json"), 400, "invalidSyntax");
      expectError(await call("POST", "/Users", { schemas: [USER_SCHEMA], emails: [{ value: "x@example.com" }] }), 400, "invalidValue");
      expectError(await call("POST", "/Users", newUser("not-an-email")), 400, "invalidValue");
      expectError(await call("GET", `/Users?filter=${encodeURIComponent('userName eq "a" and (')}`), 400, "invalidFilter");
      expectError(await call("GET", `/Users?filter=${encodeURIComponent('password eq "a"')}`), 400, "invalidFilter");
      expectError(await call("GET", "/Users?startIndex=abc"), 400, "invalidValue");
      expectError(await call("GET", "/Users/usr_doesnotexist"), 404);
      expectError(await call("PUT", "/Users/usr_doesnotexist", newUser(`x-${f.uid()}@example.com`)), 404);
      expectError(await call("DELETE", "/Groups/grp_doesnotexist"), 404);
      const email = `dup-${f.uid()}@example.com`;
      expect((await call("POST", "/Users", newUser(email))).status).toBe(201);
      expectError(await call("POST", "/Users", newUser(email)), 409, "uniqueness");
      const created = await call("GET", `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`);
      const id = (created.body.Resources as Array<{ id: string }>)[0]!.id;
      expectError(
        await call("PATCH", `/Users/${id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "explode", path: "active", value: true }] }),
        400,
        "invalidSyntax",
      );
      expectError(await call("PATCH", `/Users/${id}`, { Operations: [] }), 400, "invalidSyntax");
      expectError(await call("POST", "/Users", undefined, undefined, JSON.stringify({ pad: "x".repeat(2 * 1024 * 1024) })), 413);
      expectError(
        await call("POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: `g-${f.uid()}`, members: [{ value: "usr_notprovisioned" }] }),
        400,
        "invalidValue",
      );
      expect(await db().user.count()).toBe(before + 1);
    });

    it("group memberships by PATCH add and remove-by-filter move roles at once; hand grants survive; DELETE ends the rest", async () => {
      const role = `pay-${f.uid()}`;
      const groupName = `Payments Approvers ${f.uid()}`;
      await mapGroup({ group: groupName, role, anyway: true }, "cli");
      const [ana, bo] = [
        await call("POST", "/Users", newUser(`ana-${f.uid()}@example.com`)),
        await call("POST", "/Users", newUser(`bo-${f.uid()}@example.com`)),
      ];
      const [anaId, boId] = [ana.body.id as string, bo.body.id as string];
      // Bo also holds the role by hand.
      const { grantRole } = await import("@/lib/users/roles");
      await grantRole({ email: bo.body.userName as string, role, anyway: true }, "cli");

      const group = await call("POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: groupName, externalId: `ext-${f.uid()}`, members: [] });
      expect(group.status).toBe(201);
      const gid = group.body.id as string;
      expect(group.headers.get("location")).toBe(`${base}/Groups/${gid}`);

      const add = await call("PATCH", `/Groups/${gid}`, {
        schemas: [PATCH_SCHEMA],
        Operations: [{ op: "Add", path: "members", value: [{ value: anaId }, { value: boId }] }],
      });
      expect(add.status).toBe(200);
      expect((add.body.members as Array<{ value: string }>).map((m) => m.value).sort()).toEqual([anaId, boId].sort());
      expect(await rolesOf(anaId)).toEqual([`${role}@${groupName}`]);
      expect(await rolesOf(boId)).toEqual([role, `${role}@${groupName}`]);
      // The user resource shows the group.
      expect((await call("GET", `/Users/${anaId}`)).body.groups).toEqual([{ value: gid, display: groupName, type: "direct" }]);
      const byName = await call("GET", `/Groups?filter=${encodeURIComponent(`displayName eq "${groupName.toLowerCase()}"`)}`);
      expect(byName.body).toMatchObject({ totalResults: 1, Resources: [{ id: gid, displayName: groupName }] });

      const remove = await call("PATCH", `/Groups/${gid}`, {
        schemas: [PATCH_SCHEMA],
        Operations: [
          { op: "remove", path: `members[value eq "${anaId}"]` },
          { op: "remove", path: `members[value eq "${boId}"]` },
        ],
      });
      expect(remove.status).toBe(200);
      expect(remove.body.members ?? []).toEqual([]);
      expect(await rolesOf(anaId)).toEqual([]);
      expect(await rolesOf(boId)).toEqual([role]);

      // Back in, renamed (the mapping follows the group), then deleted: the roles go with it.
      await call("PATCH", `/Groups/${gid}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path: "members", value: [{ value: anaId }] }] });
      const renamed = `${groupName} (EU)`;
      const put = await call("PUT", `/Groups/${gid}`, { schemas: [GROUP_SCHEMA], displayName: renamed, members: [{ value: anaId }] });
      expect(put.body.displayName).toBe(renamed);
      expect(await rolesOf(anaId)).toEqual([`${role}@${renamed}`]);
      expect((await call("DELETE", `/Groups/${gid}`)).status).toBe(204);
      expectError(await call("GET", `/Groups/${gid}`), 404);
      expect(await rolesOf(anaId)).toEqual([]);
      const types = (
        await db().auditEvent.findMany({ where: { actor: `scim:${tokenId}`, data: { contains: groupName } }, orderBy: { seq: "asc" } })
      ).map((e) => e.type);
      expect(types).toEqual(
        expect.arrayContaining(["group.created", "group.members_changed", "role.granted", "role.revoked", "group.updated", "group.deleted"]),
      );
    });

    it("deprovisioning (DELETE) disables the user, and a standing approval they approved stops applying", async () => {
      const standing = await import("@/lib/standing/standing-approvals");
      const role = `st-${f.uid()}`;
      const tool = `scim.pay.${f.uid()}`;
      const service = await f.makeService();
      const policy = await f.makePolicy({ tool, roles: [role], quorum: 2 });
      await db().policy.update({ where: { id: policy.id }, data: { standingMaxTtlSeconds: 3600 } });
      const ana = await call("POST", "/Users", newUser(`st-ana-${f.uid()}@example.com`));
      const bo = await call("POST", "/Users", newUser(`st-bo-${f.uid()}@example.com`));
      const [anaId, boId] = [ana.body.id as string, bo.body.id as string];
      const groupName = `standing-${f.uid()}`;
      await mapGroup({ group: groupName, role, anyway: true }, "cli");
      await call("POST", "/Groups", { schemas: [GROUP_SCHEMA], displayName: groupName, members: [{ value: anaId }, { value: boId }] });

      const args = { account: "AC-9", amount: 12 };
      const ask = async () =>
        (await f.makeApproval(service, { tool, arguments: args, run_id: `run_${randomUUID()}` })) as { approval_id: string; status: string };
      const first = await ask();
      const pins = [
        { path: "/account", op: "eq" as const },
        { path: "/amount", op: "lte" as const, value: 100 },
      ];
      const s = await standing.proposeStanding(anaId, { approvalId: first.approval_id, pins, expiresInSeconds: 1800, reason: "routine" });
      await standing.approveStanding(boId, s.id);
      expect((await ask()).status).toBe("approved");

      expect((await call("DELETE", `/Users/${boId}`)).status).toBe(204);
      expectError(await call("GET", `/Users/${boId}`), 404);
      expect(await db().user.findUniqueOrThrow({ where: { id: boId } })).toMatchObject({ disabledAt: expect.any(Date), scimUserName: null });
      const waiting = await ask();
      expect(waiting.status).toBe("pending");
      const skipped = await db().auditEvent.findFirstOrThrow({ where: { approvalId: waiting.approval_id, type: "standing.skipped" } });
      expect(JSON.parse(skipped.data)).toMatchObject({ standing: s.id, why: "approvers", counted: 1, quorum: 2 });
    });
  });
}
