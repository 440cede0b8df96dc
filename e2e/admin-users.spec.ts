// The users page (docs/operations.md): its server actions refused server-side for a
// non-admin, creating a user who can sign in, and disabling one ending their
// open session at once.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { captureAction, rolesOf, session, statusIn, useAdminAndReviewer, userItem, usersPage } from "./admin-helpers";
import { E2E } from "./config";
import { adminCli, createUser, e2eEnv, onSignInPage, signIn, tag, uniqueEmail } from "./helpers";

test.describe.serial("admin server actions are refused server-side for a non-admin", () => {
  const { sessions, check } = useAdminAndReviewer();

  test("users: create, grant, revoke, disable, enable", async () => {
    const { admin } = sessions;
    test.setTimeout(180_000);
    const page = admin.page;
    const target = createUser({ roles: ["keep-me"], prefix: "target" });

    // Create a user.
    const newEmail = uniqueEmail("created");
    await page.goto(usersPage(newEmail));
    const create = await captureAction(page, async () => {
      const form = page.getByRole("region", { name: "Create a user" });
      await form.getByLabel("Email").fill(newEmail);
      await form.getByRole("button", { name: "Create user" }).click();
    });
    await check(
      create,
      async () => {
        await page.goto(usersPage(newEmail));
        await expect(userItem(page, newEmail)).toHaveCount(0);
      },
      async () => {
        await page.goto(usersPage(newEmail));
        await expect(userItem(page, newEmail)).toHaveCount(1);
      },
    );

    // Grant a role.
    await page.goto(usersPage(target.email));
    const grant = await captureAction(page, async () => {
      const item = userItem(page, target.email);
      await item.getByLabel("Role to grant").fill("granted-x");
      await item.getByLabel("Grant anyway").check();
      await item.getByRole("button", { name: "Grant role" }).click();
    });
    await check(
      grant,
      async () => {
        await page.goto(usersPage(target.email));
        await expect(rolesOf(userItem(page, target.email))).toHaveText(["keep-me"]);
      },
      async () => {
        await page.goto(usersPage(target.email));
        await expect(rolesOf(userItem(page, target.email))).toHaveText(["granted-x", "keep-me"]);
      },
    );

    // Revoke a role.
    await page.goto(usersPage(target.email));
    const revoke = await captureAction(page, async () => {
      const item = userItem(page, target.email);
      await item.getByLabel("Role to revoke").selectOption("keep-me");
      await item.getByRole("button", { name: "Revoke role" }).click();
      await item.getByRole("button", { name: "Confirm: Revoke role" }).click();
    });
    await check(
      revoke,
      async () => {
        await page.goto(usersPage(target.email));
        await expect(rolesOf(userItem(page, target.email))).toHaveText(["granted-x", "keep-me"]);
      },
      async () => {
        await page.goto(usersPage(target.email));
        await expect(rolesOf(userItem(page, target.email))).toHaveText(["granted-x"]);
      },
    );

    // Disable, then enable.
    const statusOf = () => userItem(page, target.email).getByTestId("user-status");
    await page.goto(usersPage(target.email));
    const disable = await captureAction(page, async () => {
      const item = userItem(page, target.email);
      await item.getByRole("button", { name: "Disable user" }).click();
      await item.getByRole("button", { name: "Confirm: Disable user" }).click();
    });
    await check(
      disable,
      async () => {
        await page.goto(usersPage(target.email));
        await expect(statusOf()).toHaveText("active");
      },
      async () => {
        await page.goto(usersPage(target.email));
        await expect(statusOf()).toHaveText("disabled");
      },
    );
    const enable = await captureAction(page, () => userItem(page, target.email).getByRole("button", { name: "Enable user" }).click());
    await check(
      enable,
      async () => {
        await page.goto(usersPage(target.email));
        await expect(statusOf()).toHaveText("disabled");
      },
      async () => {
        await page.goto(usersPage(target.email));
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

  await page.goto(usersPage(email));
  const form = page.getByRole("region", { name: "Create a user" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Name").fill("Made In UI");
  await form.getByLabel("Password").fill(password);
  await form.getByLabel("Roles").fill("reviewer, payments");
  // Whether a policy uses "payments" yet depends on the specs run before this one.
  await form.getByLabel("Create anyway").check();
  await form.getByRole("button", { name: "Create user" }).click();
  await expect(statusIn(form)).toContainText(`Created ${email} with payments, reviewer.`);
  await expect(rolesOf(userItem(page, email))).toHaveText(["payments", "reviewer"]);
  await expect(userItem(page, email)).toContainText("Last sign-in: never");
  await form.getByLabel("Email").fill(email);
  await form.getByRole("button", { name: "Create user" }).click();
  await expect(form.getByRole("alert")).toHaveText(`A user with the email ${email} already exists.`);

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

  // The search form: by part of the name, in another case; "Show all" clears it.
  await page.goto("/admin/users");
  const search = page.getByRole("search", { name: "Find users" });
  await search.getByLabel("Email or name contains").fill("made in ui");
  await search.getByRole("button", { name: "Find" }).click();
  await expect(page).toHaveURL(/\/admin\/users\?q=made\+in\+ui$/);
  await expect(userItem(page, email)).toHaveCount(1);
  await expect(page.getByRole("heading", { name: /^Users matching “made in ui” \(\d+\)$/ })).toBeVisible();
  await expect(page.getByRole("listitem", { name: admin.user.email, exact: true })).toHaveCount(0);
  await page.getByRole("link", { name: "Show all" }).click();
  await expect(page).toHaveURL(/\/admin\/users$/);

  // The admin's self-grant is allowed, marked on the page and in the audit trail.
  await page.goto(usersPage(admin.user.email));
  const me = userItem(page, admin.user.email);
  await me.getByLabel("Role to grant").fill("payments");
  await me.getByLabel("Grant anyway").check();
  await me.getByRole("button", { name: "Grant role" }).click();
  await expect(statusIn(me)).toContainText("self-grant");
  await expect(me.getByTestId("role").filter({ hasText: "payments" })).toContainText("self-granted");
  await page.goto(`/admin/audit?type=role.granted&actor=${encodeURIComponent(`user:${admin.user.email}`)}`);
  await expect(page.getByTestId("audit-data").first()).toContainText('"selfGrant":true');

  await Promise.all([admin.context.close(), other.close()]);
});

test("users page: a role granted until a time shows its end; a past time is refused with its reason", async ({ browser }) => {
  const admin = await session(browser, ["admin"], "admin");
  const page = admin.page;
  const target = createUser({ roles: [], prefix: "timebound" });
  await page.goto(usersPage(target.email));
  const item = userItem(page, target.email);

  // A past time: refused, nothing granted.
  await item.getByLabel("Role to grant").fill("oncall");
  await item.getByLabel("Until (UTC, optional)", { exact: false }).fill("2020-01-01T09:00");
  await item.getByRole("button", { name: "Grant role" }).click();
  await expect(item.getByRole("alert")).toHaveText("Not saved: Until must be in the future.");
  await expect(rolesOf(item)).toHaveCount(0);

  // Tomorrow at 09:00 UTC, as the datetime-local field sends it. No policy need use "oncall" yet in this database.
  const tomorrow = new Date(Date.now() + 24 * 3600_000).toISOString().slice(0, 10);
  await item.getByLabel("Until (UTC, optional)", { exact: false }).fill(`${tomorrow}T09:00`);
  await item.getByLabel("Grant anyway").check();
  await item.getByRole("button", { name: "Grant role" }).click();
  await expect(statusIn(item)).toContainText(`Granted oncall to ${target.email} until ${tomorrow} 09:00 UTC.`);
  await expect(rolesOf(item)).toHaveText(["oncall"]);
  const end = item
    .getByTestId("role")
    .filter({ hasText: "oncall" })
    .getByText(/^until /);
  await expect(end).toBeVisible();
  await expect(end.locator("time")).toHaveAttribute("datetime", `${tomorrow}T09:00:00.000Z`);
  await admin.context.close();
});

/** Links a Slack user to a Countersign user as a first click in Slack would (test/slack covers that click end to end). */
function linkSlack(email: string, slackUserId: string): void {
  const script = `
    const { createDb } = await import("./lib/db/client.ts");
    const db = createDb(process.env.DATABASE_URL);
    await db.user.update({ where: { email: process.env.USER_EMAIL }, data: { slackUserId: process.env.SLACK_USER, slackLinkedAt: new Date() } });
    await db.$disconnect();`;
  execFileSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "--input-type=module", "--eval", script], {
    env: { ...e2eEnv(), USER_EMAIL: email, SLACK_USER: slackUserId },
    timeout: 60_000,
  });
}

test("users page: shows who is linked to Slack, and an admin unlinks them", async ({ browser }) => {
  const admin = await session(browser, ["admin"], "slack-admin");
  const target = createUser({ roles: ["payments"], prefix: "slack-linked" });
  const slackUser = `UE2E${randomBytes(4).toString("hex").toUpperCase()}`;
  linkSlack(target.email, slackUser);

  const page = admin.page;
  await page.goto(usersPage(target.email));
  const item = userItem(page, target.email);
  await expect(item.getByTestId("slack-link")).toContainText(`Slack: linked to ${slackUser} since`);
  await item.getByRole("button", { name: "Unlink Slack" }).click();
  await item.getByRole("button", { name: "Confirm: Unlink Slack" }).click();
  await expect(statusIn(item)).toHaveText(`Unlinked Slack user ${slackUser} from ${target.email}.`);
  await expect(item.getByTestId("slack-link")).toHaveText("Slack: not linked");
  await page.reload();
  await expect(userItem(page, target.email).getByTestId("slack-link")).toHaveText("Slack: not linked");
  await expect(userItem(page, target.email).getByRole("button", { name: "Unlink Slack" })).toBeDisabled();
  const listed = adminCli(["user", "list"]) as { users: Array<{ email: string; slack: unknown }> };
  expect(listed.users.find((u) => u.email === target.email)!.slack).toBeNull();
  await admin.context.close();
});

test("users page: granting a role no policy uses is refused with why, and granted with Grant anyway", async ({ browser }) => {
  const admin = await session(browser, ["admin"], "admin");
  const page = admin.page;
  const target = createUser({ roles: [], prefix: "unused-role" });
  const role = `nobody-${tag()}`;
  await page.goto(usersPage(target.email));
  const item = userItem(page, target.email);
  await item.getByLabel("Role to grant").fill(role);
  await item.getByRole("button", { name: "Grant role" }).click();
  await expect(item.getByRole("alert")).toContainText("Not granted: this role would give nobody anything.");
  await expect(item.getByRole("alert")).toContainText(`No policy requires the role “${role}”`);
  await expect(item.getByRole("alert")).toContainText("tick “Grant anyway”");
  await expect(rolesOf(item)).toHaveCount(0);
  await item.getByLabel("Grant anyway").check();
  await item.getByRole("button", { name: "Grant role" }).click();
  await expect(statusIn(item)).toContainText(`Granted ${role} to ${target.email}`);
  await expect(rolesOf(item)).toHaveText([role]);
  await admin.context.close();
});
