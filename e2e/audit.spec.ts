// /admin/audit shows the chain's verification state and streams the export;
// only admins may download it.
import { expect, test } from "@playwright/test";
import { createUser, signIn } from "./helpers";

test("an admin sees the chain verify and downloads the export; a reviewer cannot", async ({ browser }) => {
  const admin = await createUser({ roles: ["admin"] });
  const reviewer = await createUser({ roles: ["reviewer"] });

  const adminContext = await browser.newContext();
  const page = await adminContext.newPage();
  await signIn(page, admin);
  await page.goto("/admin/audit");
  await expect(page.getByTestId("chain-state")).toContainText("The hash chain verifies");
  const exported = await page.request.get("/admin/audit/export");
  expect(exported.status()).toBe(200);
  const lines = (await exported.text())
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { seq: number; type: string; hash: string });
  expect(lines.length).toBeGreaterThan(3);
  expect(lines.map((l) => l.seq)).toEqual(lines.map((_, i) => i + 1));
  expect(lines.some((l) => l.type === "role.granted")).toBe(true);
  await adminContext.close();

  const reviewerContext = await browser.newContext();
  const other = await reviewerContext.newPage();
  await signIn(other, reviewer);
  const refused = await other.request.get("/admin/audit/export");
  expect(refused.status()).toBe(403);
  expect(await refused.text()).not.toContain("role.granted");
  await reviewerContext.close();

  const anonymous = await browser.newContext();
  const denied = await anonymous.request.get("/admin/audit/export");
  expect(denied.status()).toBe(401);
  await anonymous.close();
});
