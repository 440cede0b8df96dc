// The decision page's arguments viewer in Chromium (components/json-tree.tsx):
// a 60 KiB request stays a short page at 390 px with its big list collapsed to
// a count and few Tab stops; Expand all loads the rest from the arguments
// route; search finds a value far beyond the first render and counts it; the
// raw view is the canonical JSON of the redacted arguments; a long string
// shows its start and the rest on request.
import canonicalize from "canonicalize";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { E2E } from "./config";
import { createUser, submitSignIn } from "./helpers";
import { ask, service } from "./review-helpers";

test.describe.configure({ timeout: 180_000 });

/** About 60 KiB: 600 records of ~100 bytes, one far-down record holding the needle, and a long note. */
function bigArguments() {
  const records = Array.from({ length: 600 }, (_, i) => ({
    id: `rec-${String(i).padStart(5, "0")}`,
    note: i === 543 ? "Deep NEEDLE in record five hundred forty-three" : `ordinary line item number ${i} for the monthly import`,
    amount: i * 3,
  }));
  return { records, note: `${"lorem ipsum dolor sit amet ".repeat(200)}THE END` };
}

/** A reviewer, signed in once the sign-in page is hydrated, with time to spare on a loaded machine. */
async function reviewer(browser: Browser, prefix: string, viewport?: { width: number; height: number }) {
  const user = createUser({ roles: ["reviewer"], prefix });
  const context = await browser.newContext({ baseURL: E2E.appUrl, ...(viewport ? { viewport } : {}) });
  const page = await context.newPage();
  await submitSignIn(page, user, { hydrated: true });
  await expect(page.getByTestId("current-user")).toHaveText(user.email, { timeout: 30_000 });
  return { context, page };
}

const argsGroup = (page: Page) => page.getByRole("group", { name: "Arguments (redacted)" });

test("a 60 KiB request: short page at 390 px, counts, Expand all, search, raw JSON, long string", async ({ browser }) => {
  const args = bigArguments();
  expect(JSON.stringify(args).length).toBeGreaterThan(60 * 1024);
  const { client } = service();
  const { approval_id: id } = await ask(client, { tool: "bulk.import", arguments: args });
  const r = await reviewer(browser, "args", { width: 390, height: 844 });
  const { page } = r;
  await page.goto(`/approvals/${id}`);
  const tree = argsGroup(page);

  // Collapsed to counts: a short page, nothing wider than the screen, few Tab stops in the tree.
  const records = tree.locator("li[data-container]").filter({ has: page.locator("bdi[data-key]", { hasText: /^records$/ }) });
  const toggle = records.getByRole("button", { name: "[600 items]" });
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  const size = await page.evaluate(() => ({ height: document.documentElement.scrollHeight, width: document.documentElement.scrollWidth }));
  expect(size.height, `page height ${size.height}px`).toBeLessThan(4_000);
  expect(size.width).toBeLessThanOrEqual(390);
  expect(await tree.locator("button, a[href], input, [tabindex]").count()).toBeLessThan(10);
  // Target size: rows and toggles at least 24 px high.
  expect((await toggle.boundingBox())!.height).toBeGreaterThanOrEqual(24);
  const noteRow = tree.locator("li", { has: page.locator("bdi[data-key]", { hasText: /^note$/ }) }).last();
  expect((await noteRow.boundingBox())!.height).toBeGreaterThanOrEqual(24);

  // The long string: its first 200 characters, a count, then all of it.
  const note = noteRow.locator("bdi[data-value]");
  const rest = args.note.length - 200;
  await expect(note).toContainText(`… (${rest.toLocaleString("en-US")} more characters)`);
  await note.getByRole("button", { name: "Show all" }).click();
  await expect(note).toHaveText(JSON.stringify(args.note));

  // Expand all: every record, loaded page by page from the arguments route.
  await page.getByRole("button", { name: "Expand all" }).click();
  await expect(page.getByTestId("arguments-status")).toHaveText("Expanded: all arguments are shown.", { timeout: 60_000 });
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  await expect(records.locator(":scope > ul > li[data-container]")).toHaveCount(600);
  await expect(tree.getByText('"rec-00599"')).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.getByRole("button", { name: "Collapse all" }).click();
  await expect(toggle).toHaveAttribute("aria-expanded", "false");

  // Search, on a fresh page: the needle is far beyond the first render (50 records).
  await page.reload();
  const search = page.getByRole("searchbox", { name: "Search keys and values" });
  await search.fill("needle");
  await search.press("Enter");
  await expect(page.getByTestId("arguments-status")).toHaveText("1 match");
  const hit = tree.locator("mark[data-match]");
  await expect(hit).toHaveText("NEEDLE");
  await expect(hit).toBeVisible();
  await expect(tree.locator("li", { has: page.locator("mark[data-match]") }).last()).toContainText(
    '"Deep NEEDLE in record five hundred forty-three"',
  );
  await search.fill("rec-0000");
  await search.press("Enter");
  await expect(page.getByTestId("arguments-status")).toHaveText("10 matches");
  await expect(tree.locator("mark[data-match]")).toHaveCount(10);
  await search.fill("");
  await expect(page.getByTestId("arguments-status")).toHaveText("");
  await expect(toggle).toBeVisible();

  // Raw JSON: the canonical JSON of the (here unredacted, nothing secret) arguments.
  await page.getByRole("button", { name: "Raw JSON" }).click();
  const raw = page.getByTestId("raw-json");
  await expect(raw).toBeVisible();
  expect(await raw.textContent()).toBe(canonicalize(args));
  await expect(page.getByRole("button", { name: "Copy JSON" })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await r.context.close();
});

test("the raw view escapes hidden characters and shows redaction markers", async ({ browser }) => {
  const { client } = service();
  const { approval_id: id } = await ask(client, {
    tool: "payments.pay",
    arguments: { account: "AC-\u202E9876\u202C", password: "hunter2-Secret-99" },
  });
  const r = await reviewer(browser, "raw");
  await r.page.goto(`/approvals/${id}`);
  await r.page.getByRole("button", { name: "Raw JSON" }).click();
  const raw = r.page.getByTestId("raw-json");
  await expect(raw).toContainText('"account":"AC-⟨U+202E⟩9876⟨U+202C⟩"');
  await expect(raw).toContainText('"password":"[redacted:');
  const text = (await raw.textContent()) ?? "";
  expect(text).not.toMatch(/[\u202E\u202C]/);
  expect(text).not.toContain("hunter2");
  await expect(raw.locator("[data-escape]").first()).toHaveText("⟨U+202E⟩");
  await r.context.close();
});
