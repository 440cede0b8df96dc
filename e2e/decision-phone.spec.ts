// The decision page on a phone (issue 36): the first screen above the fixed
// decision bar shows what will run (the tool, the agent's summary, the
// arguments' first lines with how many more, the four-eyes progress and the
// time left); Approve waits until the arguments were in view or opened, by
// pointer or keyboard; and no focused element ever hides under the bar.
import { expect, test, type Page } from "@playwright/test";
import { ask, reviewer, reviewsOf, saveScreens, service, reviewTeam } from "./review-helpers";

test.describe.configure({ timeout: 180_000 });

const PHONE = { width: 390, height: 844 };

test.beforeAll(async ({ request }) => {
  await request.get("/signin");
});

const approve = (page: Page) => page.getByRole("button", { name: "Approve", exact: true });
const bar = (page: Page) => page.getByTestId("decision-bar");

/** The box of `locator`, asserted to lie wholly between the top of the window and the top of the bar. */
async function aboveBar(page: Page, testId: string) {
  const [box, barBox] = [await page.getByTestId(testId).boundingBox(), await bar(page).boundingBox()];
  expect(box, testId).not.toBeNull();
  expect(box!.y, testId).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height, `${testId} ends above the bar`).toBeLessThanOrEqual(barBox!.y + 0.5);
}

test("the first screen shows what will run, with progress and time left, above the bar", async ({ browser }) => {
  const { role, tool } = reviewTeam("phone", 2);
  const { client } = service();
  const alice = await reviewer(browser, [role], "alice", PHONE);
  const bob = await reviewer(browser, [role], "bob", PHONE);
  const created = await ask(client, {
    tool: tool("refund"),
    summary: "Refund order 1182 in full: the customer was charged twice for one delivery.",
    arguments: { order: "1182", amount: 25, currency: "EUR" },
  });
  await alice.page.goto(`/approvals/${created.approval_id}`);
  await expect(alice.page.getByRole("heading", { level: 1, name: tool("refund") })).toBeInViewport();
  await expect(alice.page.getByTestId("glance-summary")).toContainText("Refund order 1182 in full");
  const lines = alice.page.getByRole("list", { name: "The arguments' first lines" }).getByRole("listitem");
  await expect(lines).toHaveText(['order: "1182"', "amount: 25", 'currency: "EUR"']);
  await expect(alice.page.getByTestId("glance-more")).toHaveCount(0);
  await expect(alice.page.getByTestId("glance-progress")).toHaveText(/^0 of 2 approvals — your approval makes it 1 of 2 · expires in 23 h 59 min$/);
  for (const id of ["glance-summary", "glance-args", "glance-progress"]) await aboveBar(alice.page, id);
  // The bar says it too, and the whole arguments were in view: Approve is ready.
  await expect(alice.page.getByTestId("decision-progress")).toHaveText(/^0 of 2 approvals — your approval makes it 1 of 2 · expires in 23 h 59 min$/);
  await expect(approve(alice.page)).toBeEnabled();
  await expect(approve(alice.page)).not.toHaveAttribute("aria-disabled");
  // The first screen, light and dark, at 390 px and on a desktop (docs/screenshots, README).
  await saveScreens(alice.page, "decision-first-screen", async (p) => {
    await expect(p.getByTestId("glance-progress")).toContainText("expires in");
  });
  await Promise.all([alice.context.close(), bob.context.close()]);
});

/** About 60 KiB of arguments: the glance shows their first lines, the viewer below them the rest. */
const big = () => ({ rows: Array.from({ length: 600 }, (_, i) => ({ id: i, note: `${"n".repeat(90)} ${i}` })) });

test("on a 60 KiB request Approve waits until the arguments were scrolled into view", async ({ browser }) => {
  const { role, tool } = reviewTeam("phone", 1);
  const { client } = service();
  const alice = await reviewer(browser, [role], "alice", PHONE);
  const args = big();
  expect(JSON.stringify(args).length).toBeGreaterThan(60 * 1024);
  const created = await ask(client, { tool: tool("big"), summary: "Rewrite the notes", arguments: args });
  await alice.page.goto(`/approvals/${created.approval_id}`);

  await expect(alice.page.getByTestId("glance-more")).toHaveText("… 1,795 more lines: see all the arguments");
  await aboveBar(alice.page, "glance-args");
  await expect(approve(alice.page)).toHaveAttribute("aria-disabled", "true");
  await expect(approve(alice.page)).toBeDisabled();
  await expect(alice.page.getByTestId("decision-line")).toHaveText("Look at the arguments before approving: scroll to them, or open them.");
  // Pressed anyway (a forced click skips Playwright's own wait): nothing is sent.
  await approve(alice.page).click({ force: true });
  await alice.page.waitForTimeout(500);
  expect(reviewsOf(created.approval_id)).toEqual([]);

  // Scrolling the arguments' first screen into view is enough.
  await alice.page.mouse.wheel(0, 300);
  await expect(approve(alice.page)).toHaveAttribute("aria-disabled", "true");
  await alice.page.getByRole("heading", { name: /^Arguments/ }).scrollIntoViewIfNeeded();
  await alice.page.mouse.wheel(0, 250);
  await expect(approve(alice.page)).toBeEnabled();
  await expect(alice.page.getByTestId("decision-line")).toHaveText("");
  await approve(alice.page).click();
  await expect(alice.page.getByTestId("decision-result")).toContainText("Approved by you");
  expect(reviewsOf(created.approval_id).map((r) => r.decision)).toEqual(["approve"]);
  await alice.context.close();
});

