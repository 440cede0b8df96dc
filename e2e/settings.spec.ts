// /settings and installability in real Chromium: the manifest and its icons,
// the service worker script (served to anyone), channel preferences that
// persist, and turning push on in this browser, which here (no internet, so
// no vendor push service) must end in a clear error, not a pretend success.
import AxeBuilder from "@axe-core/playwright";
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { E2E } from "./config";
import { session } from "./admin-helpers";

const pngSize = (b: Buffer) => ({ png: b.subarray(1, 4).toString("latin1") === "PNG", width: b.readUInt32BE(16), height: b.readUInt32BE(20) });

test("the app is installable: a valid manifest with icons that load, and the service worker, all without a session", async ({ page }) => {
  const anonymous = await playwrightRequest.newContext({ baseURL: E2E.appUrl });
  const res = await anonymous.get("/manifest.webmanifest");
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toContain("application/manifest+json");
  const manifest = (await res.json()) as {
    name: string;
    start_url: string;
    display: string;
    icons: Array<{ src: string; sizes: string; type: string; purpose: string }>;
  };
  expect(manifest).toMatchObject({ name: "Countersign", start_url: "/approvals", display: "standalone" });
  expect(manifest.icons.map((i) => `${i.sizes} ${i.purpose}`).sort()).toEqual(["192x192 any", "512x512 any", "512x512 maskable"]);
  for (const icon of manifest.icons) {
    const r = await anonymous.get(icon.src);
    expect(r.status(), icon.src).toBe(200);
    expect(r.headers()["content-type"]).toBe("image/png");
    const [w, h] = icon.sizes.split("x").map(Number);
    expect(pngSize(await r.body())).toEqual({ png: true, width: w, height: h });
  }
  const sw = await anonymous.get("/sw.js");
  expect(sw.status()).toBe(200);
  expect(sw.headers()["content-type"]).toContain("javascript");
  expect(await sw.text()).toContain('addEventListener("push"');
  await anonymous.dispose();

  // Every page links the manifest, the sign-in page included.
  await page.goto("/signin");
  await expect(page.locator('link[rel="manifest"]')).toHaveAttribute("href", "/manifest.webmanifest");
});

test("a reviewer's channel choices persist; turning push on here fails clearly; the page fits 390 px", async ({ browser }) => {
  const s = await session(browser, ["reviewer"], "settings");
  const { page, context } = s;
  await context.grantPermissions(["notifications"], { origin: E2E.appUrl });
  await page.getByRole("link", { name: "Settings" }).click();
  await expect(page).toHaveURL(/\/settings$/);
  await expect(page.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();

  // Channels: all on for a new user; email off, saved, still off after a reload.
  const email = page.getByRole("checkbox", { name: /^Email/ });
  const push = page.getByRole("checkbox", { name: /^Push notifications/ });
  const slackDms = page.getByRole("checkbox", { name: /^Slack direct messages/ });
  await expect(email).toBeChecked();
  await expect(push).toBeChecked();
  // Slack is not set up on this server: the box is off, cannot be changed, and says why.
  await expect(slackDms).toBeDisabled();
  await expect(slackDms).not.toBeChecked();
  await expect(slackDms).toHaveAccessibleDescription(/Not available: Slack is not set up on this server/);
  await email.uncheck();
  await page.getByRole("button", { name: "Save channels" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved" })).toHaveText("Saved: email off, push on, Slack not set up here.");
  await page.reload();
  await expect(email).not.toBeChecked();
  await expect(push).toBeChecked();
  await email.check();
  await push.uncheck();
  await page.getByRole("button", { name: "Save channels" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved" })).toHaveText("Saved: email on, push off, Slack not set up here.");
  await page.reload();
  await expect(email).toBeChecked();
  await expect(push).not.toBeChecked();
  await expect(slackDms).toBeDisabled();

  // This browser: push is set up on the server (local VAPID keys), so the button is live.
  await expect(page.getByTestId("push-browser-status")).toHaveText("Notifications are off in this browser.");
  await page.getByRole("button", { name: "Turn on notifications in this browser" }).click();
  // The service worker registers (the page's CSP allows it) whatever the push service does next.
  await expect
    .poll(() => page.evaluate(async () => (await navigator.serviceWorker.getRegistration("/"))?.active?.scriptURL ?? null), { timeout: 10_000 })
    .toBe(`${E2E.appUrl}/sw.js`);
  // Headless Chromium refuses the subscription itself, notifications permission granted or not
  // ("AbortError: Registration failed - permission denied"); without internet its push service
  // (FCM) would be out of reach anyway. The page must say so, and save nothing.
  const alert = page.getByRole("alert").filter({ hasText: "push messages" });
  await expect(alert).toContainText("This browser could not subscribe to push messages (AbortError: Registration failed", { timeout: 20_000 });
  await expect(alert).toContainText("Email still works.");
  await expect(page.getByRole("heading", { name: "Your browsers (0)" })).toBeVisible();
  await expect(page.getByText("No browser has notifications turned on.")).toBeVisible();

  // The test message: with push off and email on, one email (the local mailbox).
  await page.getByRole("button", { name: "Send a test message" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Test message" })).toContainText("Test message queued on email (1 message)");

  // 390 px wide (a phone): nothing wider than the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(page.getByRole("button", { name: "Turn on notifications in this browser" })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`)).toEqual([]);
  await context.close();
});

test("a reviewer goes away until a time, sees it on the page, and comes back", async ({ browser }) => {
  const reviewer = await session(browser, ["reviewer"], "away");
  const page = reviewer.page;
  await page.goto("/settings");
  const section = page.getByRole("region", { name: "Away" });
  await expect(section.getByTestId("away-state")).toContainText("You are not away.");

  // A past time is refused with its reason; nothing changes.
  await section.getByLabel("Away until (UTC)").fill("2020-01-01T09:00");
  await section.getByRole("button", { name: "Go away" }).click();
  await expect(section.getByRole("alert")).toContainText("away until: must be in the future");

  const tomorrow = new Date(Date.now() + 24 * 3600_000).toISOString().slice(0, 10);
  await section.getByLabel("Away until (UTC)").fill(`${tomorrow}T09:00`);
  await section.getByRole("button", { name: "Go away" }).click();
  await expect(section.getByRole("status")).toContainText(`Away until ${tomorrow} 09:00 UTC: you are told about nothing until then.`);
  await expect(section.getByTestId("away-state")).toContainText("You are away until");
  await expect(section.getByTestId("away-state").locator("time")).toHaveAttribute("datetime", `${tomorrow}T09:00:00.000Z`);

  await section.getByRole("button", { name: "I'm back" }).click();
  await expect(section.getByTestId("away-state")).toContainText("You are not away.");
  expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
  await reviewer.context.close();
});
