// Shared steps of the review browser tests (e2e/review-*.spec.ts): reviewers
// signed in in their own browser contexts, a service and requests sent over
// real HTTP with the executor client (@countersign/client), the reviews stored, and the
// queue page's sections.
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { expect, type Browser, type BrowserContext, type Locator, type Page } from "@playwright/test";
import type { CountersignClient } from "@countersign/client";
import { E2E } from "./config";
import { adminCli, createUser, newService, signIn, tag, type TestUser } from "./helpers";

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

/**
 * A policy of its own for one test: tools under a fresh prefix, decided by a
 * fresh role nobody holds yet (hence `--anyway`), `quorum` approvals, a day to live.
 */
export function reviewTeam(name: string, quorum: number): { role: string; tool: (suffix: string) => string } {
  const t = tag();
  const role = `${name}-${t}`;
  const prefix = `e2e.${name}${t}`;
  adminCli([
    "policy",
    "set",
    "--anyway",
    "--name",
    `e2e-${name}-${t}`,
    "--tool",
    `${prefix}.*`,
    "--roles",
    role,
    "--quorum",
    String(quorum),
    "--ttl",
    "86400",
  ]);
  return { role, tool: (suffix: string) => `${prefix}.${suffix}` };
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

/**
 * The votes on a request, in the order they were cast, read straight from the
 * e2e app's SQLite file (read-only, beside the running app: WAL allows it).
 * lib/db is server-only code, and a child process for each read cost seconds.
 */
export function reviewsOf(approvalId: string): Array<{ reviewerEmail: string; decision: string }> {
  const database = new Database(join(repoRoot, E2E.dataDir, "countersign.db"), { readonly: true, fileMustExist: true });
  try {
    return database
      .prepare("SELECT reviewer_email AS reviewerEmail, decision FROM reviews WHERE approval_id = ? ORDER BY created_at ASC, id ASC")
      .all(approvalId) as Array<{ reviewerEmail: string; decision: string }>;
  } finally {
    database.close();
  }
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

/**
 * The page as first seen (the window, not the full page) at 390 and 1440 px,
 * light and dark, written to docs/screenshots/<name>-<width>[-dark].png;
 * `ready` waits until the reloaded page shows what matters. The viewport and
 * colour scheme are put back afterwards.
 */
export async function saveScreens(page: Page, name: string, ready: (page: Page) => Promise<void>): Promise<void> {
  const before = page.viewportSize();
  mkdirSync(join(repoRoot, "docs/screenshots"), { recursive: true });
  for (const [width, height] of [
    [390, 844],
    [1440, 900],
  ] as const) {
    await page.setViewportSize({ width, height });
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      await page.reload();
      await ready(page);
      writeFileSync(join(repoRoot, `docs/screenshots/${name}-${width}${colorScheme === "dark" ? "-dark" : ""}.png`), await page.screenshot());
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  if (before) await page.setViewportSize(before);
}
