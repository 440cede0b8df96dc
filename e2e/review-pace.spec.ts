// Anti-rubber-stamp in Chromium (docs/insights.md): a policy's
// min_review_seconds refuses a vote cast too soon after the request's page was
// first served, saying how long is left, and accepts it once that time is
// behind (the recorded first view is moved back in the database, not waited
// for); require_full_view refuses a vote on a request whose arguments the
// page showed only in part, until the reviewer opened Raw JSON, and then accepts it.
import { execFileSync } from "node:child_process";
import { expect, test } from "@playwright/test";
import { adminCli, e2eEnv, tag } from "./helpers";
import { ask, repoRoot, reviewer, reviewsOf, service } from "./review-helpers";

/** Moves a reviewer's recorded first view of a request back by `seconds` (a child process: lib/db is server-only). */
function backdateView(approvalId: string, email: string, seconds: number): number {
  const script = `
    const { createDb } = await import("./lib/db/client.ts");
    const db = createDb(process.env.DATABASE_URL);
    const user = await db.user.findUniqueOrThrow({ where: { email: process.env.EMAIL } });
    const view = await db.reviewView.findUniqueOrThrow({ where: { approvalId_userId: { approvalId: process.env.APPROVAL_ID, userId: user.id } } });
    const r = await db.reviewView.updateMany({
      where: { approvalId: process.env.APPROVAL_ID, userId: user.id },
      data: { firstServedAt: new Date(view.firstServedAt.getTime() - Number(process.env.SECONDS) * 1000) },
    });
    await db.$disconnect();
    process.stdout.write(String(r.count));`;
  const out = execFileSync(
    process.execPath,
    ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "--input-type=module", "--eval", script],
    {
      cwd: repoRoot,
      env: { ...e2eEnv(), APPROVAL_ID: approvalId, EMAIL: email, SECONDS: String(seconds) },
      encoding: "utf8",
      timeout: 60_000,
    },
  );
  return Number(out);
}

test("min_review_seconds: a vote too early is refused with the seconds left, then accepted after the time", async ({ browser }) => {
  test.setTimeout(120_000);
  const t = tag();
  const tool = `e2e.pace.${t}`;
  adminCli([
    "policy",
    "set",
    "--anyway",
    "--name",
    `e2e-pace-${t}`,
    "--tool",
    tool,
    "--roles",
    "payments",
    "--quorum",
    "1",
    "--ttl",
    "3600",
    "--min-review-seconds",
    "600",
  ]);
  const { client } = service();
  const r = await reviewer(browser, ["payments"], "pace");
  const created = await ask(client, { tool, effects: "write" });

  await r.page.goto(`/approvals/${created.approval_id}`);
  await expect(r.page.getByRole("heading", { level: 1, name: tool })).toBeVisible();
  await expect(r.page.getByTestId("review-pace")).toContainText("at least 10 min on this page before a vote");
  await r.page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(r.page.getByTestId("decision-line")).toContainText(/Take a closer look: you can vote in (59\d|600) s/);
  expect(reviewsOf(created.approval_id)).toEqual([]);

  // Ten minutes on: the first view is moved back, the same click now counts.
  expect(backdateView(created.approval_id, r.user.email, 600)).toBe(1);
  await r.page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(r.page.getByTestId("decision-result")).toContainText("Approved by you");
  expect(reviewsOf(created.approval_id)).toEqual([{ reviewerEmail: r.user.email, decision: "approve" }]);
  await r.context.close();
});

test("require_full_view: a truncated request refuses the vote until Raw JSON was opened, then accepts it", async ({ browser }) => {
  test.setTimeout(120_000);
  const t = tag();
  const tool = `e2e.fullview.${t}`;
  adminCli([
    "policy",
    "set",
    "--anyway",
    "--name",
    `e2e-fullview-${t}`,
    "--tool",
    tool,
    "--roles",
    "payments",
    "--quorum",
    "1",
    "--ttl",
    "3600",
    "--require-full-view",
    "true",
  ]);
  const { client } = service();
  const r = await reviewer(browser, ["payments"], "fullview");
  // 120 rows: the first render shows 50 of them.
  const created = await ask(client, {
    tool,
    effects: "write",
    arguments: { rows: Array.from({ length: 120 }, (_, i) => ({ row: i, note: `line ${i}` })) },
  });

  await r.page.goto(`/approvals/${created.approval_id}`);
  await expect(r.page.getByRole("heading", { level: 1, name: tool })).toBeVisible();
  await expect(r.page.getByTestId("review-pace")).toContainText("open Raw JSON");
  // The page's own rule first (issue 36): the arguments' first screen in view before Approve does anything.
  await r.page.getByRole("heading", { name: /^Arguments/ }).scrollIntoViewIfNeeded();
  await r.page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(r.page.getByTestId("decision-line")).toContainText("see all its arguments before voting: open Raw JSON");
  expect(reviewsOf(created.approval_id)).toEqual([]);

  await r.page.getByRole("button", { name: "Raw JSON" }).click();
  await expect(r.page.getByRole("button", { name: "Copy JSON" })).toBeVisible();
  await r.page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(r.page.getByTestId("decision-result")).toContainText("Approved by you");
  expect(reviewsOf(created.approval_id)).toEqual([{ reviewerEmail: r.user.email, decision: "approve" }]);

  // A request of the same policy whose page showed everything: no step needed.
  const small = await ask(client, { tool, effects: "write", arguments: { amount: 5 } });
  await r.page.goto(`/approvals/${small.approval_id}`);
  await expect(r.page.getByTestId("review-pace")).toHaveCount(0);
  await r.page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(r.page.getByTestId("decision-result")).toContainText("Approved by you");
  await r.context.close();
});
