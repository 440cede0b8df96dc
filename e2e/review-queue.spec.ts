// The review queue in the browser (docs/architecture.md): live updates without
// reload, its sections, filters and paging, and 390 px screenshots for the
// README (docs/screenshots/queue.png, decision-390.png, decision-390-dark.png). Every test makes its
// own users and service.
import { mkdirSync, writeFileSync } from "node:fs";
import { expect, test, type Locator, type Page, type TestInfo } from "@playwright/test";
import { tag } from "./helpers";
import { ask, canActSection, decidedSection, openQueue, repoRoot, reviewer, rowOf, service, waitingSection } from "./review-helpers";

// Each test makes users and a service through the admin CLI (seconds each on a small machine).
test.describe.configure({ timeout: 180_000 });

async function attachScreenshot(page: Page, testInfo: TestInfo, name: string, file: string): Promise<void> {
  const png = await page.screenshot({ fullPage: true });
  await testInfo.attach(name, { body: png, contentType: "image/png" });
  mkdirSync(`${repoRoot}/docs/screenshots`, { recursive: true });
  writeFileSync(`${repoRoot}/docs/screenshots/${file}`, png);
}

/** A section's request links (each row also links its run). */
const toolLinks = (scope: Locator) => scope.getByTestId("row-tool");

/** At 390 px the filters sit in a closed "Filters" disclosure. */
async function openFilters(page: Page): Promise<void> {
  const disclosure = page.getByTestId("queue-filters");
  if ((await disclosure.getAttribute("open")) === null) await disclosure.locator("summary").click();
  await expect(page.getByLabel("Effects")).toBeVisible();
}

async function noHorizontalScroll(page: Page): Promise<void> {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(scroll, "page is wider than the viewport").toBeLessThanOrEqual(client);
}

// ------------------------------------------------------------------ tests

