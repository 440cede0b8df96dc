// The policies page (docs/operations.md): its server actions refused server-side for
// a non-admin, and its flows: create, edit, test which policy matches, delete.
import { expect, test } from "@playwright/test";
import { captureAction, policyItem, replay, REFUSED, session, statusIn, useAdminAndReviewer } from "./admin-helpers";
import { adminCli, tag } from "./helpers";

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
  await expect(form.getByRole("alert")).toContainText("quorum: must be at least 1");
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
  await expect(item.getByRole("alert")).toContainText("escalate_to_roles: is required when escalate_after is set");
  await item.getByLabel("Escalate to").fill("oncall");
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
