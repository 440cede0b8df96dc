// Who may see each /admin page (docs/architecture.md): checked on the server from
// the database, never by the browser, and role changes taking effect on the
// next click.
import { expect, test } from "@playwright/test";
import { clientFor, cliService, requestFor, session, statusIn, userItem, usersPage } from "./admin-helpers";
import { E2E } from "./config";
import { adminCli, onSignInPage, tag } from "./helpers";

const ADMIN_PAGES = [
  "/admin/users",
  "/admin/policies",
  "/admin/services",
  "/admin/audit",
  "/admin/outbox",
  "/admin/executions",
  "/admin/insights",
] as const;

test.describe("admin pages: who may see them", () => {
  test("anonymous → /signin, reviewer → 403, disabled admin → /signin, admin → 200", async ({ browser }) => {
    test.setTimeout(180_000);
    const anonymous = await browser.newContext({ baseURL: E2E.appUrl });
    const anonPage = await anonymous.newPage();
    for (const path of ADMIN_PAGES) {
      await anonPage.goto(path);
      await expect(anonPage, path).toHaveURL(onSignInPage);
      await expect(anonPage.getByTestId("current-user")).toHaveCount(0);
    }

    const reviewer = await session(browser, ["reviewer", "payments"], "reviewer");
    for (const path of ADMIN_PAGES) {
      const r = await reviewer.page.goto(path);
      expect(r?.status(), path).toBe(403);
      await expect(reviewer.page.getByRole("heading", { level: 1, name: "Not allowed" })).toBeVisible();
    }
    // No admin links for a reviewer.
    await reviewer.page.goto("/approvals");
    await expect(reviewer.page.getByRole("link", { name: "Users" })).toHaveCount(0);

    const admin = await session(browser, ["admin"], "admin");
    const headings = {
      "/admin/users": "Users",
      "/admin/policies": "Policies",
      "/admin/services": "Services",
      "/admin/audit": "Audit trail",
      "/admin/outbox": "Outbox",
      "/admin/executions": "Executions",
      "/admin/insights": "Insights",
    };
    for (const path of ADMIN_PAGES) {
      const r = await admin.page.goto(path);
      expect(r?.status(), path).toBe(200);
      await expect(admin.page.getByRole("heading", { level: 1, name: headings[path] })).toBeVisible();
    }
    await admin.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Policies" }).click();
    await expect(admin.page).toHaveURL(/\/admin\/policies$/);

    // Disabled while signed in: the very next request is anonymous.
    adminCli(["user", "disable", "--email", admin.user.email]);
    for (const path of ADMIN_PAGES) {
      await admin.page.goto(path);
      await expect(admin.page, path).toHaveURL(onSignInPage);
    }
    // Enabling again does not revive the old session.
    adminCli(["user", "enable", "--email", admin.user.email]);
    await admin.page.goto("/admin/users");
    await expect(admin.page).toHaveURL(onSignInPage);

    await Promise.all([anonymous.close(), reviewer.context.close(), admin.context.close()]);
  });
});

test("a granted role works on the reviewer's next click, and a revoked one stops the next click", async ({ browser }) => {
  test.setTimeout(120_000);
  const t = tag();
  const role = `grant-${t}`;
  adminCli(["policy", "set", "--anyway", "--name", `e2e-grant-${t}`, "--tool", `grant${t}.*`, "--roles", role, "--quorum", "1", "--ttl", "3600"]);
  const client = clientFor(cliService());
  const approval = await requestFor(client, `grant${t}.pay`);

  const admin = await session(browser, ["admin"], "admin");
  const reviewer = await session(browser, ["reviewer"], "reviewer");
  const approveButton = reviewer.page.getByRole("button", { name: "Approve", exact: true });

  // Without one of its roles the request is not shown at all: the 404 of an unknown id (docs/security.md).
  const before = await reviewer.page.goto(`/approvals/${approval.approval_id}`);
  expect(before?.status()).toBe(404);
  await expect(reviewer.page.getByRole("heading", { level: 1, name: `grant${t}.pay` })).toHaveCount(0);
  await expect(approveButton).toHaveCount(0);

  const grant = async () => {
    await admin.page.goto(usersPage(reviewer.user.email));
    const item = userItem(admin.page, reviewer.user.email);
    await item.getByLabel("Role to grant").fill(role);
    await item.getByRole("button", { name: "Grant role" }).click();
    await expect(statusIn(item)).toContainText(`Granted ${role} to ${reviewer.user.email}`);
  };

  // Granted: the reviewer's next page load shows the buttons, no new sign-in.
  await grant();
  await reviewer.page.reload();
  await expect(reviewer.page.getByRole("heading", { level: 1, name: `grant${t}.pay` })).toBeVisible();
  await expect(approveButton).toBeVisible();

  // Revoked while the buttons are on screen: the click is refused.
  await admin.page.goto(usersPage(reviewer.user.email));
  const item = userItem(admin.page, reviewer.user.email);
  await item.getByLabel("Role to revoke").selectOption(role);
  await item.getByRole("button", { name: "Revoke role" }).click();
  await expect(item.getByRole("alert")).toContainText(`Revoke the chosen role from ${reviewer.user.email}?`);
  await item.getByRole("button", { name: "Confirm: Revoke role" }).click();
  await expect(statusIn(item)).toContainText(`Revoked ${role}`);
  await approveButton.click();
  await expect(reviewer.page.getByRole("main").getByRole("alert")).toBeVisible();
  expect((await client.getApproval(approval.approval_id)).status).toBe("pending");

  // Granted again: the same open page's next click goes through.
  await grant();
  await approveButton.click();
  await expect.poll(async () => (await client.getApproval(approval.approval_id)).status).toBe("approved");
  expect((await client.getApproval(approval.approval_id)).decided_by).toEqual([reviewer.user.email]);

  await Promise.all([admin.context.close(), reviewer.context.close()]);
});
