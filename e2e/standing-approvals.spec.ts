// Standing approvals in the browser (docs/standing-approvals.md): proposed
// from a request's page with a pin and a preview, active at once under a
// quorum of one, applied to the next matching call as it arrives, listed
// with its use, and revoked from the list: the call after waits for people.
import { randomUUID } from "node:crypto";
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { adminCli, tag } from "./helpers";
import { reviewer, saveScreens, service } from "./review-helpers";

test.describe.configure({ timeout: 180_000 });

test.beforeAll(async ({ request }) => {
  await request.get("/signin");
});

test("propose from a request, decide the next matching call at once, see it used, revoke it", async ({ browser }) => {
  const t = tag();
  const role = `standing-${t}`;
  const tool = `e2e.standing${t}.refund`;
  adminCli([
    "policy",
    "set",
    "--anyway",
    "--name",
    `e2e-standing-${t}`,
    "--tool",
    tool,
    "--roles",
    role,
    "--quorum",
    "1",
    "--ttl",
    "86400",
    "--standing-max-ttl",
    "3600",
  ]);
  const { client } = service();
  const alice = await reviewer(browser, [role], "alice");
  const ask = (account: string) => client.requestApproval({ run_id: `run_${randomUUID()}`, call_id: "c1", tool, arguments: { account, amount: 10 } });
  const first = await ask("AC-1");

  const page = alice.page;
  await page.goto(`/approvals/${first.approval_id}`);
  await page.getByText("Standing approval", { exact: true }).click();
  await page.getByLabel("Pin 1: path").fill("/account");
  await page.getByRole("button", { name: "Preview matches" }).click();
  await expect(page.getByTestId("standing-message")).toContainText('would have matched: /account = "AC-1"');
  await page.getByLabel("Why calls like this may run without asking").fill("refunds to AC-1 are routine today");
  await page.getByRole("button", { name: "Propose standing approval" }).click();
  await expect(page.getByTestId("standing-message")).toContainText("Standing approval active");

  const matched = await ask("AC-1");
  expect(matched.status).toBe("approved");
  expect((await ask("AC-2")).status).toBe("pending");
  await page.goto(`/approvals/${matched.approval_id}`);
  await expect(page.getByTestId("decided-by-standing")).toBeVisible();

  await page.goto("/standing");
  const rule = page.getByTestId("standing-rule").filter({ hasText: tool });
  await expect(rule).toContainText('/account = "AC-1"');
  await expect(rule).toContainText("used 1 time");
  await expect(rule.getByTestId("standing-status")).toHaveText("active");
  await rule.getByRole("button", { name: "Revoke" }).click();
  await rule.getByRole("button", { name: "Confirm: Revoke" }).click();
  await expect(rule.getByTestId("standing-status")).toHaveText("revoked");
  expect((await ask("AC-1")).status).toBe("pending");
  await alice.context.close();
});

test("the proposal form says what stays free as pins are added, and the preview shows bounds closed on both sides", async ({ browser }) => {
  const t = tag();
  const role = `standing-free-${t}`;
  const tool = `e2e.standingfree${t}.refund`;
  adminCli([
    "policy",
    "set",
    "--anyway",
    "--name",
    `e2e-standing-free-${t}`,
    "--tool",
    tool,
    "--roles",
    role,
    "--quorum",
    "1",
    "--ttl",
    "86400",
    "--standing-max-ttl",
    "3600",
  ]);
  const { client } = service();
  const alice = await reviewer(browser, [role], "alice");
  const source = { account: "AC-1", amount: 10, note: "late delivery", lines: [{ sku: "A-1" }] };
  const ask = (args: Record<string, unknown>) => client.requestApproval({ run_id: `run_${randomUUID()}`, call_id: "c1", tool, arguments: args });
  const first = await ask(source);

  const page = alice.page;
  await page.goto(`/approvals/${first.approval_id}`);
  await page.getByText("Standing approval", { exact: true }).click();
  await page.getByLabel("Pin 1: path").fill("/account");
  const free = page.getByTestId("standing-free");
  await expect(free).toHaveText(
    "Everything else must be exactly as in this request: the same keys, the same types, lists of the same length. " +
      "Free: /amount (any number), /note (any text), /lines/0/sku (any text).",
  );
  await page.getByRole("button", { name: "Add a pin" }).click();
  await page.getByLabel("Pin 2: path").fill("/amount");
  await page.getByLabel("Pin 2: test").selectOption("lte");
  await page.getByLabel("Pin 2: value").fill("100");
  await expect(free).toContainText("Free: /note (any text), /lines/0/sku (any text).");
  await page.getByRole("button", { name: "Add a pin" }).click();
  await page.getByLabel("Pin 3: path").fill("/lines");
  await page.getByLabel("Pin 3: test").selectOption("max_length");
  await page.getByLabel("Pin 3: value").fill("3");
  await expect(free).toHaveText(
    "Everything else must be exactly as in this request: the same keys, the same types, lists of the same length " +
      "(/lines: at most 3 items, each with the keys and types of its items there). Free: /note (any text), /lines/*/sku (any text).",
  );

  await page.getByRole("button", { name: "Preview matches" }).click();
  await expect(page.getByTestId("standing-message")).toContainText('would have matched: /account = "AC-1"; 0 ≤ /amount ≤ 100; Everything else must');
  await page.getByLabel("Why calls like this may run without asking").fill("small refunds to AC-1");
  await page.getByRole("button", { name: "Propose standing approval" }).click();
  await expect(page.getByTestId("standing-message")).toContainText("Standing approval active");

  // Up to three lines of the same shape: decided at once; a fourth line, an extra key, a negative amount: left to people.
  expect((await ask({ ...source, note: "other", lines: [{ sku: "B-2" }, { sku: "C-3" }] })).status).toBe("approved");
  expect((await ask({ ...source, lines: [{ sku: "1" }, { sku: "2" }, { sku: "3" }, { sku: "4" }] })).status).toBe("pending");
  expect((await ask({ ...source, amount_cents: 1000 })).status).toBe("pending");
  expect((await ask({ ...source, amount: -5 })).status).toBe("pending");

  await page.goto("/standing");
  const rule = page.getByTestId("standing-rule").filter({ hasText: tool });
  await expect(rule).toContainText("0 ≤ /amount ≤ 100");
  await expect(rule).toContainText("as in the request it came from");
  await expect(rule).toContainText("Free: /note (any text), /lines/*/sku (any text).");
  await alice.context.close();
});

