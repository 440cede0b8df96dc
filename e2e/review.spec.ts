// Reviewing requests in the browser (CONTRACT §6, §9): four-eyes with two
// reviewers, the deny reason, the requester who may not review (in the page
// and against a replayed server action), the live queue, and 390 px
// screenshots for the README. Every test makes its own users and service and
// sends requests over real HTTP with the executor client (lib/client).
import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, test, type Browser, type BrowserContext, type Locator, type Page, type TestInfo } from "@playwright/test";
import { CountersignClient } from "../lib/client";
import { E2E } from "./config";
import { adminCli, createUser, e2eEnv, signIn, type TestUser } from "./helpers";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));
// Each test makes users and a service through the admin CLI (seconds each on a small machine).
test.describe.configure({ timeout: 180_000 });
const tag = () => randomBytes(4).toString("hex");

// ------------------------------------------------------------ set-up helpers

type Reviewer = { user: TestUser; context: BrowserContext; page: Page };

/** A user with `roles`, signed in in a browser context of their own. */
async function reviewer(browser: Browser, roles: string[], prefix: string, viewport?: { width: number; height: number }): Promise<Reviewer> {
  const user = createUser({ roles, prefix });
  const context = await browser.newContext({ baseURL: E2E.appUrl, ...(viewport ? { viewport } : {}) });
  const page = await context.newPage();
  await signIn(page, user);
  return { user, context, page };
}

type Service = { slug: string; webhook_secret: string; api_token: string };

/** A new service (admin CLI) and an executor client for it. */
function service(): { slug: string; client: CountersignClient } {
  const s = adminCli(["service", "add", "--slug", `e2e-rev-${tag()}`]) as Service;
  return {
    slug: s.slug,
    client: new CountersignClient({ baseUrl: E2E.appUrl, serviceSlug: s.slug, webhookSecret: s.webhook_secret, apiToken: s.api_token }),
  };
}

type Ask = { tool: string; requested_by?: string; summary?: string; effects?: "read" | "write" | "destructive"; arguments?: Record<string, unknown> };

async function ask(client: CountersignClient, input: Ask) {
  const { arguments: args = { amount: 25, currency: "EUR" }, ...rest } = input;
  return client.requestApproval({ run_id: `run_${randomUUID()}`, call_id: "c1", arguments: args, environment: "production", ...rest });
}

/** Reads the e2e database in a child process (lib/db is server-only code). */
function reviewsOf(approvalId: string): Array<{ reviewerEmail: string; decision: string }> {
  const script = `
    const { createDb } = await import("./lib/db/client.ts");
    const db = createDb(process.env.DATABASE_URL);
    const rows = await db.review.findMany({ where: { approvalId: process.env.APPROVAL_ID }, orderBy: { createdAt: "asc" }, select: { reviewerEmail: true, decision: true } });
    await db.$disconnect();
    process.stdout.write(JSON.stringify(rows));`;
  const out = execFileSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "--input-type=module", "--eval", script], {
    cwd: repoRoot,
    env: { ...e2eEnv(), APPROVAL_ID: approvalId },
    encoding: "utf8",
    timeout: 60_000,
  });
  return JSON.parse(out) as Array<{ reviewerEmail: string; decision: string }>;
}

// ------------------------------------------------------------ page helpers

const section = (page: Page, name: RegExp) => page.getByRole("region", { name });
const canActSection = (page: Page) => section(page, /^Needs your review/);
const waitingSection = (page: Page) => section(page, /^Waiting on others/);
const decidedSection = (page: Page) => section(page, /^Recent decisions/);
const rowOf = (scope: Locator, approvalId: string) => scope.locator(`article[data-approval-id="${approvalId}"]`);

async function openQueue(page: Page, query = ""): Promise<void> {
  await page.goto(`/approvals${query}`);
  await expect(page.getByRole("heading", { level: 1, name: "Approvals" })).toBeVisible();
  // The live stream is connected: from here on a change shows without reload.
  await expect(page.getByTestId("live-status")).toHaveAttribute("data-state", "live", { timeout: 10_000 });
}

