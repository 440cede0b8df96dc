// Who may see each /admin page (docs/architecture.md): checked on the server from
// the database, never by the browser (the full matrix over HTTP:
// test/admin/admin-access.test.ts), and role changes taking effect on the
// next click.
import { expect, test } from "@playwright/test";
import { clientFor, cliService, requestFor, session, statusIn, userItem, usersPage } from "./admin-helpers";
import { adminCli, tag } from "./helpers";

// The whole matrix (anonymous, reviewer, admin, an admin disabled while
// signed in, on every admin page) is checked over HTTP in
// test/admin/admin-access.test.ts. What only a browser shows: Next renders
// the 403 page from its payload, so the refusal is seen here once.
test("a reviewer on an admin page sees “Not allowed” and the way back to the queue", async ({ browser }) => {
  const reviewer = await session(browser, ["reviewer"], "reviewer");
  const r = await reviewer.page.goto("/admin/users");
  expect(r?.status()).toBe(403);
  await expect(reviewer.page.getByRole("heading", { level: 1, name: "Not allowed" })).toBeVisible();
  await reviewer.page.getByRole("link", { name: "Back to the queue" }).click();
  await expect(reviewer.page.getByRole("heading", { level: 1, name: "Approvals" })).toBeVisible();
  await reviewer.context.close();
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
