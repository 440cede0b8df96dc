// Identity from the company's directory (docs/identity.md) in Chromium,
// against the real OIDC issuer (e2e/oidc-issuer.mjs) and the SCIM server:
// the groups claim of each sign-in gives the mapped roles and the next
// sign-in's claim changes them, an admin unmaps a group on /admin/groups,
// hand grants survive all of it, and a SCIM deactivation ends an open
// browser session at once.
import { expect, test, type Browser } from "@playwright/test";
import { session, statusIn, userItem, usersPage } from "./admin-helpers";
import { E2E } from "./config";
import { adminCli, createUser, onSignInPage, signIn, tag } from "./helpers";

/** Signs in through the issuer in a fresh context, with `groups` in the claim; returns the context's page. */
async function oidcSignIn(browser: Browser, login: string, groups: string[]) {
  const context = await browser.newContext({ baseURL: E2E.appUrl });
  const page = await context.newPage();
  await page.goto("/signin");
  await page.getByRole("button", { name: "Sign in with Test IdP" }).click();
  await expect(page.getByRole("heading", { name: "Test IdP sign-in" })).toBeVisible();
  await page.getByLabel("Username or email").fill(login);
  await page.getByLabel("Groups").fill(groups.join(", "));
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page).toHaveURL(`${E2E.appUrl}/approvals`);
  return { context, page };
}

test("a sign-in's groups give the mapped roles, the next sign-in's change them, an unmapped group takes its role away; hand grants stay", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const t = tag();
  const [payGroup, opsGroup] = [`Payments ${t}`, `Ops ${t}`];
  const [payRole, opsRole] = [`pay-${t}`, `ops-${t}`];
  adminCli(["group", "map", "--group", payGroup, "--role", payRole, "--anyway"]);
  adminCli(["group", "map", "--group", opsGroup, "--role", opsRole, "--anyway"]);
  const login = `dir-${t}`;
  const email = `${login}@idp.example.com`;
  const admin = await session(browser, ["admin"], "groups-admin");

  const rolesShown = async () => {
    await admin.page.goto(usersPage(email));
    const roles = userItem(admin.page, email).getByTestId("role");
    const texts = await roles.allInnerTexts();
    return texts
      .map((s) =>
        s
          .replace(/\s+/g, " ")
          .replace(/ granted .*/, "")
          .trim(),
      )
      .sort();
  };

  const first = await oidcSignIn(browser, login, [payGroup, opsGroup, `Lunch ${t}`]);
  // The reviewer's queue now knows them as a reviewer of both roles.
  await expect(first.page.getByText("You have no reviewer role yet")).toHaveCount(0);
  await first.context.close();
  expect(await rolesShown()).toEqual([`${opsRole} via group ${opsGroup}`, `${payRole} via group ${payGroup}`].sort());

  // Groups seen are listed with their members and roles.
  await admin.page.goto("/admin/groups");
  const lunch = admin.page.getByRole("listitem", { name: `Lunch ${t}`, exact: true });
  await expect(lunch.getByTestId("group-members")).toHaveText("1 member, from sign-ins");
  await expect(lunch.getByText("Maps to no role.")).toBeVisible();

  // A hand grant of the payments role, then a sign-in whose claim no longer names Payments.
  adminCli(["role", "grant", "--email", email, "--role", payRole, "--anyway"]);
  const second = await oidcSignIn(browser, login, [opsGroup]);
  await second.context.close();
  expect(await rolesShown()).toEqual([opsRole + ` via group ${opsGroup}`, payRole].sort());

  // The admin unmaps Ops on /admin/groups (asked to confirm): the role goes at once.
  await admin.page.goto("/admin/groups");
  const ops = admin.page.getByRole("listitem", { name: opsGroup, exact: true });
  await ops.getByLabel("Role to unmap").selectOption(opsRole);
  await ops.getByRole("button", { name: "Unmap role" }).click();
  await ops.getByRole("button", { name: "Confirm: Unmap role" }).click();
  await expect(statusIn(ops)).toHaveText(`Unmapped ${opsGroup} from ${opsRole}; 1 member lost it.`);
  expect(await rolesShown()).toEqual([payRole]);

  // Mapping it again from the page gives it back to the members.
  await admin.page.goto("/admin/groups");
  const form = admin.page.getByRole("region", { name: "Map a group to a role" });
  await form.getByLabel("Group").fill(opsGroup);
  await form.getByLabel("Role", { exact: true }).fill(opsRole);
  // No policy uses the role (this test maps it for its members alone): refused with why, then mapped anyway.
  await form.getByRole("button", { name: "Map group" }).click();
  await expect(form.getByRole("alert")).toContainText(`No policy requires the role “${opsRole}”`);
  await expect(form.getByRole("alert")).toContainText("tick “Map anyway”");
  await form.getByLabel("Map anyway").check();
  await form.getByRole("button", { name: "Map group" }).click();
  await expect(statusIn(form)).toHaveText(`Mapped ${opsGroup} to ${opsRole}; 1 member holds it now.`);
  expect(await rolesShown()).toEqual([opsRole + ` via group ${opsGroup}`, payRole].sort());
  await admin.context.close();
});

test("SCIM deactivation ends an open browser session at once", async ({ page }) => {
  const user = createUser({ roles: ["reviewer"], prefix: "scim" });
  await signIn(page, user);
  await expect(page.getByRole("heading", { level: 1, name: "Approvals" })).toBeVisible();

  const { token } = adminCli(["scim", "token", "create", "--name", "e2e"]) as { token: string };
  const scim = (method: string, path: string, body: unknown) =>
    fetch(`${E2E.appUrl}/scim/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" },
      body: JSON.stringify(body),
    });
  const created = await scim("POST", "/Users", {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
    userName: user.email,
    emails: [{ value: user.email, primary: true }],
    active: true,
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const off = await scim("PATCH", `/Users/${id}`, {
    schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
    Operations: [{ op: "replace", path: "active", value: false }],
  });
  expect(off.status).toBe(200);

  // The open page's next request finds no session.
  await page.reload();
  await expect(page).toHaveURL(onSignInPage);
  await expect(page.getByTestId("current-user")).toHaveCount(0);
});