async function attachScreenshot(page: Page, testInfo: TestInfo, name: string, file: string): Promise<void> {
  const png = await page.screenshot({ fullPage: true });
  await testInfo.attach(name, { body: png, contentType: "image/png" });
  mkdirSync(`${repoRoot}/docs/screenshots`, { recursive: true });
  writeFileSync(`${repoRoot}/docs/screenshots/${file}`, png);
}

async function noHorizontalScroll(page: Page): Promise<void> {
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(scroll, "page is wider than the viewport").toBeLessThanOrEqual(client);
}

// --------------------------------------------------- server action capture

type CapturedAction = { url: string; headers: Record<string, string>; body: Buffer };

/**
 * Clicks `button` and captures the server action POST it makes, which is
 * aborted: the capture is made but nothing reaches the server.
 */
async function captureAction(page: Page, button: Locator): Promise<CapturedAction> {
  let resolve!: (c: CapturedAction) => void;
  const captured = new Promise<CapturedAction>((r) => (resolve = r));
  await page.route(
    (url) => url.pathname.startsWith("/approvals/"),
    async (route) => {
      const req = route.request();
      const headers = await req.allHeaders();
      if (req.method() !== "POST" || !headers["next-action"]) return route.continue();
      const keep = ["next-action", "next-router-state-tree", "content-type", "accept", "origin"];
      resolve({
        url: req.url(),
        headers: Object.fromEntries(keep.filter((h) => headers[h] !== undefined).map((h) => [h, headers[h]!])),
        body: req.postDataBuffer() ?? Buffer.alloc(0),
      });
      await route.abort();
    },
  );
  await button.click();
  const action = await captured;
  await page.unrouteAll({ behavior: "ignoreErrors" });
  return action;
}

/** Sends a captured server action again, with the cookies of `context` (another user's session). */
async function replay(context: BrowserContext, action: CapturedAction, body: Buffer = action.body) {
  const res = await context.request.post(action.url, { headers: action.headers, data: body, maxRedirects: 0 });
  return { status: res.status(), text: await res.text() };
}

// ------------------------------------------------------------------ tests

test("four-eyes: the first approval leaves it pending, the second decides it, both listed in order", async ({ browser }) => {
  const t = tag();
  const tool = `e2e.four-eyes.${t}`;
  adminCli(["policy", "set", "--name", `e2e-four-eyes-${t}`, "--tool", tool, "--roles", "payments", "--quorum", "2", "--ttl", "3600"]);
  const { slug, client } = service();
  const first = await reviewer(browser, ["payments"], "first");
  const second = await reviewer(browser, ["payments"], "second");
  const created = await ask(client, { tool, summary: "Pay supplier invoice 7781" });

  // Reviewer 1: in their queue, then approves on the decision page.
  await openQueue(first.page, `?service=${slug}`);
  await rowOf(canActSection(first.page), created.approval_id).getByRole("link", { name: tool }).click();
  await expect(first.page.getByRole("heading", { level: 1, name: tool })).toBeVisible();
  await expect(first.page.getByText(created.args_digest, { exact: true })).toBeVisible();
  await first.page.getByRole("button", { name: "Approve" }).click();
  // The page re-renders from the server: one of two approvals, still pending, no second vote.
  await expect(first.page.getByTestId("why-not")).toHaveText("you have already reviewed this request");
  await expect(first.page.getByText(/1 of 2 so far/)).toBeVisible();
  await expect(first.page.getByTestId("status")).toHaveText("pending");
  await expect(first.page.getByRole("button", { name: "Approve" })).toHaveCount(0);
  await first.page.reload();
  await expect(first.page.getByText(/1 of 2 so far/)).toBeVisible();
  await expect(first.page.getByTestId("decided-by")).toHaveCount(0);
  expect((await client.getApproval(created.approval_id)).status).toBe("pending");

  // In reviewer 1's queue it now waits on others; reviewer 2 still has it to act on.
  await openQueue(first.page, `?service=${slug}`);
  await expect(rowOf(waitingSection(first.page), created.approval_id)).toContainText("You approved; waiting for 1 more approval.");
  await openQueue(second.page, `?service=${slug}`);
  await expect(rowOf(canActSection(second.page), created.approval_id)).toContainText("1 of 2 approvals");

  // Reviewer 2 approves: decided, by both, in order.
  await second.page.goto(`/approvals/${created.approval_id}`);
  await second.page.getByLabel("Reason").fill("Matches the invoice");
  await second.page.getByRole("button", { name: "Approve" }).click();
  await expect(second.page.getByTestId("status")).toHaveText("approved");
  await second.page.reload();
  await expect(second.page.getByTestId("status")).toHaveText("approved");
  await expect(second.page.getByText(/2 of 2 so far/)).toBeVisible();
  await expect(second.page.getByTestId("decided-by")).toHaveText(`Decided by: ${first.user.email}, ${second.user.email}`);

  const state = await client.getApproval(created.approval_id);
  expect(state).toMatchObject({ status: "approved", decided_by: [first.user.email, second.user.email] });
  expect(reviewsOf(created.approval_id)).toEqual([
    { reviewerEmail: first.user.email, decision: "approve" },
    { reviewerEmail: second.user.email, decision: "approve" },
  ]);
  await Promise.all([first.context.close(), second.context.close()]);
});

