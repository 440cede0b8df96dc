// Accessibility: an axe scan (WCAG 2 A and AA rules) of every page, in the
// light and the dark colour scheme, at desktop (1280 px) and phone (390 px)
// widths, finds nothing; and the helpers for keyboard and assistive-tech
// users: the skip link, the current page in the navigation, the "Status:"
// names of badges, times in the viewer's local time with UTC on hover, and
// the edges of buttons in forced-colours mode.
import { execFileSync } from "node:child_process";
import AxeBuilder from "@axe-core/playwright";
import { expect as baseExpect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { E2E } from "./config";
import { adminCli, createUser, e2eEnv, submitSignIn, tag, type TestUser } from "./helpers";
import { ask, openQueue, repoRoot, service } from "./review-helpers";

// Four axe scans of a page cost 10-60 s on an idle machine (axe's own work
// grows with the page's elements); the full run shares two cores with four
// Vitest lanes, where the users page once took over 240 s.
test.describe.configure({ timeout: 480_000 });

const WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];
const SCHEMES = ["light", "dark"] as const;
const WIDTHS = [1280, 390] as const;
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d/;
// Fifty-odd page loads and scans on a small shared machine: be patient.
const expect = baseExpect.configure({ timeout: 20_000 });

type Reviewer = { user: TestUser; context: BrowserContext; page: Page };

async function reviewer(browser: Browser, roles: string[], prefix: string): Promise<Reviewer> {
  const user = createUser({ roles, prefix });
  const context = await browser.newContext({ baseURL: E2E.appUrl });
  const page = await context.newPage();
  await submitSignIn(page, user);
  await expect(page).toHaveURL(/\/approvals$/);
  return { user, context, page };
}

/** Records a vote through the domain function (the page's own form is tested elsewhere). */
function vote(email: string, approvalId: string, decision: "approve" | "deny", reason?: string): void {
  const script = `
    const { createDb } = await import("./lib/db/client.ts");
    const { recordReview } = await import("./lib/reviews/record-review.ts");
    const db = createDb(process.env.DATABASE_URL);
    const user = await db.user.findUniqueOrThrow({ where: { email: process.env.EMAIL }, select: { id: true } });
    await recordReview(user.id, { approvalId: process.env.APPROVAL_ID, decision: process.env.DECISION, reason: process.env.REASON || undefined });
    await db.$disconnect();
    process.exit(0);`;
  execFileSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "--input-type=module", "--eval", script], {
    cwd: repoRoot,
    env: { ...e2eEnv(), EMAIL: email, APPROVAL_ID: approvalId, DECISION: decision, REASON: reason ?? "" },
    timeout: 60_000,
  });
}

