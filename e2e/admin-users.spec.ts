// The users page (docs/operations.md): its server actions refused server-side for a
// non-admin, creating a user who can sign in, and disabling one ending their
// open session at once.
import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { captureAction, rolesOf, session, statusIn, useAdminAndReviewer, userItem } from "./admin-helpers";
import { E2E } from "./config";
import { createUser, onSignInPage, signIn, uniqueEmail } from "./helpers";

test.describe.serial("admin server actions are refused server-side for a non-admin", () => {
  const { sessions, check } = useAdminAndReviewer();

  test("users: create, grant, revoke, disable, enable", async () => {
    const { admin } = sessions;
    test.setTimeout(180_000);
    const page = admin.page;
    const target = createUser({ roles: ["keep-me"], prefix: "target" });

    // Create a user.
    const newEmail = uniqueEmail("created");
    await page.goto("/admin/users");
    const create = await captureAction(page, async () => {
      const form = page.getByRole("region", { name: "Create a user" });
      await form.getByLabel("Email").fill(newEmail);
      await form.getByRole("button", { name: "Create user" }).click();
    });
    await check(
      create,
      async () => {
        await page.goto("/admin/users");
        await expect(userItem(page, newEmail)).toHaveCount(0);
      },
      async () => {
        await page.goto("/admin/users");
        await expect(userItem(page, newEmail)).toHaveCount(1);
      },
    );

    // Grant a role.
    await page.goto("/admin/users");
    const grant = await captureAction(page, async () => {
      const item = userItem(page, target.email);
      await item.getByLabel("Role to grant").fill("granted-x");
      await item.getByRole("button", { name: "Grant role" }).click();
    });
    await check(
      grant,
      async () => {
        await page.goto("/admin/users");
        await expect(rolesOf(userItem(page, target.email))).toHaveText(["keep-me"]);
      },
      async () => {
        await page.goto("/admin/users");
        await expect(rolesOf(userItem(page, target.email))).toHaveText(["granted-x", "keep-me"]);
      },
    );

    // Revoke a role.
    await page.goto("/admin/users");
    const revoke = await captureAction(page, async () => {
      const item = userItem(page, target.email);
      await item.getByLabel("Role to revoke").selectOption("keep-me");
      await item.getByRole("button", { name: "Revoke role" }).click();
    });
    await check(
      revoke,
      async () => {
        await page.goto("/admin/users");
        await expect(rolesOf(userItem(page, target.email))).toHaveText(["granted-x", "keep-me"]);
      },
      async () => {
        await page.goto("/admin/users");
        await expect(rolesOf(userItem(page, target.email))).toHaveText(["granted-x"]);
      },
    );

    // Disable, then enable.
    const statusOf = () => userItem(page, target.email).getByTestId("user-status");
    await page.goto("/admin/users");
    const disable = await captureAction(page, async () => {
      const item = userItem(page, target.email);
      await item.getByRole("button", { name: "Disable user" }).click();
      await item.getByRole("button", { name: "Confirm: Disable user" }).click();
    });
    await check(
      disable,
      async () => {
        await page.goto("/admin/users");
        await expect(statusOf()).toHaveText("active");
      },
      async () => {
        await page.goto("/admin/users");
        await expect(statusOf()).toHaveText("disabled");
      },
    );
    const enable = await captureAction(page, () => userItem(page, target.email).getByRole("button", { name: "Enable user" }).click());
    await check(
      enable,
      async () => {
        await page.goto("/admin/users");
        await expect(statusOf()).toHaveText("disabled");
      },
      async () => {
        await page.goto("/admin/users");
        await expect(statusOf()).toHaveText("active");
      },
    );
  });
});

test("users page: create a user who can sign in; disabling them ends their open session at once", async ({ browser }) => {
  test.setTimeout(120_000);
  const admin = await session(browser, ["admin"], "admin");
  const page = admin.page;
  const email = uniqueEmail("ui-made");
  const password = randomBytes(12).toString("base64url");

  await page.goto("/admin/users");
  const form = page.getByRole("region", { name: "Create a user" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Name").fill("Made In UI");
  await form.getByLabel("Password").fill(password);
  await form.getByLabel("Roles").fill("reviewer, payments");
  await form.getByRole("button", { name: "Create user" }).click();
  await expect(statusIn(form)).toContainText(`Created ${email} with payments, reviewer.`);
  await expect(rolesOf(userItem(page, email))).toHaveText(["payments", "reviewer"]);
  await expect(userItem(page, email)).toContainText("Last sign-in: never");

  const other = await browser.newContext({ baseURL: E2E.appUrl });
  const otherPage = await other.newPage();
  await signIn(otherPage, { email, password }, { hydrated: true });

  await page.reload();
  await expect(userItem(page, email)).not.toContainText("Last sign-in: never");
  const item = userItem(page, email);
  await item.getByRole("button", { name: "Disable user" }).click();
  await item.getByRole("button", { name: "Confirm: Disable user" }).click();
  await expect(statusIn(item)).toContainText(`Disabled ${email}; 1 session(s) ended.`);
  await expect(item.getByTestId("user-status")).toHaveText("disabled");

  await otherPage.goto("/approvals");
  await expect(otherPage).toHaveURL(onSignInPage);

  // The admin's self-grant is allowed, marked on the page and in the audit trail.
  const me = userItem(page, admin.user.email);
  await me.getByLabel("Role to grant").fill("payments");
  await me.getByRole("button", { name: "Grant role" }).click();
  await expect(statusIn(me)).toContainText("self-grant");
  await expect(me.getByTestId("role").filter({ hasText: "payments" })).toContainText("self-granted");
  await page.goto(`/admin/audit?type=role.granted&actor=${encodeURIComponent(`user:${admin.user.email}`)}`);
  await expect(page.getByTestId("audit-data").first()).toContainText('"selfGrant":true');

  await Promise.all([admin.context.close(), other.close()]);
});