test("a proposal that needs a second approver is found from the queue and listed apart from the active ones", async ({ browser }) => {
  const t = tag();
  const role = `standing2-${t}`;
  const tool = `e2e.standingtwo${t}.refund`;
  adminCli([
    "policy",
    "set",
    "--name",
    `e2e-standing2-${t}`,
    "--tool",
    tool,
    "--roles",
    role,
    "--quorum",
    "2",
    "--ttl",
    "86400",
    "--standing-max-ttl",
    "3600",
    "--anyway",
  ]);
  const { client } = service();
  const [alice, bob] = [await reviewer(browser, [role], "alice"), await reviewer(browser, [role], "bob")];
  const first = await client.requestApproval({ run_id: `run_${randomUUID()}`, call_id: "c1", tool, arguments: { account: "AC-9", amount: 10 } });

  await alice.page.goto(`/approvals/${first.approval_id}`);
  await alice.page.getByText("Standing approval", { exact: true }).click();
  await alice.page.getByLabel("Pin 1: path").fill("/account");
  await alice.page.getByLabel("Why calls like this may run without asking").fill("refunds to AC-9 are routine today");
  await alice.page.getByRole("button", { name: "Propose standing approval" }).click();
  await expect(alice.page.getByTestId("standing-message")).toContainText(/proposed/i);
  // The proposer sees it as proposed, waiting for others; not among the active ones.
  await alice.page.goto("/standing");
  await expect(alice.page.getByTestId("standing-proposed").getByTestId("standing-rule").filter({ hasText: tool })).toBeVisible();
  await expect(alice.page.getByTestId("standing-active").getByTestId("standing-rule").filter({ hasText: tool })).toHaveCount(0);

  // The second approver is told in the queue, and finds it first on the page.
  await bob.page.goto("/approvals");
  const note = bob.page.getByTestId("standing-to-approve");
  await expect(note).toHaveText("1 proposed standing approval waits for your approval. Review standing approvals");
  await note.getByRole("link", { name: "Review standing approvals" }).click();
  await expect(bob.page).toHaveURL(/\/standing$/);
  const yours = bob.page.getByTestId("standing-yours");
  await expect(yours.getByRole("heading", { level: 2 })).toHaveText("Waiting for your approval (1)");
  // Axe-clean, light and dark, at both widths; and saved for the docs.
  await saveScreens(bob.page, "standing", async (p) => {
    await expect(p.getByTestId("standing-yours").getByRole("heading", { level: 2 })).toBeVisible();
    const { violations } = await new AxeBuilder({ page: p }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]).analyze();
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`)).toEqual([]);
  });
  await yours.getByTestId("standing-rule").filter({ hasText: tool }).getByRole("button", { name: "Approve standing approval" }).click();
  const active = bob.page.getByTestId("standing-active").getByTestId("standing-rule").filter({ hasText: tool });
  await expect(active.getByTestId("standing-status")).toHaveText("active");
  await expect(bob.page.getByTestId("standing-yours")).toHaveCount(0);
  await bob.page.goto("/approvals");
  await expect(bob.page.getByTestId("standing-to-approve")).toHaveCount(0);
  await Promise.all([alice.context.close(), bob.context.close()]);
});