/** Every scheme and width: load the page, wait until it is ready, scan it. Failures are collected, not thrown one by one. */
async function scanAll(page: Page, path: string, ready: (page: Page) => Promise<void>) {
  for (const colorScheme of SCHEMES) {
    for (const width of WIDTHS) {
      await page.emulateMedia({ colorScheme });
      await page.setViewportSize({ width, height: width > 500 ? 900 : 844 });
      await page.goto(path);
      await ready(page);
      const { violations } = await new AxeBuilder({ page }).withTags(WCAG).analyze();
      const found = violations.map(
        (v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => `${n.target.join(" ")} ${n.failureSummary ?? ""}`).join(" | ")}`,
      );
      expect.soft(found, `${path} · ${colorScheme} · ${width} px`).toEqual([]);
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 900 });
}

const heading = (name: string | RegExp) => async (page: Page) => {
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
};
// The local times are filled in once the page has hydrated.
const hydrated = (name: string | RegExp) => async (page: Page) => {
  await heading(name)(page);
  await expect(page.locator("time").first()).not.toHaveText(/UTC$/);
};

const data = {} as {
  admin: Reviewer;
  colleague: Reviewer;
  slug: string;
  policy: string;
  pending: string;
  waiting: string;
  decided: string;
  flagged: string;
  large: string;
};

test.beforeAll(async ({ browser }) => {
  test.setTimeout(240_000);
  const t = tag();
  adminCli([
    "policy",
    "set",
    "--anyway",
    "--name",
    `e2e-a11y-${t}`,
    "--tool",
    `a11y${t}.*`,
    "--roles",
    "reviewer",
    "--quorum",
    "2",
    "--ttl",
    "86400",
  ]);
  data.admin = await reviewer(browser, ["admin", "reviewer"], "a11y-admin");
  data.colleague = await reviewer(browser, ["reviewer"], "a11y-colleague");
  const { slug, client } = service();
  data.slug = slug;
  data.policy = `e2e-a11y-${t}`;

  const pending = await ask(client, { tool: "payments.refund", summary: "Refund order 1182 in full", arguments: { order: "1182", amount: 25 } });
  const waiting = await ask(client, { tool: `a11y${t}.pay`, summary: "Pay supplier invoice 7781" });
  const decided = await ask(client, { tool: "crm.update_contact", effects: "write", summary: "Fix a typo in a contact's name" });
  const flagged = await ask(client, {
    tool: "files.delete",
    effects: "destructive",
    summary: "Delete the old exports\u200b",
    arguments: { path: "/srv/exports/report\u202Efdp.exe", recursive: true },
  });
  const large = await ask(client, {
    tool: "warehouse.bulk_update",
    effects: "write",
    arguments: {
      items: Array.from({ length: 400 }, (_, i) => ({ sku: `SKU-${i}`, name: `Item number ${i}`, note: "n".repeat(100), tags: ["a", "b"] })),
    },
  });
  await ask(client, { tool: "mail.send", requested_by: data.admin.user.email, summary: "Send the weekly report" });
  vote(data.admin.user.email, waiting.approval_id, "approve");
  vote(data.colleague.user.email, decided.approval_id, "deny", "Not during the freeze");
  Object.assign(data, {
    pending: pending.approval_id,
    waiting: waiting.approval_id,
    decided: decided.approval_id,
    flagged: flagged.approval_id,
    large: large.approval_id,
  });
});

test.afterAll(async () => {
  await data.admin?.context.close();
  await data.colleague?.context.close();
});

test("the sign-in page", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: E2E.appUrl });
  await scanAll(await context.newPage(), "/signin", heading("Sign in to Countersign"));
  await context.close();
});

test("the queue, with requests in every section", async () => {
  const page = data.admin.page;
  await scanAll(page, `/approvals?service=${data.slug}`, async (p) => {
    await heading("Approvals")(p);
    await expect(p.getByTestId("live-status")).toHaveAttribute("data-state", "live", { timeout: 10_000 });
    await expect(p.locator(`article[data-approval-id="${data.decided}"]`)).toBeVisible();
  });
});

// One test per page, so that each page's four scans have the whole time limit
// (the admin pages grow with every other file's users and events).
const DECISION_PAGES: Array<[string, (d: typeof data) => string, (page: Page) => Promise<void>]> = [
  ["pending", (d) => d.pending, heading("payments.refund")],
  ["waiting", (d) => d.waiting, heading(/\.pay$/)],
  ["decided", (d) => d.decided, heading("crm.update_contact")],
  [
    "destructive with a warning",
    (d) => d.flagged,
    async (p) => {
      await heading(/^files\.delete/)(p);
      await expect(p.getByTestId("display-warning")).toBeVisible();
    },
  ],
  ["a large argument tree", (d) => d.large, heading("warehouse.bulk_update")],
];
for (const [name, id, ready] of DECISION_PAGES) {
  test(`the decision page: ${name}`, async () => {
    await scanAll(data.admin.page, `/approvals/${id(data)}`, ready);
  });
}

const ADMIN_PAGES: Array<[string, (page: Page) => Promise<void>]> = [
  ["/admin/users", hydrated("Users")],
  ["/admin/groups", heading("Groups")],
  ["/admin/policies", hydrated("Policies")],
  ["/admin/services", hydrated("Services")],
  ["/admin/audit", hydrated("Audit trail")],
  ["/admin/outbox", heading("Outbox")],
  ["/admin/insights", heading("Insights")],
];
for (const [path, ready] of ADMIN_PAGES) {
  test(`the admin page ${path}`, async () => {
    await scanAll(data.admin.page, path, ready);
  });
}

test("the not-allowed (403) and not-found (404) pages", async () => {
  await scanAll(data.colleague.page, "/admin/users", heading("Not allowed"));
  await scanAll(data.admin.page, "/no-such-page", heading("Page not found"));
  await scanAll(data.admin.page, "/approvals/apr_nosuchrequest", heading("Page not found"));
});

test("a skip link is the first stop on every page and leads to the main content", async ({ browser }) => {
  const anonymous = await (await browser.newContext({ baseURL: E2E.appUrl })).newPage();
  const visits: Array<[Page, string]> = [
    [anonymous, "/signin"],
    [data.admin.page, "/approvals"],
    [data.admin.page, `/approvals/${data.pending}`],
    [data.admin.page, "/admin/users"],
    [data.admin.page, "/admin/audit"],
    [data.colleague.page, "/admin/policies"],
    [data.admin.page, "/no-such-page"],
  ];
  for (const [page, path] of visits) {
    await page.goto(path);
    await expect(page.locator("main#main"), path).toHaveCount(1);
    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to main content" });
    await expect(skip, path).toBeFocused();
    await expect(skip).toBeInViewport();
    await page.keyboard.press("Enter");
    // What the link is for: the next Tab lands in the main content, past the
    // header. (Not the URL's "#main": the queue's live refresh rewrites the URL
    // from the router's state, which a plain fragment link does not update.)
    await page.keyboard.press("Tab");
    await expect(page.locator("main#main :focus"), path).toHaveCount(1);
  }
  await anonymous.context().close();
});

test("the navigation marks the current page; badges, times and forced colours speak plainly", async () => {
  const page = data.admin.page;
  const nav = page.getByRole("navigation", { name: "Main" });
  await page.goto("/admin/policies");
  await expect(nav.getByRole("link", { name: "Policies" })).toHaveAttribute("aria-current", "page");
  await expect(nav.locator("[aria-current]")).toHaveCount(1);
  await openQueue(page);
  await expect(nav.getByRole("link", { name: "Queue" })).toHaveAttribute("aria-current", "page");
  await expect(nav.getByRole("link", { name: "Policies" })).not.toHaveAttribute("aria-current");

  // The badge is heard as "Status: denied"; its visible word stays short.
  await page.goto(`/approvals/${data.decided}`);
  await expect(page.getByTestId("status")).toHaveText("denied");
  await expect(page.getByText("Status: denied", { exact: true })).toBeAttached();
  await page.goto(`/admin/users?q=${encodeURIComponent(data.admin.user.email)}`);
  await expect(page.getByRole("listitem", { name: data.admin.user.email, exact: true }).getByText("Status: active", { exact: true })).toBeAttached();

  // Local times with the UTC time on hover; no raw ISO time on the pages.
  for (const path of ["/admin/users", "/admin/services", "/admin/policies", `/approvals/${data.decided}`, `/approvals?service=${data.slug}`]) {
    await page.goto(path);
    const time = page.locator("time").first();
    await expect(time).toHaveAttribute("title", /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    await expect(time).not.toHaveText(/UTC$/);
    expect(await page.locator("main").innerText(), path).not.toMatch(ISO);
  }
  // Readable durations: a day is "24 h", not "86400 s".
  await page.goto("/admin/policies");
  await expect(page.getByRole("listitem", { name: `Policy ${data.policy}` }).getByTestId("policy-rule")).toContainText("TTL 24 h");

  // Forced colours drop backgrounds: a filled button keeps a visible edge.
  await page.emulateMedia({ forcedColors: "active" });
  await page.goto("/admin/users");
  const edge = await page.getByRole("button", { name: "Create user" }).evaluate((b) => getComputedStyle(b).borderTopWidth);
  expect(edge).toBe("1px");
  await page.emulateMedia({ forcedColors: "none" });
});
