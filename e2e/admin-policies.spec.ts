// The policies page (docs/operations.md): its server actions refused server-side for
// a non-admin, and its flows: create, edit, test which policy matches, delete.
import { mkdirSync, writeFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { captureAction, policyItem, replay, REFUSED, session, statusIn, useAdminAndReviewer } from "./admin-helpers";
import { adminCli, tag } from "./helpers";
import { repoRoot } from "./review-helpers";

test.describe.serial("admin server actions are refused server-side for a non-admin", () => {
  const { sessions, check } = useAdminAndReviewer();

  test("policies: save, delete, and the matching tester", async () => {
    const { admin, reviewer } = sessions;
    test.setTimeout(180_000);
    const page = admin.page;
    const name = `e2e-pol-${tag()}`;

    await page.goto("/admin/policies");
    const save = await captureAction(page, async () => {
      const form = page.getByRole("region", { name: "Create or replace a policy" });
      await form.getByLabel("Name").fill(name);
      await form.getByLabel("Tool pattern").fill(`${name}.*`);
      await form.getByLabel("Roles").fill("payments");
      await form.getByLabel("Quorum").fill("2");
      await form.getByLabel("TTL (seconds)").fill("600");
      // Nobody may hold "payments" twice over in this database yet: saved for roles granted later.
      await form.getByLabel("Save anyway").check();
      await form.getByRole("button", { name: "Save policy" }).click();
    });
    await check(
      save,
      async () => {
        await page.goto("/admin/policies");
        await expect(policyItem(page, name)).toHaveCount(0);
      },
      async () => {
        await page.goto("/admin/policies");
        await expect(policyItem(page, name).getByTestId("policy-rule")).toContainText("2 approvals from payments");
      },
    );

    const del = await captureAction(page, async () => {
      const item = policyItem(page, name);
      await item.getByRole("button", { name: "Delete policy" }).click();
      await item.getByRole("button", { name: "Confirm: Delete policy" }).click();
    });
    await check(
      del,
      async () => {
        await page.goto("/admin/policies");
        await expect(policyItem(page, name)).toHaveCount(1);
      },
      async () => {
        await page.goto("/admin/policies");
        await expect(policyItem(page, name)).toHaveCount(0);
      },
    );

    // The tester changes nothing, but reveals policies: admins only.
    const tester = await captureAction(page, async () => {
      const form = page.getByRole("region", { name: "Which policy matches?" });
      await form.getByLabel("Service").fill("any-service");
      await form.getByLabel("Tool").fill("some.tool");
      await form.getByRole("button", { name: "Find policy" }).click();
    });
    const refused = await replay(reviewer.request, tester);
    expect(refused.body).toContain(REFUSED);
    expect(refused.body).not.toContain("→ policy");
    const answered = await replay(admin.request, tester);
    expect(answered.body).toContain("→ policy");
  });
});

test("policies page: create, edit, test which policy matches, delete; the default cannot be deleted", async ({ browser }) => {
  test.setTimeout(120_000);
  const admin = await session(browser, ["admin"], "admin");
  const page = admin.page;
  const name = `e2e-ui-${tag()}`;

  await page.goto("/admin/policies");
  await expect(policyItem(page, "default").getByRole("button", { name: "Delete policy" })).toHaveCount(0);

  const form = page.getByRole("region", { name: "Create or replace a policy" });
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Tool pattern").fill(`${name}.*`);
  await form.getByLabel("Effects").selectOption("destructive");
  await form.getByLabel("Roles").fill("payments, finance");
  await form.getByLabel("Quorum").fill("2");
  await form.getByLabel("TTL (seconds)").fill("900");
  await form.getByLabel("Save anyway").check();
  await form.getByRole("button", { name: "Save policy" }).click();
  await expect(statusIn(form)).toContainText(`Policy ${name} created.`);
  await expect(policyItem(page, name).getByTestId("policy-rule")).toHaveText("2 approvals from payments, finance · TTL 15 min · priority 100");

  // A bad value is refused with the field named.
  await form.getByLabel("Name").fill(`${name}-bad`);
  await form.getByLabel("Tool pattern").fill("x.*");
  await form.getByLabel("Roles").fill("payments");
  await form.getByLabel("Quorum").fill("0");
  await form.getByLabel("TTL (seconds)").fill("900");
  await form.getByRole("button", { name: "Save policy" }).click();
  await expect(form.getByRole("alert")).toHaveText("Not saved: Quorum must be at least 1.");
  await expect(policyItem(page, `${name}-bad`)).toHaveCount(0);

  // Which policy matches?
  const tester = page.getByRole("region", { name: "Which policy matches?" });
  await tester.getByLabel("Service").fill("any-service");
  await tester.getByLabel("Tool").fill(`${name}.refund`);
  await tester.getByLabel("Effects").selectOption("destructive");
  await tester.getByRole("button", { name: "Find policy" }).click();
  await expect(statusIn(tester)).toContainText(`→ policy ${name}`);
  await expect(statusIn(tester)).toContainText("Needs 2 approval(s) from: payments, finance");
  await tester.getByLabel("Effects").selectOption("write");
  await tester.getByRole("button", { name: "Find policy" }).click();
  await expect(statusIn(tester)).toContainText("→ policy default (the default: nothing else matches)");

  // Edit.
  const item = policyItem(page, name);
  await item.getByText(`Edit ${name}`).click();
  await item.getByLabel("Quorum").fill("1");
  await item.getByLabel("Roles").fill("payments");
  await item.getByLabel("Save anyway").check();
  await item.getByRole("button", { name: "Save changes" }).click();
  await expect(statusIn(item)).toContainText(`Policy ${name} replaced.`);
  await expect(item.getByTestId("policy-rule")).toHaveText("1 approval from payments · TTL 15 min · priority 100");
  await expect(item.getByTestId("policy-follow-up")).toHaveCount(0);

  // Reminders and escalation: escalation without its roles is refused, with the field named.
  await page.reload(); // the edit form closed again
  await item.getByText(`Edit ${name}`).click();
  await item.getByLabel("Remind at").fill("0.5, 0.9");
  await item.getByLabel("Escalate after (seconds)").fill("600");
  await item.getByRole("button", { name: "Save changes" }).click();
  await expect(item.getByRole("alert")).toContainText("Not saved: Escalate to is required when escalate_after is set");
  await item.getByLabel("Escalate to").fill("oncall");
  await item.getByLabel("Save anyway").check();
  await item.getByRole("button", { name: "Save changes" }).click();
  await expect(statusIn(item)).toContainText(`Policy ${name} replaced.`);
  await expect(item.getByTestId("policy-follow-up")).toHaveText("Reminders at 50%, 90% of the TTL · escalation to oncall after 10 min");
  const listed = adminCli(["policy", "list"]) as { policies: Array<{ name: string; quorum: number; effects: string }> };
  expect(listed.policies.find((p) => p.name === name)).toMatchObject({
    quorum: 1,
    effects: "destructive",
    remind_at: [0.5, 0.9],
    escalate_after: 600,
    escalate_to_roles: ["oncall"],
  });

  // Delete (asks first).
  await item.getByRole("button", { name: "Delete policy" }).click();
  await item.getByRole("button", { name: "Confirm: Delete policy" }).click();
  await expect(policyItem(page, name)).toHaveCount(0);

  await admin.context.close();
});

test("policies page: a policy nobody could satisfy is refused with why, saved with Save anyway, and listed as unreachable", async ({ browser }) => {
  test.setTimeout(120_000);
  const admin = await session(browser, ["admin"], "admin");
  const page = admin.page;
  const t = tag();
  const role = `rev-${t}`;
  const name = `e2e-reach-${t}`;
  for (const who of ["a", "b"]) adminCli(["user", "add", "--email", `${who}-${t}@example.com`, "--role", role, "--anyway"]);

  await page.goto("/admin/policies");
  const form = page.getByRole("region", { name: "Create or replace a policy" });
  const fill = async (roles: string, quorum: string) => {
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("Tool pattern").fill(`${name}.*`);
    await form.getByLabel("Roles").fill(roles);
    await form.getByLabel("Quorum").fill(quorum);
    await form.getByLabel("TTL (seconds)").fill("900");
  };
  // A typo: refused, the role named, the page's own way round it (not a command-line flag).
  await fill(`${role}x`, "1");
  await form.getByRole("button", { name: "Save policy" }).click();
  const alert = form.getByRole("alert");
  await expect(alert).toContainText("Not saved: nobody could satisfy this policy now.");
  await expect(alert).toContainText(`No enabled user holds the role “${role}x”`);
  await expect(alert).toContainText("tick “Save anyway”");
  await expect(alert).not.toContainText("--");
  await expect(policyItem(page, name)).toHaveCount(0);
  // The refusal as an admin sees it, for docs/screenshots: desktop and 390 px, light and dark.
  mkdirSync(`${repoRoot}/docs/screenshots`, { recursive: true });
  for (const [width, height] of [
    [1440, 900],
    [390, 844],
  ] as const) {
    for (const colorScheme of ["light", "dark"] as const) {
      await page.setViewportSize({ width, height });
      await page.emulateMedia({ colorScheme });
      await alert.scrollIntoViewIfNeeded();
      const file = `admin-policy-error-${width === 390 ? "390" : "desktop"}${colorScheme === "dark" ? "-dark" : ""}.png`;
      writeFileSync(`${repoRoot}/docs/screenshots/${file}`, await form.screenshot());
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme: "light" });

  // Nine approvals from two people: refused with both numbers.
  await fill(role, "9");
  await form.getByRole("button", { name: "Save policy" }).click();
  await expect(alert).toContainText(`It needs 9 approvals, but only 2 enabled people hold “${role}”.`);

  // Saved anyway: listed as unreachable, with the reason, until two people hold the role.
  await fill(role, "3");
  await form.getByLabel("Save anyway").check();
  await form.getByRole("button", { name: "Save policy" }).click();
  await expect(statusIn(form)).toContainText(`Policy ${name} created.`);
  await expect(statusIn(form)).toContainText("Saved anyway: It needs 3 approvals, but only 2 enabled people");
  const item = policyItem(page, name);
  await expect(item.getByText("unreachable", { exact: true })).toBeVisible();
  await expect(item.getByTestId("policy-reachability")).toContainText(`It needs 3 approvals, but only 2 enabled people hold “${role}”.`);
  await expect(page.getByTestId("unreachable-banner")).toContainText(name);

  adminCli(["user", "add", "--email", `c-${t}@example.com`, "--role", role, "--anyway"]);
  await page.reload();
  await expect(item.getByText("unreachable", { exact: true })).toHaveCount(0);
  await expect(item.getByTestId("policy-reachability")).toContainText("a request raised by one of them cannot reach 3 approvals");
  await admin.context.close();
});
