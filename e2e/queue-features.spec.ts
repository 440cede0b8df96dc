// The queue's ways to move fast, in the browser: the "expiring soonest" order
// with amber and red marks (in words too), search, the views, badges, key
// argument values and "Agent says" in a row, the run link, the pending count
// in the tab title (kept current by the live refresh), and the filters
// folding into a disclosure at 390 px. Every test makes its own users and service.
import { randomUUID } from "node:crypto";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { adminCli, tag } from "./helpers";
import { ask, canActSection, decidedSection, openQueue, reviewer, rowOf, service, waitingSection } from "./review-helpers";

test.describe.configure({ timeout: 180_000 });

const toolLinks = (scope: Locator) => scope.getByTestId("row-tool");
const filters = (page: Page) => page.getByRole("search", { name: "Search and filter requests" });
/** The filters at any width: below 640 px they sit in a closed "Filters" disclosure. */
async function openFilters(page: Page): Promise<void> {
  const summary = page.getByTestId("queue-filters").locator("summary");
  if (await summary.isVisible()) {
    if ((await page.getByTestId("queue-filters").getAttribute("open")) === null) await summary.click();
  }
  await expect(page.getByLabel("Search", { exact: true })).toBeVisible();
}
/** Colour of a computed style property, to tell marks apart. */
const styleOf = (l: Locator, prop: string) => l.evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), prop);

test("expiring soonest first, with amber and red marks in words and colour", async ({ browser }, testInfo) => {
  const { slug, client } = service();
  const me = await reviewer(browser, ["reviewer"], "ora");
  // Amber starts within the hour: the calm request lives longer than the default policy's hour.
  adminCli(["policy", "set", "--name", `e2e-later-${tag()}`, "--tool", "e2e.later", "--roles", "reviewer", "--quorum", "1", "--ttl", "86400"]);
  const later = await ask(client, { tool: "e2e.later", expires_in: 7200 });
  const red = await ask(client, { tool: "e2e.red", expires_in: 200 });
  const amber = await ask(client, { tool: "e2e.amber", expires_in: 600 });

  await openQueue(me.page, `?service=${slug}&order=expiring`);
  const can = canActSection(me.page);
  await expect(toolLinks(can)).toHaveText(["e2e.red", "e2e.amber", "e2e.later"]);
  await expect(can.getByText("Expiring soonest")).toBeVisible();
  const expiry = (id: string) => rowOf(can, id).getByTestId("expiry");
  await expect(expiry(red.approval_id)).toHaveAttribute("data-urgency", "very-soon");
  await expect(expiry(red.approval_id)).toContainText("Expires very soon:");
  await expect(expiry(amber.approval_id)).toHaveAttribute("data-urgency", "soon");
  await expect(expiry(amber.approval_id)).toContainText("Expires soon:");
  await expect(expiry(later.approval_id)).toHaveAttribute("data-urgency", "none");
  await expect(expiry(later.approval_id)).not.toContainText("Expires");
  // Coloured as well: a red and an amber fill and row edge, none on the calm row.
  const fills = await Promise.all([red, amber, later].map((a) => styleOf(expiry(a.approval_id), "background-color")));
  expect(new Set(fills).size).toBe(3);
  const edges = await Promise.all([red, amber, later].map((a) => styleOf(rowOf(can, a.approval_id), "border-left-color")));
  expect(edges[2]).toBe("rgba(0, 0, 0, 0)");
  expect(new Set(edges).size).toBe(3);
  await testInfo.attach("expiring", { body: await can.screenshot(), contentType: "image/png" });

  // The order is a filter like the others.
  await openFilters(me.page);
  await expect(me.page.getByLabel("Pending order")).toHaveValue("expiring");
  await me.page.getByLabel("Pending order").selectOption("newest");
  await filters(me.page).getByRole("button", { name: "Apply" }).click();
  await expect(toolLinks(canActSection(me.page))).toHaveText(["e2e.amber", "e2e.red", "e2e.later"]);
  await me.context.close();
});