test("a denial without a reason is refused, in the page and by the server", async ({ browser }) => {
  const { client } = service();
  const r = await reviewer(browser, ["reviewer"], "denier");
  const created = await ask(client, { tool: `e2e.deny.${tag()}` });

  await r.page.goto(`/approvals/${created.approval_id}`);
  await r.page.getByRole("button", { name: "Deny" }).click();
  await expect(r.page.getByRole("main").getByRole("alert")).toHaveText("A denial needs a reason.");
  await r.page.getByLabel("Reason").fill("   ");
  await r.page.getByRole("button", { name: "Deny" }).click();
  await expect(r.page.getByRole("main").getByRole("alert")).toHaveText("A denial needs a reason.");
  await expect(r.page.getByTestId("status")).toHaveText("pending");

  // Past the page's check: the same action with the reason emptied is refused by the server.
  const marker = `reason-${tag()}`;
  await r.page.getByLabel("Reason").fill(marker);
  const action = await captureAction(r.page, r.page.getByRole("button", { name: "Deny" }));
  expect(action.body.includes(marker)).toBe(true);
  const emptied = Buffer.from(action.body.toString("latin1").replace(marker, ""), "latin1");
  const answer = await replay(r.context, action, emptied);
  expect(answer.status).toBe(200);
  expect(answer.text).toContain("a denial needs a reason");
  expect((await client.getApproval(created.approval_id)).status).toBe("pending");
  expect(reviewsOf(created.approval_id)).toEqual([]);

  // With a reason it goes through.
  await r.page.goto(`/approvals/${created.approval_id}`);
  await r.page.getByLabel("Reason").fill("Wrong account");
  await r.page.getByRole("button", { name: "Deny" }).click();
  await expect(r.page.getByTestId("status")).toHaveText("denied");
  await expect(r.page.getByText("“Wrong account”")).toBeVisible();
  expect(await client.getApproval(created.approval_id)).toMatchObject({ status: "denied", decided_by: [r.user.email] });
  await r.context.close();
});

