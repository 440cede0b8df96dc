// Shared steps of the review browser tests (e2e/review-*.spec.ts): reviewers
// signed in in their own browser contexts, a service and requests sent over
// real HTTP with the executor client (@countersign/client), the reviews stored, and the
// queue page's sections.
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { expect, type Browser, type BrowserContext, type Locator, type Page } from "@playwright/test";
import type { CountersignClient } from "@countersign/client";
import { E2E } from "./config";
import { createUser, e2eEnv, newService, signIn, type TestUser } from "./helpers";

export const repoRoot = fileURLToPath(new URL("..", import.meta.url));

// ------------------------------------------------------------ set-up helpers

export type Reviewer = { user: TestUser; context: BrowserContext; page: Page };

/** A user with `roles`, signed in in a browser context of their own. */
export async function reviewer(browser: Browser, roles: string[], prefix: string, viewport?: { width: number; height: number }): Promise<Reviewer> {
  const user = createUser({ roles, prefix });
  const context = await browser.newContext({ baseURL: E2E.appUrl, ...(viewport ? { viewport } : {}) });
  const page = await context.newPage();
  await signIn(page, user);
  return { user, context, page };
}

/** A new service (admin CLI) and an executor client for it. */
export function service(): { slug: string; client: CountersignClient } {
  return newService("e2e-rev");
}

type Ask = {
  tool: string;
  requested_by?: string;
  summary?: string;
  effects?: "read" | "write" | "destructive";
  arguments?: Record<string, unknown>;
  /** Seconds; shorter than the policy's lifetime only. */
  expires_in?: number;
};

export async function ask(client: CountersignClient, input: Ask) {
  const { arguments: args = { amount: 25, currency: "EUR" }, ...rest } = input;
  return client.requestApproval({ run_id: `run_${randomUUID()}`, call_id: "c1", arguments: args, environment: "production", ...rest });
}

/** Reads the e2e database in a child process (lib/db is server-only code). */
export function reviewsOf(approvalId: string): Array<{ reviewerEmail: string; decision: string }> {
  const script = `
    const { createDb } = await import("./lib/db/client.ts");
    const db = createDb(process.env.DATABASE_URL);
    const rows = await db.review.findMany({ where: { approvalId: process.env.APPROVAL_ID }, orderBy: { createdAt: "asc" }, select: { reviewerEmail: true, decision: true } });
    await db.$disconnect();
    process.stdout.write(JSON.stringify(rows));`;
  const out = execFileSync(
    process.execPath,
    ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "--input-type=module", "--eval", script],
    {
      cwd: repoRoot,
      env: { ...e2eEnv(), APPROVAL_ID: approvalId },
      encoding: "utf8",
      timeout: 60_000,
    },
  );
  return JSON.parse(out) as Array<{ reviewerEmail: string; decision: string }>;
}

// ------------------------------------------------------------ page helpers

export const section = (page: Page, name: RegExp) => page.getByRole("region", { name });
export const canActSection = (page: Page) => section(page, /^Needs your review/);
export const waitingSection = (page: Page) => section(page, /^Waiting on others/);
export const decidedSection = (page: Page) => section(page, /^Recent decisions/);
export const rowOf = (scope: Locator, approvalId: string) => scope.locator(`article[data-approval-id="${approvalId}"]`);

export async function openQueue(page: Page, query = ""): Promise<void> {
  await page.goto(`/approvals${query}`);
  await expect(page.getByRole("heading", { level: 1, name: "Approvals" })).toBeVisible();
  // The live stream is connected: from here on a change shows without reload.
  await expect(page.getByTestId("live-status")).toHaveAttribute("data-state", "live", { timeout: 10_000 });
}