test("search by tool, requester, run id and request id; views; a run's other calls", async ({ browser }) => {
  const { slug, client } = service();
  const me = await reviewer(browser, ["reviewer"], "sam");
  const colleague = await reviewer(browser, ["reviewer"], "tia");
  const run = `run_${randomUUID()}`;
  const t = tag();
  const inRun = (tool: string, call: string) =>
    client.requestApproval({ run_id: run, call_id: call, tool, arguments: { n: 1 }, environment: "staging", requested_by: "carol@example.com" });
  const first = await inRun(`crm.find_${t}`, "c1");
  const second = await inRun(`crm.update_${t}`, "c2");
  const other = await ask(client, { tool: `Mail.Send_${t}`, requested_by: "Ana.Query@Example.com" });
  const mine = await ask(client, { tool: "e2e.mine", requested_by: me.user.email });

  await openQueue(me.page, `?service=${slug}`);
  await openFilters(me.page);
  const searchFor = async (text: string) => {
    await openFilters(me.page);
    await me.page.getByLabel("Search", { exact: true }).fill(text);
    await filters(me.page).getByRole("button", { name: "Apply" }).click();
    await expect(me.page).toHaveURL(new RegExp(`q=${encodeURIComponent(text).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
  };
  await searchFor(`MAIL.SEND_${t.toUpperCase()}`);
  await expect(toolLinks(canActSection(me.page))).toHaveText([`Mail.Send_${t}`]);
  await searchFor("ana.query@");
  await expect(toolLinks(canActSection(me.page))).toHaveText([`Mail.Send_${t}`]);
  await searchFor(run.slice(4, 20));
  await expect(toolLinks(canActSection(me.page))).toHaveText([`crm.find_${t}`, `crm.update_${t}`]);
  await searchFor(second.approval_id.slice(-10));
  await expect(toolLinks(canActSection(me.page))).toHaveText([`crm.update_${t}`]);
  // Wildcards are literal: "%" matches no request here.
  await searchFor("%");
  await expect(canActSection(me.page).getByText("No requests match your search.")).toBeVisible();

  // The run id links to the run's other calls (same service).
  await me.page.goto(`/approvals?service=${slug}`);
  await rowOf(canActSection(me.page), first.approval_id).getByRole("link", { name: run }).click();
  await expect(me.page).toHaveURL(new RegExp(`run=${run}`));
  await expect(toolLinks(canActSection(me.page))).toHaveText([`crm.find_${t}`, `crm.update_${t}`]);
  await openFilters(me.page);
  await expect(me.page.getByLabel("Run")).toHaveValue(run);

  // Views: my own requests; then the ones I decided.
  await me.page.goto(`/approvals?service=${slug}`);
  const views = me.page.getByRole("navigation", { name: "Views" });
  await expect(views.getByRole("link", { name: "All requests" })).toHaveAttribute("aria-current", "page");
  await views.getByRole("link", { name: "My requests" }).click();
  await expect(views.getByRole("link", { name: "My requests" })).toHaveAttribute("aria-current", "page");
  await expect(me.page).toHaveURL(/view=mine/);
  await expect(canActSection(me.page)).toHaveCount(0);
  await expect(toolLinks(waitingSection(me.page))).toHaveText(["e2e.mine"]);
  await colleague.page.goto(`/approvals/${mine.approval_id}`);
  await colleague.page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(colleague.page.getByTestId("status")).toHaveText("approved");
  await me.page.goto(`/approvals/${other.approval_id}`);
  await me.page.getByLabel("Reason").fill("Fine");
  await me.page.getByRole("button", { name: "Deny", exact: true }).click();
  await expect(me.page.getByTestId("status")).toHaveText("denied");
  await me.page.goto(`/approvals?service=${slug}&view=voted`);
  await expect(toolLinks(decidedSection(me.page))).toHaveText([`Mail.Send_${t}`]);
  await expect(toolLinks(waitingSection(me.page))).toHaveCount(0);
  await me.page.goto(`/approvals?service=${slug}&view=mine`);
  await expect(toolLinks(decidedSection(me.page))).toHaveText(["e2e.mine"]);
  await Promise.all([me.context.close(), colleague.context.close()]);
});

test("a row's badges, key values and 'Agent says'; the tab title counts what needs review, live", async ({ browser }) => {
  const { slug, client } = service();
  const me = await reviewer(browser, ["reviewer"], "uma");
  const refund = await ask(client, {
    tool: "payments.refund",
    effects: "destructive",
    summary: "Refund order 1234 (duplicate charge)",
    arguments: { customer_email: "dana@example.com", order_id: "1234", amount: 49.9 },
  });
  await ask(client, { tool: "crm.read", effects: "read" });

  await openQueue(me.page, `?service=${slug}`);
  await expect(me.page).toHaveTitle("(2) Approvals · Countersign");
  const row = rowOf(canActSection(me.page), refund.approval_id);
  await expect(row.getByTestId("row-effects")).toHaveText("Effects: destructive");
  await expect(row.getByTestId("row-environment")).toHaveText("Environment: production");
  // Key values come from the redacted arguments: never the raw email.
  await expect(row.getByTestId("row-args")).toContainText("customer_email:[redacted:email]");
  await expect(row.getByTestId("row-args")).toContainText("order_id:1234");
  await expect(row).not.toContainText("dana@example.com");
  const says = row.getByTestId("row-agent-says");
  await expect(says.locator("figcaption")).toHaveText("Agent says");
  await expect(says.locator("blockquote")).toHaveText("Refund order 1234 (duplicate charge)");
  // The summary is the agent's claim, not the link's description.
  const description = await row.getByTestId("row-tool").evaluate((el) => {
    const ids = (el.getAttribute("aria-describedby") ?? "").split(" ").filter(Boolean);
    return ids.map((id) => document.getElementById(id)?.textContent ?? "").join(" ");
  });
  expect(description).not.toContain("Refund order");

  // A new request arrives: the live refresh updates the count in the title too.
  await ask(client, { tool: "crm.write", effects: "write" });
  await expect(me.page).toHaveTitle("(3) Approvals · Countersign", { timeout: 15_000 });
  await me.context.close();
});

test("at 390 px the filters fold into a labelled disclosure; wide, they are always open", async ({ browser }) => {
  const { slug } = service();
  const narrow = await reviewer(browser, ["reviewer"], "vic", { width: 390, height: 844 });
  await openQueue(narrow.page, `?service=${slug}`);
  const summary = narrow.page.getByTestId("queue-filters").locator("summary");
  await expect(summary).toHaveText(/^Filters/);
  await expect(narrow.page.getByLabel("Search", { exact: true })).toBeHidden();
  await summary.click();
  await expect(narrow.page.getByLabel("Search", { exact: true })).toBeVisible();
  await expect(summary).toHaveText("Filters (1 active)");
  const width = await narrow.page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(390);

  await narrow.page.setViewportSize({ width: 1280, height: 900 });
  await narrow.page.reload();
  await expect(summary).toBeHidden();
  await expect(narrow.page.getByLabel("Search", { exact: true })).toBeVisible();
  await expect(narrow.page.getByLabel("Service")).toBeVisible();
  await narrow.context.close();
});
