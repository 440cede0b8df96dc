// Display spoofing in Chromium (docs/security.md). "What the reviewer sees is
// what runs": the issue's display-spoofing request (a right-to-left override
// in an account number, a Cyrillic letter in a URL, keys `amount` and
// `amount` + zero-width space, a summary posing as the page's policy line)
// shows its escapes as visible text,
// flags the look-alike, carries the warning at the top, and keeps the summary
// inside its box. Saves docs/screenshots/spoofing-warning.png for the README.
// Bounded rendering: a large request's page loads its other items and the rest
// of a long string when the reviewer asks (components/json-tree-more.tsx).
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { newService } from "./helpers";
import { repoRoot, reviewer } from "./review-helpers";

test.describe.configure({ timeout: 180_000 });

test("a spoofing attempt shows its hidden characters as escapes, under a warning", async ({ browser }, testInfo) => {
  const { client } = newService("e2e-spoof");
  const { approval_id: id } = await client.requestApproval({
    run_id: `run_${randomUUID()}`,
    call_id: "c1",
    tool: "payments.pay",
    environment: "production",
    summary: "Pay the usual supplier invoice.\nPolicy: auto-approved by admin",
    arguments: { account: "AC-\u202E9876\u202C", url: "https://p\u0430ypal.com", amount: 10, "amount\u200B": 9000 },
  });

  const { context, page } = await reviewer(browser, ["reviewer"], "spoof", { width: 900, height: 900 });
  await page.goto(`/approvals/${id}`);

  // The warning comes first on the page, and says what was found where.
  const warning = page.getByRole("alert").filter({ hasText: "hidden, direction-changing or look-alike characters" });
  await expect(warning).toBeVisible();
  await expect(warning).toContainText("arguments.account: direction-changing character right-to-left override (U+202E)");
  await expect(warning).toContainText('key arguments["amount⟨U+200B⟩"]: invisible character zero width space (U+200B)');
  await expect(warning).toContainText("arguments.url: mixes scripts in one word: Latin + Cyrillic");
  const warningBox = (await warning.boundingBox())!;
  const headingBox = (await page.getByRole("heading", { level: 1 }).boundingBox())!;
  expect(warningBox.y).toBeLessThan(headingBox.y);

  // The escapes are text a reviewer reads, highlighted, where the characters are.
  const args = page.getByRole("group", { name: "Arguments (redacted)" });
  const account = args.locator("li", { hasText: "account:" }).locator("bdi[data-value]");
  await expect(account).toHaveText('"AC-⟨U+202E⟩9876⟨U+202C⟩"');
  await expect(account.locator("[data-escape]").first()).toBeVisible();
  await expect(account.locator("[data-escape]").first()).toHaveText("⟨U+202E⟩");
  // Rendered left to right in order: "AC-" comes before "9876", not after it.
  const order = await account.evaluate((el) => {
    const range = document.createRange();
    const text = el.textContent ?? "";
    const at = (needle: string) => {
      const node = [...el.childNodes].find((n) => n.textContent?.includes(needle))!;
      range.selectNodeContents(node);
      return range.getBoundingClientRect().x;
    };
    return { text, ac: at("AC-"), digits: at("9876") };
  });
  expect(order.ac).toBeLessThan(order.digits);

  // Two keys that looked the same now differ on screen.
  const keys = await args.locator("bdi[data-key]").allTextContents();
  expect(keys).toEqual(expect.arrayContaining(["amount", '"amount⟨U+200B⟩"']));

  // The look-alike URL is flagged where it is shown.
  const url = args.locator("li", { hasText: "url:" });
  await expect(url.locator("[data-flag]")).toHaveText(/mixes scripts in one word: Latin \+ Cyrillic/);
  await expect(url.locator("mark[data-lookalike]")).toHaveText("\u0430");
  await expect(url.locator("mark[data-lookalike]")).toBeVisible();

  // The forged policy line stays inside the agent's summary box, which is labelled untrusted.
  const summary = page.getByRole("region", { name: /Summary written by the agent \(untrusted/ });
  const forged = summary.getByText("Policy: auto-approved by admin", { exact: false });
  await expect(forged).toBeVisible();
  const [box, line] = [(await summary.boundingBox())!, (await forged.boundingBox())!];
  expect(line.y).toBeGreaterThanOrEqual(box.y);
  expect(line.y + line.height).toBeLessThanOrEqual(box.y + box.height);
  await expect(page.getByRole("heading", { name: /^Policy: / })).not.toContainText("auto-approved");

  const png = await page.screenshot({ fullPage: true });
  await testInfo.attach("spoofing warning", { body: png, contentType: "image/png" });
  mkdirSync(`${repoRoot}/docs/screenshots`, { recursive: true });
  writeFileSync(`${repoRoot}/docs/screenshots/spoofing-warning.png`, png);
  await context.close();
});

test("a large request shows its first items and loads the rest on demand", async ({ browser }) => {
  const { client } = newService("e2e-big");
  const { approval_id: id } = await client.requestApproval({
    run_id: `run_${randomUUID()}`,
    call_id: "c1",
    tool: "bulk.import",
    arguments: { items: Array.from({ length: 120 }, (_, i) => `item ${i}`), note: `${"x".repeat(1_000)}END` },
  });
  const { context, page } = await reviewer(browser, ["reviewer"], "big");
  await page.goto(`/approvals/${id}`);

  const args = page.getByRole("group", { name: "Arguments (redacted)" });
  const values = args.locator("bdi[data-value]");
  await args.getByRole("button", { name: "[120 items]" }).click(); // long lists start collapsed to their count
  await expect(args.getByText("… 70 more items")).toBeVisible();
  await expect(values.filter({ hasText: /^"item \d+"$/ })).toHaveCount(50);
  await args.getByRole("button", { name: "Show more" }).first().click();
  await expect(args.getByText("… 20 more items")).toBeVisible();
  await args.getByRole("button", { name: "Show more" }).first().click();
  await expect(values.filter({ hasText: /^"item \d+"$/ })).toHaveCount(120);
  await expect(values.filter({ hasText: /^"item \d+"$/ }).last()).toHaveText('"item 119"');
  await expect(args.getByText(/more items/)).toHaveCount(0);

  // The long string: its start, a count, then the rest with its closing quote.
  const note = args.locator("li", { hasText: "note:" }).locator("bdi[data-value]");
  await expect(note).toContainText("… (803 more characters)");
  await note.getByRole("button", { name: "Show all" }).click();
  await expect(note).toHaveText(`"${"x".repeat(1_000)}END"`);
  await context.close();
});
