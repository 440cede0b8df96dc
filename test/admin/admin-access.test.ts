// Who may see each /admin page (docs/architecture.md), over real HTTP against
// the running app (SQLite; the rule reads only the session and the user's
// roles, nothing dialect-specific): anonymous → the sign-in page, a reviewer
// → 403 "Not allowed" and no admin links, an admin → the page (its title
// and heading); an admin
// disabled while signed in is anonymous on the very next request, and
// enabling them again does not revive that session. Moved from the browser
// tests: nothing here needs a browser (the header's links are clicked in
// e2e/header.spec.ts).
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import { signInWithPassword } from "../helpers/sign-in";

/** Each admin page: its document title and its heading. */
const ADMIN_PAGES = {
  "/admin/users": ["Users", "Users"],
  "/admin/groups": ["Groups", "Groups"],
  "/admin/policies": ["Policies", "Policies"],
  "/admin/services": ["Services", "Services"],
  "/admin/audit": ["Audit", "Audit trail"],
  "/admin/outbox": ["Outbox", "Outbox"],
  "/admin/executions": ["Executions", "Executions"],
  "/admin/insights": ["Insights", "Insights"],
} as const;
const titleOf = (path: keyof typeof ADMIN_PAGES) => `<title>${ADMIN_PAGES[path][0]} · Countersign</title>`;
const PATHS = Object.keys(ADMIN_PAGES) as Array<keyof typeof ADMIN_PAGES>;

/** The text of the page's one h1. */
const h1Of = (html: string) => {
  const all = [...html.matchAll(/<h1[^>]*>(.*?)<\/h1>/gs)].map((m) => m[1]!.replace(/<[^>]*>/g, "").trim());
  expect(all).toHaveLength(1);
  return all[0];
};

const app = appFor("sqlite");
describe.runIf(app)("admin pages: who may see them", () => {
  const base = app?.baseUrl ?? "";
  let users: typeof import("@/lib/users/add-user");
  let accounts: typeof import("@/lib/users/disable-user");

  beforeAll(async () => {
    users = await import("@/lib/users/add-user");
    accounts = await import("@/lib/users/disable-user");
  });

  const get = (path: string, cookie?: string) => fetch(`${base}${path}`, { redirect: "manual", headers: cookie ? { cookie } : {} });
  /** A new user with `roles`, signed in with a password: their session cookie. */
  async function signedIn(roles: string[], prefix: string) {
    const password = randomBytes(12).toString("base64url");
    const { email } = await users.addUser({ email: `${prefix}-${randomBytes(4).toString("hex")}@example.com`, password, roles }, "cli");
    return { email, cookie: await signInWithPassword(base, email, password) };
  }
  async function expectSignInPage(path: string, cookie?: string) {
    const r = await get(path, cookie);
    expect([r.status, new URL(r.headers.get("location") ?? "", base).pathname], path).toEqual([307, "/signin"]);
  }

  it("sends anonymous visitors to the sign-in page", async () => {
    for (const path of PATHS) await expectSignInPage(path);
  });

  it("answers a reviewer 403 “Not allowed” on every admin page, and shows them no admin links", async () => {
    const reviewer = await signedIn(["reviewer"], "aa-reviewer");
    for (const path of PATHS) {
      const r = await get(path, reviewer.cookie);
      expect(r.status, path).toBe(403);
      // Next renders its forbidden page from the payload in the browser (e2e
      // shows it once); here its title, and none of the admin page.
      const html = await r.text();
      expect(html, path).toContain("<title>Not allowed · Countersign</title>");
      expect(html, path).not.toContain(titleOf(path));
    }
    const queue = await get("/approvals", reviewer.cookie);
    expect(queue.status).toBe(200);
    const queueHtml = await queue.text();
    expect(h1Of(queueHtml)).toBe("Approvals");
    for (const path of PATHS) expect(queueHtml, path).not.toContain(`href="${path}"`);
  });

  it("shows an admin every admin page; disabled while signed in, the next request is anonymous, and enabling does not revive the session", async () => {
    // Another admin, so that this one is not the last (who cannot be disabled).
    await signedIn(["admin"], "aa-other-admin");
    const admin = await signedIn(["admin"], "aa-admin");
    for (const path of PATHS) {
      const r = await get(path, admin.cookie);
      expect(r.status, path).toBe(200);
      const html = await r.text();
      expect(html, path).toContain(titleOf(path));
      expect(h1Of(html), path).toBe(ADMIN_PAGES[path][1]);
    }
    expect(await (await get("/approvals", admin.cookie)).text()).toContain('href="/admin/users"');

    await accounts.disableUser(admin.email, "cli");
    for (const path of PATHS) await expectSignInPage(path, admin.cookie);
    await accounts.enableUser(admin.email, "cli");
    await expectSignInPage("/admin/users", admin.cookie);
  });
});
