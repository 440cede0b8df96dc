// The audit page (docs/operations.md): newest first, filtered and paged.
import { expect, test } from "@playwright/test";
import { session } from "./admin-helpers";

test("audit page: newest first, filtered by type and actor, paged by seq", async ({ browser }) => {
  test.setTimeout(120_000);
  const admin = await session(browser, ["admin"], "admin");
  const page = admin.page;

  await page.goto("/admin/audit");
  await page.getByLabel("Event type").selectOption("user.created");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/type=user\.created/);
  const types = page.getByTestId("audit-type");
  await expect(types.first()).toHaveText("user.created");
  for (const t of await types.allTextContents()) expect(t).toBe("user.created");

  await page.goto("/admin/audit?limit=5");
  await expect(page.getByTestId("audit-event")).toHaveCount(5);
  const seqs = async () => (await page.getByTestId("audit-event").locator("td:first-child").allTextContents()).map(Number);
  const first = await seqs();
  expect([...first].sort((a, b) => b - a)).toEqual(first);
  await page.getByRole("link", { name: "Older events" }).click();
  await expect(page).toHaveURL(new RegExp(`before=${first.at(-1)}`));
  const second = await seqs();
  expect(Math.max(...second)).toBeLessThan(Math.min(...first));

  // The admin's own sign-in is recorded with them as its actor; someone who never acted has no events.
  await page.goto(`/admin/audit?actor=${encodeURIComponent(`user:${admin.user.email}`)}`);
  await expect(page.getByTestId("audit-type").first()).toHaveText("user.signed_in");
  await page.goto(`/admin/audit?actor=${encodeURIComponent(`user:nobody-${Date.now()}@example.com`)}`);
  await expect(page.getByText("No events match.")).toBeVisible();
  await page.goto("/admin/audit?type=not.a.type");
  await expect(page.getByRole("main").getByRole("alert")).toContainText("Invalid filter");

  await admin.context.close();
});
