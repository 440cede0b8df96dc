// Shared steps of the admin console's browser tests (e2e/admin-*.spec.ts):
// signed-in sessions, services made through the admin CLI, the pages'
// locators, and capturing an admin server action to replay it with another
// session's cookies.
import { randomUUID } from "node:crypto";
import { expect, test, type APIRequestContext, type Browser, type BrowserContext, type Locator, type Page, type Route } from "@playwright/test";
import type { CountersignClient } from "@countersign/client";
import { E2E } from "./config";
import { adminCli, createUser, signIn, tag, type TestUser } from "./helpers";

export type Session = { user: TestUser; context: BrowserContext; page: Page; request: APIRequestContext };

/** A new user with `roles`, signed in (once the page is hydrated) in a browser context of their own. */
export async function session(browser: Browser, roles: string[], prefix = "user"): Promise<Session> {
  const user = createUser({ roles, prefix });
  const context = await browser.newContext({ baseURL: E2E.appUrl });
  const page = await context.newPage();
  await signIn(page, user, { hydrated: true });
  return { user, context, page, request: context.request };
}

type Service = { slug: string; webhook_secret: string; api_token: string; callback_secret: string };

export function cliService(callbackUrl?: string): Service {
  const args = ["service", "add", "--slug", `e2e-adm-${tag()}`];
  if (callbackUrl) args.push("--callback-url", callbackUrl);
  return adminCli(args) as Service;
}

export { clientFor } from "./helpers";

export function requestFor(client: CountersignClient, tool: string) {
  return client.requestApproval({ run_id: `run_${randomUUID()}`, call_id: "c1", tool, arguments: { amount: 5 } });
}

// ------------------------------------------------------------ page locators

export const userItem = (page: Page, email: string) => page.getByRole("listitem", { name: email, exact: true });
export const policyItem = (page: Page, name: string) => page.getByRole("listitem", { name: `Policy ${name}`, exact: true });
/** The users page found by one email: the page lists 50 at a time, and a test's user may be past the first 50. */
export const usersPage = (email: string) => `/admin/users?q=${encodeURIComponent(email)}`;
export const serviceItem = (page: Page, slug: string) => page.getByRole("listitem", { name: `Service ${slug}`, exact: true });
export const rolesOf = (item: Locator) => item.getByTestId("role").locator("span.font-mono");
export const statusIn = (scope: Locator | Page) => scope.getByRole("status");

// ------------------------------------------------- server action capture

export type CapturedAction = { url: string; headers: Record<string, string>; body: Buffer };

/**
 * Runs `trigger` on an admin page and captures the server action request it
 * makes, without letting it reach the server (the route is aborted).
 */
export async function captureAction(page: Page, trigger: () => Promise<void>): Promise<CapturedAction> {
  let captured: CapturedAction | undefined;
  const handler = async (route: Route) => {
    const req = route.request();
    const headers = await req.allHeaders();
    if (req.method() === "POST" && headers["next-action"] && !captured) {
      const keep = Object.fromEntries(
        Object.entries(headers).filter(([k]) => !["cookie", "host", "content-length", "connection"].includes(k) && !k.startsWith(":")),
      );
      captured = { url: req.url(), headers: keep, body: req.postDataBuffer() ?? Buffer.alloc(0) };
      await route.abort();
      return;
    }
    await route.continue();
  };
  await page.route("**/admin/**", handler);
  try {
    await trigger();
    await expect.poll(() => captured !== undefined, { message: "no server action request was made" }).toBe(true);
  } finally {
    // Waits for handlers still running: removed under one, its answer would
    // meet a request already let through ("Route is already handled").
    await page.unrouteAll({ behavior: "wait" });
  }
  return captured!;
}

/** Sends a captured action with another session's cookies (an APIRequestContext of that browser context). */
export async function replay(request: APIRequestContext, action: CapturedAction): Promise<{ status: number; body: string }> {
  const r = await request.post(action.url, { headers: action.headers, data: action.body, maxRedirects: 0 });
  return { status: r.status(), body: await r.text() };
}

export const REFUSED = "Not allowed: this needs the admin role.";

/**
 * An admin and a reviewer, signed in once for the tests of the enclosing
 * serial describe, and `check`: the reviewer's replay of an admin's captured
 * action is refused and changes nothing; the admin's replay of the same bytes works.
 */
export function useAdminAndReviewer() {
  const sessions = {} as { admin: Session; reviewer: Session };

  test.beforeAll(async ({ browser }) => {
    sessions.admin = await session(browser, ["admin"], "admin");
    sessions.reviewer = await session(browser, ["reviewer"], "reviewer");
  });
  test.afterAll(async () => {
    await sessions.admin?.context.close();
    await sessions.reviewer?.context.close();
  });

  /** Reviewer replay: refused and nothing changes; admin replay of the same bytes: it works. */
  async function check(action: CapturedAction, unchanged: () => Promise<void>, changed: () => Promise<void>) {
    const refused = await replay(sessions.reviewer.request, action);
    expect(refused.status).toBeLessThan(500);
    expect(refused.body).toContain(REFUSED);
    await unchanged();
    const accepted = await replay(sessions.admin.request, action);
    expect(accepted.body).not.toContain(REFUSED);
    await changed();
  }

  return { sessions, check };
}