test("keyboard only: every Tab stop of a 60 KiB request stays clear of the bar, and reaching the arguments enables Approve", async ({ browser }) => {
  const { role, tool } = reviewTeam("phone", 1);
  const { client } = service();
  const alice = await reviewer(browser, [role], "alice", PHONE);
  const created = await ask(client, { tool: tool("big"), summary: "Rewrite the notes", arguments: big() });
  const page = alice.page;
  await page.goto(`/approvals/${created.approval_id}`);
  await expect(approve(page)).toHaveAttribute("aria-disabled", "true");
  // Approve stays a Tab stop while it waits (aria-disabled, not disabled), so the keyboard user can find and read it.
  const barBox = (await bar(page).boundingBox())!;

  type Stop = { inBar: boolean; inArguments: boolean; label: string; top: number; bottom: number; left: number; right: number };
  const stops: Stop[] = [];
  let approveEnabledAt: number | null = null;
  let wrapped = false;
  for (let press = 0; press < 400; press++) {
    await page.keyboard.press("Tab");
    const stop = await page.evaluate((): Stop | null => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      const r = el.getBoundingClientRect();
      return {
        inBar: !!el.closest('[data-testid="decision-bar"]'),
        inArguments: !!el.closest("#arguments"),
        label: `${el.tagName.toLowerCase()} ${(el.textContent ?? "").trim().slice(0, 40)}`,
        top: r.top,
        bottom: r.bottom,
        left: r.left,
        right: r.right,
      };
    });
    if (stop === null) {
      wrapped = true; // past the last stop
      break;
    }
    stops.push(stop);
    if (approveEnabledAt === null && (await approve(page).getAttribute("aria-disabled")) === null) approveEnabledAt = stops.length;
    if (stops.length > 1 && stop.label === stops[0]!.label && stop.top === stops[0]!.top) {
      wrapped = true;
      break;
    }
  }
  // Every stop of the page was visited, the header's menu, the bar and the arguments' controls among them.
  expect(wrapped).toBe(true);
  expect(stops.length).toBeGreaterThan(12);
  const hidden = stops.filter((s) => !s.inBar && s.bottom > barBox.y + 0.5 && s.top < barBox.y + barBox.height && s.right > 0 && s.left < 390);
  expect(hidden, "focus targets under the decision bar").toEqual([]);
  const offscreen = stops.filter((s) => !s.inBar && (s.top < 0 || s.bottom > 844));
  expect(offscreen, "focus targets outside the window").toEqual([]);
  // Focus entered the arguments on the way, and that counted as opening them.
  expect(stops.some((s) => s.inArguments)).toBe(true);
  expect(approveEnabledAt).not.toBeNull();
  await expect(approve(page)).toBeEnabled();
  await alice.context.close();
});

test("while Propose changes is open the bar steps aside, and fields read as words, not JSON Pointers", async ({ browser }) => {
  const { role, tool } = reviewTeam("phone", 1);
  const { client } = service();
  const alice = await reviewer(browser, [role], "alice", PHONE);
  const created = await ask(client, { tool: tool("pay"), arguments: { order: { id: "1182", lines: [{ sku: "A-1", qty: 2 }] }, amount: 25 } });
  const page = alice.page;
  await page.goto(`/approvals/${created.approval_id}`);
  await expect(bar(page)).toBeVisible();

  await page.getByTestId("propose-changes").locator(":scope > summary").click();
  await expect(bar(page)).toBeHidden();
  await expect(page.getByTestId("bar-aside")).toBeVisible();
  // One reason box and one way to send on screen: the form's own.
  await expect(page.getByRole("textbox", { name: /^Reason/ })).toBeHidden();
  const field = page.getByLabel("Change 1: field");
  await expect(field.getByRole("option", { name: "order › lines › 0 › qty" })).toHaveCount(1);
  await field.selectOption({ label: "order › lines › 0 › qty" });
  await page.getByLabel("Change 1: new value").fill("1");
  await expect(page.getByTestId("patch-summary")).toHaveText("Set order › lines › 0 › qty to 1");
  // Focus in the open form is never under a bar (there is none); the page's bottom room shrank with it.
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).scrollPaddingBottom)).toBe("0px");

  await page.getByTestId("propose-changes").locator(":scope > summary").click();
  await expect(bar(page)).toBeVisible();
  await expect(page.getByRole("textbox", { name: /^Reason/ })).toBeVisible();
  await alice.context.close();
});
