// The header on every size of screen (issue 36): below 1024 px an admin's ten
// links fold into a "Menu" disclosure (one row, not four); wide, everything
// sits on one row and "Sign out" never wraps; "Keyboard shortcuts" is not
// offered on touch screens.
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { E2E } from "./config";
import { createUser, signIn } from "./helpers";

test.describe.configure({ timeout: 120_000 });

// The first sign-in after the app starts can be slow: warm the pages up once.
test.beforeAll(async ({ request }) => {
  await request.get("/signin");
});

test("at 390 px an admin's header is one row with a Menu; the menu holds the links, who is signed in and Sign out", async ({ browser }) => {
  const admin = createUser({ roles: ["admin", "reviewer"], prefix: "hdr-admin" });
  const context = await browser.newContext({ baseURL: E2E.appUrl, viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  await signIn(page, admin);
  const header = page.locator("header");
  const nav = page.getByRole("navigation", { name: "Main" });
  expect((await header.boundingBox())!.height).toBeLessThanOrEqual(70);
  await expect(nav.getByRole("link", { name: "Policies" })).toBeHidden();
  await expect(page.getByRole("button", { name: "Sign out" })).toBeHidden();

  await nav.getByText("Menu").click();
  await expect(nav.getByRole("link", { name: "Policies" })).toBeVisible();
  await expect(page.getByTestId("current-user")).toBeVisible();
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
  // The open menu lies over the page, within the screen's width.
  const menu = (await nav.getByRole("list").boundingBox())!;
  expect(menu.x + menu.width).toBeLessThanOrEqual(390);
  expect((await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]).analyze()).violations).toEqual([]);
  await nav.getByRole("link", { name: "Policies" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Policies" })).toBeVisible();
  // A new page: the menu is closed again.
  await expect(nav.getByRole("link", { name: "Users" })).toBeHidden();

  // On a touch screen there is no "Keyboard shortcuts" button.
  await page.goto("/approvals");
  await expect(page.getByRole("heading", { level: 1, name: "Approvals" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Keyboard shortcuts" })).toBeHidden();
  await context.close();
});

test("at 1440 px an admin's header is one row and Sign out does not wrap; a mouse user gets Keyboard shortcuts", async ({ browser }) => {
  const admin = createUser({ roles: ["admin", "reviewer"], prefix: "hdr-wide-admin-with-a-rather-long-name" });
  const context = await browser.newContext({ baseURL: E2E.appUrl, viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await signIn(page, admin);
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByText("Menu")).toBeHidden();
  for (const name of ["Queue", "Users", "Policies", "Audit", "Insights", "Settings"]) await expect(nav.getByRole("link", { name })).toBeVisible();
  const signOut = page.getByRole("button", { name: "Sign out" });
  const box = (await signOut.boundingBox())!;
  const lineHeight = await signOut.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight));
  expect(box.height).toBeLessThan(lineHeight * 2);
  // One row: the brand, the last link and Sign out share a line.
  const [brand, settings] = [
    (await nav.getByRole("link", { name: "Countersign" }).boundingBox())!,
    (await nav.getByRole("link", { name: "Settings" }).boundingBox())!,
  ];
  for (const b of [settings, box]) expect(Math.abs(b.y + b.height / 2 - (brand.y + brand.height / 2))).toBeLessThan(6);
  await expect(page.getByRole("button", { name: "Keyboard shortcuts" })).toBeVisible();
  await context.close();
});
