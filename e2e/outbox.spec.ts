// The notification outbox in local mode (no SMTP_URL): the email to each
// reviewer who may decide waits in the local mailbox at /admin/outbox, with
// the link to the request and without the arguments, with its attempt log;
// reviewers cannot open it.
import { expect, test } from "@playwright/test";
import { session } from "./admin-helpers";
import { adminCli, createUser, newService, tag } from "./helpers";

test("an admin reads the reviewers' notifications in the local mailbox", async ({ browser }) => {
  test.setTimeout(120_000);
  const t = tag();
  const role = `outbox-${t}`;
  adminCli(["policy", "set", "--anyway", "--name", `e2e-outbox-${t}`, "--tool", `outbox${t}.*`, "--roles", role, "--quorum", "1", "--ttl", "3600"]);
  const reviewer = createUser({ roles: [role], prefix: "outbox" });
  const requester = createUser({ roles: [role], prefix: "outbox-requester" });
  const svc = newService("e2e-outbox");
  const created = await svc.client.requestApproval({
    run_id: `run_${t}`,
    call_id: "c1",
    tool: `outbox${t}.refund`,
    requested_by: requester.email,
    summary: "Refund the duplicate charge",
    arguments: { account: `ACCT-${t}-SECRET`, amount: 7777 },
  });

  const admin = await session(browser, ["admin"], "outbox-admin");
  await admin.page.goto("/admin/outbox");
  await expect(admin.page.getByTestId("email-channel")).toContainText("local mailbox");
  // Other files' messages arrive meanwhile, 25 a page: the reviewer's are found by recipient.
  const search = admin.page.getByRole("search", { name: "Find messages" });
  await search.getByLabel("Recipient contains").fill(reviewer.email);
  await search.getByRole("button", { name: "Find" }).click();
  await admin.page.waitForURL(/\/admin\/outbox\?.*to=/);
  expect(new URL(admin.page.url()).searchParams.get("to")).toBe(reviewer.email);
  const message = admin.page.getByTestId("outbox-message").filter({ hasText: `outbox${t}.refund` });
  await expect(async () => {
    await admin.page.reload();
    await expect(message).toHaveCount(1);
  }).toPass({ timeout: 15_000 });
  await expect(admin.page.getByTestId("messages-shown")).toHaveText("Showing all 1.");
  await expect(message.getByTestId("message-recipient")).toHaveText(reviewer.email);
  // Kept here, not sent anywhere: the badge says so.
  await expect(message.getByTestId("message-status")).toHaveText("kept locally");
  await expect(message.getByTestId("message-channel")).toHaveText("email");
  // Each attempt is logged: the local mailbox's one is "sent", with its words.
  await message.getByText(/^Attempts \(/).click();
  const attempt = message.getByTestId("attempt");
  await expect(attempt).toHaveCount(1);
  await expect(attempt.getByTestId("attempt-result")).toHaveText("sent");
  await expect(attempt).toContainText("kept in the local mailbox");
  await expect(attempt).toContainText(/\d+ ms$/);
  await message.getByText("Message", { exact: true }).click();
  await expect(message.locator("pre")).toContainText(`/approvals/${created.approval_id}`);
  await expect(message.locator("pre")).toContainText('"Refund the duplicate charge"');
  await expect(message).not.toContainText(`ACCT-${t}-SECRET`);
  await expect(message).not.toContainText("7777");
  // A query the page cannot use is said in words, and the messages are shown anyway.
  await admin.page.goto("/admin/outbox?status=lost&page=0");
  await expect(admin.page.getByRole("alert").filter({ hasText: "That search could not be used" })).toContainText(
    "status must be one of pending, sent, dropped, failed; pages start at 1",
  );
  await expect(admin.page.getByTestId("outbox-message").first()).toBeVisible();
  await admin.context.close();

  const other = await session(browser, [role], "outbox-reviewer");
  const refused = await other.page.goto("/admin/outbox");
  expect(refused?.status()).toBe(403);
  await other.context.close();
});
