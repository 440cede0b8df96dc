// Moving through the queue fast (issue 13): previous/next on the decision
// page, "Approve & next" (with the destructive confirmation still asked),
// the keyboard shortcuts on the decision page (j, k, a, d, ?) and on the
// queue page (j, k, Enter). Each test has a role of its own, so the requests
// needing this reviewer are exactly the ones it made, oldest first.
import { expect, test, type Page } from "@playwright/test";
import { adminCli, tag } from "./helpers";
import { ask, openQueue, reviewer, service } from "./review-helpers";

test.describe.configure({ timeout: 180_000 });

function team() {
  const t = tag();
  const role = `moves-${t}`;
  const prefix = `e2e.moves${t}`;
  adminCli(["policy", "set", "--anyway", "--name", `e2e-moves-${t}`, "--tool", `${prefix}.*`, "--roles", role, "--quorum", "1", "--ttl", "86400"]);
  return { role, tool: (name: string) => `${prefix}.${name}` };
}

const heading = (page: Page) => page.getByRole("heading", { level: 1 });
const onRequest = (id: string) => new RegExp(`/approvals/${id}$`);

test("previous / next links, and Approve & next (a destructive call still asks first)", async ({ browser }) => {
  const { role, tool } = team();
  const { client } = service();
  const alice = await reviewer(browser, [role], "alice");
  const one = await ask(client, { tool: tool("one") });
  const two = await ask(client, { tool: tool("two"), effects: "destructive" });
  const three = await ask(client, { tool: tool("three") });

  await alice.page.goto(`/approvals/${two.approval_id}`);
  const nav = alice.page.getByRole("navigation", { name: "Requests needing your review" });
  await expect(nav.getByRole("link", { name: "← Previous" })).toHaveAttribute("href", `/approvals/${one.approval_id}`);
  await expect(nav.getByRole("link", { name: "Next →" })).toHaveAttribute("href", `/approvals/${three.approval_id}`);
  await nav.getByRole("link", { name: "← Previous" }).click();
  await expect(heading(alice.page)).toHaveText(tool("one"));
  await expect(nav.getByText("No previous")).toBeVisible();

  // Approve & next: approved, and the next request opens.
  await alice.page.getByRole("button", { name: "Approve & next" }).click();
  await expect(alice.page).toHaveURL(onRequest(two.approval_id));
  await expect(heading(alice.page)).toHaveText(tool("two"));
  expect((await client.getApproval(one.approval_id)).status).toBe("approved");

  // Destructive: the first press only asks, in place.
  const andNext = alice.page.getByRole("button", { name: "Approve & next" });
  const before = await andNext.boundingBox();
  await andNext.click();
  const confirm = alice.page.getByRole("button", { name: "Confirm & next" });
  await expect(confirm).toBeVisible();
  expect(await confirm.boundingBox()).toEqual(before);
  expect((await client.getApproval(two.approval_id)).status).toBe("pending");
  await confirm.click();
  await expect(alice.page).toHaveURL(onRequest(three.approval_id));
  expect((await client.getApproval(two.approval_id)).status).toBe("approved");

  // The last one: Approve & next goes back to the queue.
  await alice.page.getByRole("button", { name: "Approve & next" }).click();
  await expect(alice.page).toHaveURL(/\/approvals$/);
  expect((await client.getApproval(three.approval_id)).status).toBe("approved");
  await alice.context.close();
});

test("shortcuts on the decision page: j, k, a, d, ? — never while typing, never submitting", async ({ browser }) => {
  const { role, tool } = team();
  const { client } = service();
  const alice = await reviewer(browser, [role], "alice");
  const one = await ask(client, { tool: tool("one") });
  const two = await ask(client, { tool: tool("two") });
  const three = await ask(client, { tool: tool("three") });
  const { page } = alice;

  await page.goto(`/approvals/${two.approval_id}`);
  await expect(page.getByTestId("live-status")).toHaveAttribute("data-state", "live", { timeout: 10_000 });
  await page.keyboard.press("k");
  await expect(page).toHaveURL(onRequest(one.approval_id));
  await expect(heading(page)).toHaveText(tool("one"));
  await page.keyboard.press("j");
  await expect(heading(page)).toHaveText(tool("two"));
  await page.keyboard.press("j");
  await expect(heading(page)).toHaveText(tool("three"));
  await expect(page).toHaveURL(onRequest(three.approval_id));

  // a / d only move focus; pressing again submits nothing.
  await page.keyboard.press("a");
  await expect(page.getByRole("button", { name: "Approve", exact: true })).toBeFocused();
  await page.keyboard.press("a");
  await page.keyboard.press("d");
  await expect(page.getByRole("button", { name: "Deny" })).toBeFocused();
  await page.keyboard.press("d");
  await page.waitForTimeout(500);
  expect((await client.getApproval(three.approval_id)).status).toBe("pending");
  await expect(page.getByTestId("decision-line")).toHaveText("");

  // Typing in the reason: letters are text, not shortcuts.
  await page.getByLabel("Reason").fill("");
  await page.getByLabel("Reason").pressSequentially("jkad?");
  await expect(page.getByLabel("Reason")).toHaveValue("jkad?");
  await expect(page).toHaveURL(onRequest(three.approval_id));
  await expect(page.getByRole("dialog")).toHaveCount(0);

  // ? opens the help; Escape closes it.
  await page.getByRole("heading", { level: 1 }).click();
  await page.keyboard.press("?");
  const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(help).toBeVisible();
  for (const key of ["j", "k", "a", "d", "?"]) await expect(help.locator("kbd", { hasText: key }).first()).toBeVisible();
  await page.keyboard.press("j"); // no navigation while the help is open
  await expect(page).toHaveURL(onRequest(three.approval_id));
  await page.keyboard.press("Escape");
  await expect(help).toBeHidden();

  // Enter on the focused button is the confirmation.
  await page.keyboard.press("a");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("decision-result")).toContainText("Approved by you");
  expect((await client.getApproval(three.approval_id)).status).toBe("approved");
  await alice.context.close();
});

test("shortcuts on the queue: j / k move between rows, Enter opens one", async ({ browser }) => {
  const { role, tool } = team();
  const { slug, client } = service();
  const alice = await reviewer(browser, [role], "alice");
  const one = await ask(client, { tool: tool("one") });
  const two = await ask(client, { tool: tool("two") });
  const { page } = alice;

  await openQueue(page, `?service=${slug}`);
  const link = (id: string) => page.locator(`article[data-approval-id="${id}"] a`).first();
  await page.keyboard.press("j");
  await expect(link(one.approval_id)).toBeFocused();
  await page.keyboard.press("j");
  await expect(link(two.approval_id)).toBeFocused();
  await page.keyboard.press("k");
  await expect(link(one.approval_id)).toBeFocused();
  await page.keyboard.press("?");
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(link(one.approval_id)).toBeFocused();
  await page.keyboard.press("Enter");
  // The request's link carries the queue's filter, so Next walks the same list.
  await expect(page).toHaveURL(`/approvals/${one.approval_id}?service=${slug}`);
  await expect(heading(page)).toHaveText(tool("one"));
  await alice.context.close();
});