// How fast (the 2 s target) is the bench's figure (npm run bench: live_queue_p95, a
// quiet machine); here the update must come without a reload, and its time is printed.
test("an open queue shows a new request, and a decision made elsewhere, without reload", async ({ browser }, testInfo) => {
  const { slug, client } = service();
  const watcher = await reviewer(browser, ["reviewer"], "watcher");
  const decider = await reviewer(browser, ["reviewer"], "decider");
  await openQueue(watcher.page, `?service=${slug}`);
  await watcher.page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

  const tool = `e2e.live.${tag()}`;
  const created = await ask(client, { tool, summary: "Arrives while the page is open" });
  const arrivedAt = Date.now();
  await expect(rowOf(canActSection(watcher.page), created.approval_id).getByRole("link", { name: tool })).toBeVisible({ timeout: 15_000 });
  const arrivalMs = Date.now() - arrivedAt;
  await expect(canActSection(watcher.page).getByRole("heading", { level: 2 })).toHaveText("Needs your review (1)");

  // Decided in another browser: the row moves to recent decisions.
  await decider.page.goto(`/approvals/${created.approval_id}`);
  await decider.page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(decider.page.getByTestId("status")).toHaveText("approved");
  const decidedAt = Date.now();
  await expect(rowOf(decidedSection(watcher.page), created.approval_id)).toContainText(`Decided by ${decider.user.email}`, { timeout: 15_000 });
  const decisionMs = Date.now() - decidedAt;
  await expect(rowOf(canActSection(watcher.page), created.approval_id)).toHaveCount(0);

  expect(await watcher.page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  const timing = `arrival ${arrivalMs} ms, decision ${decisionMs} ms`;
  testInfo.annotations.push({ type: "live-update", description: timing });
  console.log(`live queue update: ${timing}`);
  await Promise.all([watcher.context.close(), decider.context.close()]);
});

test("the queue's sections, filters and paging; screenshots at 390 px for the README", async ({ browser }, testInfo) => {
  const { slug, client } = service();
  const mobile = { width: 390, height: 844 };
  const me = await reviewer(browser, ["reviewer"], "ana", mobile);
  const colleague = await reviewer(browser, ["reviewer"], "ben");

  // A small, realistic queue for this service.
  const refund = await ask(client, {
    tool: "payments.refund",
    effects: "destructive",
    requested_by: "carol@example.com",
    summary: "Refund order 1234 to the customer's card (duplicate charge)",
    arguments: { order_id: "1234", amount: 49.9, currency: "EUR", customer_email: "dana@example.com", card: "4111 1111 1111 1111" },
  });
  await ask(client, {
    tool: "crm.update_contact",
    effects: "write",
    requested_by: "carol@example.com",
    summary: "Update the phone number of a contact",
  });
  const mine = await ask(client, { tool: "mail.send", effects: "write", requested_by: me.user.email, summary: "Send the weekly report to the team" });
  const done = await ask(client, {
    tool: "files.delete",
    effects: "destructive",
    requested_by: "carol@example.com",
    summary: "Delete last year's temp exports",
  });
  await colleague.page.goto(`/approvals/${done.approval_id}`);
  await colleague.page.getByLabel("Reason").fill("Retention period is over");
  await colleague.page.getByRole("button", { name: "Approve", exact: true }).click();
  // Destructive: the page asks for a second click, on the same button, relabelled in place.
  await expect(colleague.page.getByRole("main").getByRole("alert")).toContainText("Press Confirm approve to approve it");
  await colleague.page.getByRole("button", { name: "Confirm approve" }).click();
  await expect(colleague.page.getByTestId("status")).toHaveText("approved");

  await openQueue(me.page, `?service=${slug}`);
  await expect(canActSection(me.page).getByRole("heading", { level: 2 })).toHaveText("Needs your review (2)");
  await expect(waitingSection(me.page).getByRole("heading", { level: 2 })).toHaveText("Waiting on others (1)");
  await expect(decidedSection(me.page).getByRole("heading", { level: 2 })).toHaveText("Recent decisions (1)");
  // Oldest first, with the time left.
  await expect(toolLinks(canActSection(me.page))).toHaveText(["payments.refund", "crm.update_contact"]);
  await expect(rowOf(canActSection(me.page), refund.approval_id).getByTestId("countdown")).toHaveText(/left$/);
  await expect(rowOf(waitingSection(me.page), mine.approval_id)).toContainText("You requested this call");
  await noHorizontalScroll(me.page);
  await attachScreenshot(me.page, testInfo, "queue-390", "queue.png");

  // Filters are a GET form with labelled fields, folded into a disclosure at 390 px.
  await openFilters(me.page);
  await me.page.getByLabel("Effects").selectOption("destructive");
  await me.page.getByLabel("Pending order").selectOption("newest");
  await me.page.getByRole("button", { name: "Apply" }).click();
  await expect(me.page).toHaveURL(/effects=destructive/);
  await expect(toolLinks(canActSection(me.page))).toHaveText(["payments.refund"]);
  await expect(waitingSection(me.page).getByRole("heading", { level: 2 })).toHaveText("Waiting on others (0)");
  await expect(toolLinks(decidedSection(me.page))).toHaveText(["files.delete"]);
  await openFilters(me.page);
  await me.page.getByLabel("Status").selectOption("approved");
  await me.page.getByRole("button", { name: "Apply" }).click();
  await expect(canActSection(me.page)).toHaveCount(0);
  await expect(toolLinks(decidedSection(me.page))).toHaveText(["files.delete"]);
  // A bad value is ignored and said so, the others still apply.
  await me.page.goto(`/approvals?service=${slug}&tool=${encodeURIComponent("not a tool!")}&order=newest`);
  await expect(me.page.getByTestId("invalid-filters")).toHaveText("Ignored invalid value for: tool.");
  await expect(toolLinks(canActSection(me.page))).toHaveText(["crm.update_contact", "payments.refund"]);

  // Paging: a page of one, then the next by its cursor.
  for (let i = 0; i < 21; i++) await ask(client, { tool: `bulk.item-${String(i).padStart(2, "0")}` });
  await me.page.goto(`/approvals?service=${slug}`);
  await expect(canActSection(me.page).getByRole("heading", { level: 2 })).toHaveText("Needs your review (23)");
  await expect(canActSection(me.page).locator("article")).toHaveCount(20);
  await canActSection(me.page).getByRole("link", { name: "Next page" }).click();
  await expect(me.page).toHaveURL(/act=\d+\.apr_/);
  await expect(toolLinks(canActSection(me.page))).toHaveText(["bulk.item-18", "bulk.item-19", "bulk.item-20"]);
  await expect(canActSection(me.page).getByRole("link", { name: "Next page" })).toHaveCount(0);
  await canActSection(me.page).getByRole("link", { name: "First page" }).click();
  await expect(toolLinks(canActSection(me.page)).first()).toHaveText("payments.refund");

  // Keyboard: from the filters' last control, Tab reaches the first request, Enter opens it.
  await openFilters(me.page);
  await me.page.getByRole("link", { name: "Clear" }).focus();
  await me.page.keyboard.press("Tab");
  const firstRequest = canActSection(me.page).getByRole("link", { name: "payments.refund" });
  await expect(firstRequest).toBeFocused();
  await me.page.keyboard.press("Enter");
  await expect(me.page.getByRole("heading", { level: 1, name: "payments.refund" })).toBeVisible();

  // The decision page at 390 px: everything needed to decide, nothing cut off.
  await expect(me.page.getByTestId("args-digest")).toHaveText(refund.args_digest);
  // The first screen shows the arguments' first lines (redacted) above the bar; the full viewer below has them too.
  await expect(me.page.getByTestId("glance-args").getByText("[redacted:email]")).toBeInViewport();
  await expect(me.page.getByRole("group", { name: "Arguments (redacted)" }).getByText("[redacted:email]")).toBeAttached();
  await expect(me.page.getByLabel("Reason")).toBeVisible();
  await expect(me.page.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
  await expect(me.page.getByRole("button", { name: "Deny" })).toBeVisible();
  await noHorizontalScroll(me.page);
  await attachScreenshot(me.page, testInfo, "decision-390", "decision-390.png");
  // Dark mode follows the system: the same page as a phone at night shows it (README).
  await me.page.emulateMedia({ colorScheme: "dark" });
  await expect(me.page.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
  await attachScreenshot(me.page, testInfo, "decision-390-dark", "decision-390-dark.png");

  await Promise.all([me.context.close(), colleague.context.close()]);
});
