// /admin/audit shows the chain's verification state and retention's, and streams the export;
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
  // Retention's state (docs/operations.md): this app keeps arguments for ever and archived nothing.
  await expect(page.getByTestId("retention-setting")).toHaveText("RETENTION_DAYS is not set: requests keep their arguments for ever.");
  await expect(page.getByTestId("retention-state")).toContainText("No part of the chain has been archived.");
  const exported = await page.request.get("/admin/audit/export");
  expect(exported.status()).toBe(200);
  const lines = (await exported.text())
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { seq: number; type: string; hash: string });
  expect(lines.length).toBeGreaterThan(3);
  expect(lines.map((l) => l.seq)).toEqual(lines.map((_, i) => i + 1));
  expect(lines.some((l) => l.type === "role.granted")).toBe(true);

  // Filtered: the page offers its filter's export, and the export holds only what the filter selects.
  await page.goto(`/admin/audit?type=user.signed_in&actor=${encodeURIComponent(`user:${admin.email}`)}`);
  // A sign-in is the user's own act.
  await expect(page.getByTestId("audit-actor")).toHaveText([`user:${admin.email}`]);
  // The actor wraps only at its parts (after "user:", before "@"), never inside a word.
  const actorCell = page.getByTestId("audit-actor").first();
  await expect(actorCell).toHaveCSS("word-break", "normal");
  await expect(actorCell).toHaveCSS("overflow-wrap", "normal");
  expect(await actorCell.locator("wbr").count()).toBe(2);
  const href = await page.getByTestId("export-filtered").getAttribute("href");
  expect(href).toBe(`/admin/audit/export?type=user.signed_in&actor=${encodeURIComponent(`user:${admin.email}`)}`);
  const filtered = await page.request.get(href!);
  expect(filtered.status()).toBe(200);
  const only = (await filtered.text())
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { seq: number; type: string; actor: string; hash: string; at: string });
  expect(only.map((l) => [l.type, l.actor])).toEqual([["user.signed_in", `user:${admin.email}`]]);
  expect(only[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
  expect(only[0]!.at).toMatch(/Z$/);
  expect((await page.request.get("/admin/audit/export?type=no.such.type")).status()).toBe(422);
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