test("the requester cannot review their own request: no buttons, and a replayed action is refused", async ({ browser }) => {
  const { slug, client } = service();
  const requester = await reviewer(browser, ["reviewer"], "requester");
  const eligible = await reviewer(browser, ["reviewer"], "eligible");
  // requested_by as the agent sent it: other case, so the match must be case-insensitive.
  const created = await ask(client, { tool: `e2e.self.${tag()}`, requested_by: requester.user.email.toUpperCase() });

  // The page: no Approve/Deny, and why.
  await requester.page.goto(`/approvals/${created.approval_id}`);
  await expect(requester.page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(requester.page.getByRole("button", { name: "Approve" })).toHaveCount(0);
  await expect(requester.page.getByRole("button", { name: "Deny" })).toHaveCount(0);
  await expect(requester.page.getByLabel("Reason")).toHaveCount(0);
  await expect(requester.page.getByTestId("why-not")).toHaveText("you requested this call, so you cannot review it");
  // The queue: waiting on others, with the same reason.
  await openQueue(requester.page, `?service=${slug}`);
  await expect(rowOf(canActSection(requester.page), created.approval_id)).toHaveCount(0);
  await expect(rowOf(waitingSection(requester.page), created.approval_id)).toContainText("You requested this call, so you cannot review it.");

  // The real server action, as an eligible reviewer's click sends it (captured, not delivered)…
  await eligible.page.goto(`/approvals/${created.approval_id}`);
  const action = await captureAction(eligible.page, eligible.page.getByRole("button", { name: "Approve" }));
  expect(action.headers["next-action"]).toMatch(/^[0-9a-f]{16,}$/i);
  expect(reviewsOf(created.approval_id)).toEqual([]);

  // …replayed with the requester's session: refused by the server.
  const refused = await replay(requester.context, action);
  expect(refused.status).toBe(200);
  expect(refused.text).toContain("you requested this call, so you cannot review it");
  expect(await client.getApproval(created.approval_id)).toMatchObject({ status: "pending", decided_by: [] });
  expect(reviewsOf(created.approval_id)).toEqual([]);
  await requester.page.goto(`/approvals/${created.approval_id}`);
  await expect(requester.page.getByText("No reviews yet.")).toBeVisible();

  // Control: the very same replay with the eligible reviewer's session is accepted,
  // so the refusal above was the server's rule, not a broken replay.
  const accepted = await replay(eligible.context, action);
  expect(accepted.status).toBe(200);
  expect(accepted.text).toContain("Request approved.");
  expect(await client.getApproval(created.approval_id)).toMatchObject({ status: "approved", decided_by: [eligible.user.email] });
  expect(reviewsOf(created.approval_id)).toEqual([{ reviewerEmail: eligible.user.email, decision: "approve" }]);
  await Promise.all([requester.context.close(), eligible.context.close()]);
});

test("a reviewer's real action replayed cross-site (foreign or missing Origin) changes nothing; same-site it works", async ({ browser }) => {
  const { client } = service();
  const eligible = await reviewer(browser, ["reviewer"], "csrf");
  const created = await ask(client, { tool: `e2e.csrf.${tag()}` });
  await eligible.page.goto(`/approvals/${created.approval_id}`);
  const action = await captureAction(eligible.page, eligible.page.getByRole("button", { name: "Approve" }));
  expect(action.headers.origin).toBe(new URL(E2E.appUrl).origin);

  // The victim's own session cookie rides along, as it would from a hostile page.
  const { origin: _sameSite, ...withoutOrigin } = action.headers;
  for (const headers of [{ ...withoutOrigin, origin: "https://evil.example" }, withoutOrigin]) {
    const res = await eligible.context.request.post(action.url, { headers, data: action.body, maxRedirects: 0 });
    expect(await res.text()).not.toContain("Request approved.");
    expect(reviewsOf(created.approval_id)).toEqual([]);
  }
  expect(await client.getApproval(created.approval_id)).toMatchObject({ status: "pending", decided_by: [] });

  // Control: the unchanged replay is accepted, so the refusals were the Origin rule.
  const accepted = await replay(eligible.context, action);
  expect(accepted.text).toContain("Request approved.");
  expect(reviewsOf(created.approval_id)).toEqual([{ reviewerEmail: eligible.user.email, decision: "approve" }]);
  await eligible.context.close();
});

test("an open queue shows a new request, and a decision made elsewhere, within 2 s without reload", async ({ browser }, testInfo) => {
  const { slug, client } = service();
  const watcher = await reviewer(browser, ["reviewer"], "watcher");
  const decider = await reviewer(browser, ["reviewer"], "decider");
  await openQueue(watcher.page, `?service=${slug}`);
  await watcher.page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

  const tool = `e2e.live.${tag()}`;
  const created = await ask(client, { tool, summary: "Arrives while the page is open" });
  const arrivedAt = Date.now();
  await expect(rowOf(canActSection(watcher.page), created.approval_id).getByRole("link", { name: tool })).toBeVisible({ timeout: 2000 });
  const arrivalMs = Date.now() - arrivedAt;
  await expect(canActSection(watcher.page).getByRole("heading", { level: 2 })).toHaveText("Needs your review (1)");

  // Decided in another browser: the row moves to recent decisions.
  await decider.page.goto(`/approvals/${created.approval_id}`);
  await decider.page.getByRole("button", { name: "Approve" }).click();
  await expect(decider.page.getByTestId("status")).toHaveText("approved");
  const decidedAt = Date.now();
  await expect(rowOf(decidedSection(watcher.page), created.approval_id)).toContainText(`Decided by ${decider.user.email}`, { timeout: 2000 });
  const decisionMs = Date.now() - decidedAt;
  await expect(rowOf(canActSection(watcher.page), created.approval_id)).toHaveCount(0);

  expect(await watcher.page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  const timing = `arrival ${arrivalMs} ms, decision ${decisionMs} ms`;
  testInfo.annotations.push({ type: "live-update", description: timing });
  console.log(`live queue update: ${timing}`);
  await Promise.all([watcher.context.close(), decider.context.close()]);
});

test("the queue's sections, filters and paging; screenshots at 390 px for the README", async ({ browser }, testInfo) => {
  const { slug, client } = service();
  const mobile = { width: 390, height: 844 };
  const me = await reviewer(browser, ["reviewer"], "ana", mobile);
  const colleague = await reviewer(browser, ["reviewer"], "ben");

  // A small, realistic queue for this service.
  const refund = await ask(client, {
    tool: "payments.refund",
    effects: "destructive",
    requested_by: "carol@example.com",
    summary: "Refund order 1234 to the customer's card (duplicate charge)",
    arguments: { order_id: "1234", amount: 49.9, currency: "EUR", customer_email: "dana@example.com", card: "4111 1111 1111 1111" },
  });
  await ask(client, { tool: "crm.update_contact", effects: "write", requested_by: "carol@example.com", summary: "Update the phone number of a contact" });
  const mine = await ask(client, { tool: "mail.send", effects: "write", requested_by: me.user.email, summary: "Send the weekly report to the team" });
  const done = await ask(client, { tool: "files.delete", effects: "destructive", requested_by: "carol@example.com", summary: "Delete last year's temp exports" });
  await colleague.page.goto(`/approvals/${done.approval_id}`);
  await colleague.page.getByLabel("Reason").fill("Retention period is over");
  await colleague.page.getByRole("button", { name: "Approve" }).click();
  // Destructive: the page asks for a second click.
  await expect(colleague.page.getByRole("main").getByRole("alert")).toContainText("Press Approve again to confirm");
  await colleague.page.getByRole("button", { name: "Approve" }).click();
  await expect(colleague.page.getByTestId("status")).toHaveText("approved");

  await openQueue(me.page, `?service=${slug}`);
  await expect(canActSection(me.page).getByRole("heading", { level: 2 })).toHaveText("Needs your review (2)");
  await expect(waitingSection(me.page).getByRole("heading", { level: 2 })).toHaveText("Waiting on others (1)");
  await expect(decidedSection(me.page).getByRole("heading", { level: 2 })).toHaveText("Recent decisions (1)");
  // Oldest first, with the time left.
  await expect(canActSection(me.page).getByRole("link")).toHaveText(["payments.refund", "crm.update_contact"]);
  await expect(rowOf(canActSection(me.page), refund.approval_id).getByTestId("countdown")).toHaveText(/left$/);
  await expect(rowOf(waitingSection(me.page), mine.approval_id)).toContainText("You requested this call");
  await noHorizontalScroll(me.page);
  await attachScreenshot(me.page, testInfo, "queue-390", "queue.png");

  // Filters are a GET form with labelled fields.
  await me.page.getByLabel("Effects").selectOption("destructive");
  await me.page.getByLabel("Pending order").selectOption("newest");
  await me.page.getByRole("button", { name: "Apply" }).click();
  await expect(me.page).toHaveURL(/effects=destructive/);
  await expect(canActSection(me.page).getByRole("link")).toHaveText(["payments.refund"]);
  await expect(waitingSection(me.page).getByRole("heading", { level: 2 })).toHaveText("Waiting on others (0)");
  await expect(decidedSection(me.page).getByRole("link")).toHaveText(["files.delete"]);
  await me.page.getByLabel("Status").selectOption("approved");
  await me.page.getByRole("button", { name: "Apply" }).click();
  await expect(canActSection(me.page)).toHaveCount(0);
  await expect(decidedSection(me.page).getByRole("link")).toHaveText(["files.delete"]);
  // A bad value is ignored and said so, the others still apply.
  await me.page.goto(`/approvals?service=${slug}&tool=${encodeURIComponent("not a tool!")}&order=newest`);
  await expect(me.page.getByTestId("invalid-filters")).toHaveText("Ignored invalid value for: tool.");
  await expect(canActSection(me.page).getByRole("link")).toHaveText(["crm.update_contact", "payments.refund"]);

  // Paging: a page of one, then the next by its cursor.
  for (let i = 0; i < 21; i++) await ask(client, { tool: `bulk.item-${String(i).padStart(2, "0")}` });
  await me.page.goto(`/approvals?service=${slug}`);
  await expect(canActSection(me.page).getByRole("heading", { level: 2 })).toHaveText("Needs your review (23)");
  await expect(canActSection(me.page).locator("article")).toHaveCount(20);
  await canActSection(me.page).getByRole("link", { name: "Next page" }).click();
  await expect(me.page).toHaveURL(/act=\d+\.apr_/);
  await expect(canActSection(me.page).getByRole("link", { name: /^bulk\./ })).toHaveText(["bulk.item-18", "bulk.item-19", "bulk.item-20"]);
  await expect(canActSection(me.page).getByRole("link", { name: "Next page" })).toHaveCount(0);
  await canActSection(me.page).getByRole("link", { name: "First page" }).click();
  await expect(canActSection(me.page).getByRole("link").first()).toHaveText("payments.refund");

  // Keyboard: from the filters' last control, Tab reaches the first request, Enter opens it.
  await me.page.getByRole("link", { name: "Clear" }).focus();
  await me.page.keyboard.press("Tab");
  const firstRequest = canActSection(me.page).getByRole("link", { name: "payments.refund" });
  await expect(firstRequest).toBeFocused();
  await me.page.keyboard.press("Enter");
  await expect(me.page.getByRole("heading", { level: 1, name: "payments.refund" })).toBeVisible();

  // The decision page at 390 px: everything needed to decide, nothing cut off.
  await expect(me.page.getByTestId("args-digest")).toHaveText(refund.args_digest);
  await expect(me.page.getByText("[redacted:email]")).toBeVisible();
  await expect(me.page.getByLabel("Reason")).toBeVisible();
  await expect(me.page.getByRole("button", { name: "Approve" })).toBeVisible();
  await expect(me.page.getByRole("button", { name: "Deny" })).toBeVisible();
  await noHorizontalScroll(me.page);
  await attachScreenshot(me.page, testInfo, "decision-390", "decision-390.png");

  await Promise.all([me.context.close(), colleague.context.close()]);
});
