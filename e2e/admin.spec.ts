// The admin console (CONTRACT §6, §8, §9): who may see each /admin page and
// call each admin server action (checked on the server from the database,
// never by the browser), role changes taking effect on the next click,
// secrets shown once, and the pages' main flows.
import { randomBytes, randomUUID } from "node:crypto";
import {
  expect,
  test,
  type APIRequestContext,
  type Browser,
  type BrowserContext,
  type Locator,
  type Page,
  type Route,
} from "@playwright/test";
import { CountersignClient, CountersignError } from "../lib/client";
import { E2E } from "./config";
import { adminCli, createUser, uniqueEmail, type TestUser } from "./helpers";

const ADMIN_PAGES = ["/admin/users", "/admin/policies", "/admin/services", "/admin/audit"] as const;
const onSignInPage = /\/signin(\?.*)?$/;
const tag = () => randomBytes(4).toString("hex");

/**
 * Signs in through the form once the page is hydrated, so the form posts as a
 * server action from script (a native form POST made before hydration is sent
 * with `Origin: null` under `Referrer-Policy: no-referrer`, and Next refuses it).
 */
async function signIn(page: Page, user: TestUser): Promise<void> {
  await page.goto("/signin", { waitUntil: "networkidle" });
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/approvals$/);
  await expect(page.getByTestId("current-user")).toHaveText(user.email);
}

type Session = { user: TestUser; context: BrowserContext; page: Page; request: APIRequestContext };

async function session(browser: Browser, roles: string[], prefix = "user"): Promise<Session> {
  const user = createUser({ roles, prefix });
  const context = await browser.newContext({ baseURL: E2E.appUrl });
  const page = await context.newPage();
  await signIn(page, user);
  return { user, context, page, request: context.request };
}

type Service = { slug: string; webhook_secret: string; api_token: string; callback_secret: string };

function cliService(callbackUrl?: string): Service {
  const args = ["service", "add", "--slug", `e2e-adm-${tag()}`];
  if (callbackUrl) args.push("--callback-url", callbackUrl);
  return adminCli(args) as Service;
}

function clientFor(s: { slug: string; webhook_secret: string | string[]; api_token: string }) {
  return new CountersignClient({ baseUrl: E2E.appUrl, serviceSlug: s.slug, webhookSecret: s.webhook_secret, apiToken: s.api_token });
}

function requestFor(client: CountersignClient, tool: string) {
  return client.requestApproval({ run_id: `run_${randomUUID()}`, call_id: "c1", tool, arguments: { amount: 5 } });
}

// ------------------------------------------------------------ page locators

const userItem = (page: Page, email: string) => page.getByRole("listitem", { name: email, exact: true });
const policyItem = (page: Page, name: string) => page.getByRole("listitem", { name: `Policy ${name}`, exact: true });
const serviceItem = (page: Page, slug: string) => page.getByRole("listitem", { name: `Service ${slug}`, exact: true });
const rolesOf = (item: Locator) => item.getByTestId("role").locator("span.font-mono");
const statusIn = (scope: Locator | Page) => scope.getByRole("status");

// ------------------------------------------------- server action capture

type CapturedAction = { url: string; headers: Record<string, string>; body: Buffer };

/**
 * Runs `trigger` on an admin page and captures the server action request it
 * makes, without letting it reach the server (the route is aborted).
 */
async function captureAction(page: Page, trigger: () => Promise<void>): Promise<CapturedAction> {
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
    await page.unroute("**/admin/**", handler);
  }
  return captured!;
}

/** Sends a captured action with another session's cookies (an APIRequestContext of that browser context). */
async function replay(request: APIRequestContext, action: CapturedAction): Promise<{ status: number; body: string }> {
  const r = await request.post(action.url, { headers: action.headers, data: action.body, maxRedirects: 0 });
  return { status: r.status(), body: await r.text() };
}

const REFUSED = "Not allowed: this needs the admin role.";

// ================================================================== tests

test.describe("admin pages: who may see them", () => {
  test("anonymous → /signin, reviewer → 403, disabled admin → /signin, admin → 200", async ({ browser }) => {
    test.setTimeout(120_000);
    const anonymous = await browser.newContext({ baseURL: E2E.appUrl });
    const anonPage = await anonymous.newPage();
    for (const path of ADMIN_PAGES) {
      await anonPage.goto(path);
      await expect(anonPage, path).toHaveURL(onSignInPage);
      await expect(anonPage.getByTestId("current-user")).toHaveCount(0);
    }

    const reviewer = await session(browser, ["reviewer", "payments"], "reviewer");
    for (const path of ADMIN_PAGES) {
      const r = await reviewer.page.goto(path);
      expect(r?.status(), path).toBe(403);
      await expect(reviewer.page.getByRole("heading", { level: 1, name: "Not allowed" })).toBeVisible();
    }
    // No admin links for a reviewer.
    await reviewer.page.goto("/approvals");
    await expect(reviewer.page.getByRole("link", { name: "Users" })).toHaveCount(0);

    const admin = await session(browser, ["admin"], "admin");
    const headings = { "/admin/users": "Users", "/admin/policies": "Policies", "/admin/services": "Services", "/admin/audit": "Audit trail" };
    for (const path of ADMIN_PAGES) {
      const r = await admin.page.goto(path);
      expect(r?.status(), path).toBe(200);
      await expect(admin.page.getByRole("heading", { level: 1, name: headings[path] })).toBeVisible();
    }
    await admin.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Policies" }).click();
    await expect(admin.page).toHaveURL(/\/admin\/policies$/);

    // Disabled while signed in: the very next request is anonymous.
    adminCli(["user", "disable", "--email", admin.user.email]);
    for (const path of ADMIN_PAGES) {
      await admin.page.goto(path);
      await expect(admin.page, path).toHaveURL(onSignInPage);
    }
    // Enabling again does not revive the old session.
    adminCli(["user", "enable", "--email", admin.user.email]);
    await admin.page.goto("/admin/users");
    await expect(admin.page).toHaveURL(onSignInPage);

    await Promise.all([anonymous.close(), reviewer.context.close(), admin.context.close()]);
  });
});

test.describe.serial("admin server actions are refused server-side for a non-admin", () => {
  let admin: Session;
  let reviewer: Session;

  test.beforeAll(async ({ browser }) => {
    admin = await session(browser, ["admin"], "admin");
    reviewer = await session(browser, ["reviewer"], "reviewer");
  });
  test.afterAll(async () => {
    await admin?.context.close();
    await reviewer?.context.close();
  });

  /** Reviewer replay: refused and nothing changes; admin replay of the same bytes: it works. */
  async function check(action: CapturedAction, unchanged: () => Promise<void>, changed: () => Promise<void>) {
    const refused = await replay(reviewer.request, action);
    expect(refused.status).toBeLessThan(500);
    expect(refused.body).toContain(REFUSED);
    await unchanged();
    const accepted = await replay(admin.request, action);
    expect(accepted.body).not.toContain(REFUSED);
    await changed();
  }

  test("users: create, grant, revoke, disable, enable", async () => {
    test.setTimeout(180_000);
    const page = admin.page;
    const target = createUser({ roles: ["keep-me"], prefix: "target" });

    // Create a user.
    const newEmail = uniqueEmail("created");
    await page.goto("/admin/users");
    const create = await captureAction(page, async () => {
      const form = page.getByRole("region", { name: "Create a user" });
      await form.getByLabel("Email").fill(newEmail);
      await form.getByRole("button", { name: "Create user" }).click();
    });
    await check(
      create,
      async () => {
        await page.goto("/admin/users");
        await expect(userItem(page, newEmail)).toHaveCount(0);
      },
      async () => {
        await page.goto("/admin/users");
        await expect(userItem(page, newEmail)).toHaveCount(1);
      },
    );

    // Grant a role.
    await page.goto("/admin/users");
    const grant = await captureAction(page, async () => {
      const item = userItem(page, target.email);
      await item.getByLabel("Role to grant").fill("granted-x");
      await item.getByRole("button", { name: "Grant role" }).click();
    });
    await check(
      grant,
      async () => {
        await page.goto("/admin/users");
        await expect(rolesOf(userItem(page, target.email))).toHaveText(["keep-me"]);
      },
      async () => {
        await page.goto("/admin/users");
        await expect(rolesOf(userItem(page, target.email))).toHaveText(["granted-x", "keep-me"]);
      },
    );

    // Revoke a role.
    await page.goto("/admin/users");
    const revoke = await captureAction(page, async () => {
      const item = userItem(page, target.email);
      await item.getByLabel("Role to revoke").selectOption("keep-me");
      await item.getByRole("button", { name: "Revoke role" }).click();
    });
    await check(
      revoke,
      async () => {
        await page.goto("/admin/users");
        await expect(rolesOf(userItem(page, target.email))).toHaveText(["granted-x", "keep-me"]);
      },
      async () => {
        await page.goto("/admin/users");
        await expect(rolesOf(userItem(page, target.email))).toHaveText(["granted-x"]);
      },
    );

    // Disable, then enable.
    const statusOf = () => userItem(page, target.email).getByTestId("user-status");
    await page.goto("/admin/users");
    const disable = await captureAction(page, async () => {
      const item = userItem(page, target.email);
      await item.getByRole("button", { name: "Disable user" }).click();
      await item.getByRole("button", { name: "Confirm: Disable user" }).click();
    });
    await check(
      disable,
      async () => {
        await page.goto("/admin/users");
        await expect(statusOf()).toHaveText("active");
      },
      async () => {
        await page.goto("/admin/users");
        await expect(statusOf()).toHaveText("disabled");
      },
    );
    const enable = await captureAction(page, () => userItem(page, target.email).getByRole("button", { name: "Enable user" }).click());
    await check(
      enable,
      async () => {
        await page.goto("/admin/users");
        await expect(statusOf()).toHaveText("disabled");
      },
      async () => {
        await page.goto("/admin/users");
        await expect(statusOf()).toHaveText("active");
      },
    );
  });

  test("policies: save, delete, and the matching tester", async () => {
    test.setTimeout(180_000);
    const page = admin.page;
    const name = `e2e-pol-${tag()}`;

    await page.goto("/admin/policies");
    const save = await captureAction(page, async () => {
      const form = page.getByRole("region", { name: "Create or replace a policy" });
      await form.getByLabel("Name").fill(name);
      await form.getByLabel("Tool pattern").fill(`${name}.*`);
      await form.getByLabel("Roles").fill("payments");
      await form.getByLabel("Quorum").fill("2");
      await form.getByLabel("TTL (seconds)").fill("600");
      await form.getByRole("button", { name: "Save policy" }).click();
    });
    await check(
      save,
      async () => {
        await page.goto("/admin/policies");
        await expect(policyItem(page, name)).toHaveCount(0);
      },
      async () => {
        await page.goto("/admin/policies");
        await expect(policyItem(page, name).getByTestId("policy-rule")).toContainText("2 approvals from payments");
      },
    );

    const del = await captureAction(page, async () => {
      const item = policyItem(page, name);
      await item.getByRole("button", { name: "Delete policy" }).click();
      await item.getByRole("button", { name: "Confirm: Delete policy" }).click();
    });
    await check(
      del,
      async () => {
        await page.goto("/admin/policies");
        await expect(policyItem(page, name)).toHaveCount(1);
      },
      async () => {
        await page.goto("/admin/policies");
        await expect(policyItem(page, name)).toHaveCount(0);
      },
    );

    // The tester changes nothing, but reveals policies: admins only.
    const tester = await captureAction(page, async () => {
      const form = page.getByRole("region", { name: "Which policy matches?" });
      await form.getByLabel("Service").fill("any-service");
      await form.getByLabel("Tool").fill("some.tool");
      await form.getByRole("button", { name: "Find policy" }).click();
    });
    const refused = await replay(reviewer.request, tester);
    expect(refused.body).toContain(REFUSED);
    expect(refused.body).not.toContain("→ policy");
    const answered = await replay(admin.request, tester);
    expect(answered.body).toContain("→ policy");
  });

  test("services: create, rotate, finish rotation, callback URL, disable, retry a callback", async () => {
    test.setTimeout(240_000);
    const page = admin.page;

    // Create: the reviewer gets no secret and no service.
    const slug = `e2e-new-${tag()}`;
    await page.goto("/admin/services");
    const create = await captureAction(page, async () => {
      const form = page.getByRole("region", { name: "Register a service" });
      await form.getByLabel("Slug").fill(slug);
      await form.getByRole("button", { name: "Create service" }).click();
    });
    const refused = await replay(reviewer.request, create);
    expect(refused.body).toContain(REFUSED);
    expect(refused.body).not.toContain("whsec_");
    await page.goto("/admin/services");
    await expect(serviceItem(page, slug)).toHaveCount(0);
    const created = await replay(admin.request, create);
    expect(created.body).toContain("whsec_");
    await page.goto("/admin/services");
    await expect(serviceItem(page, slug)).toHaveCount(1);

    // Rotate, then finish.
    const svc = cliService();
    const rotatingBadge = () => serviceItem(page, svc.slug).getByText("rotating: two secrets valid");
    await page.goto("/admin/services");
    const rotate = await captureAction(page, () => serviceItem(page, svc.slug).getByRole("button", { name: "Rotate webhook secret" }).click());
    await check(
      rotate,
      async () => {
        await page.goto("/admin/services");
        await expect(rotatingBadge()).toHaveCount(0);
      },
      async () => {
        await page.goto("/admin/services");
        await expect(rotatingBadge()).toHaveCount(1);
      },
    );
    const finish = await captureAction(page, async () => {
      const item = serviceItem(page, svc.slug);
      await item.getByRole("button", { name: "Finish rotation" }).click();
      await item.getByRole("button", { name: "Confirm: Finish rotation" }).click();
    });
    await check(
      finish,
      async () => {
        await page.goto("/admin/services");
        await expect(rotatingBadge()).toHaveCount(1);
      },
      async () => {
        await page.goto("/admin/services");
        await expect(rotatingBadge()).toHaveCount(0);
      },
    );

    // Callback URL.
    const url = `https://hooks.example.com/${tag()}`;
    const update = await captureAction(page, async () => {
      const item = serviceItem(page, svc.slug);
      await item.getByLabel("New callback URL").fill(url);
      await item.getByRole("button", { name: "Save callback URL" }).click();
    });
    await check(
      update,
      async () => {
        await page.goto("/admin/services");
        await expect(serviceItem(page, svc.slug)).toContainText("Callback URL: none");
      },
      async () => {
        await page.goto("/admin/services");
        await expect(serviceItem(page, svc.slug)).toContainText(`Callback URL: ${url}`);
      },
    );

    // Disable.
    const disable = await captureAction(page, async () => {
      const item = serviceItem(page, svc.slug);
      await item.getByRole("button", { name: "Disable service" }).click();
      await item.getByRole("button", { name: "Confirm: Disable service" }).click();
    });
    await check(
      disable,
      async () => {
        await page.goto("/admin/services");
        await expect(serviceItem(page, svc.slug).getByTestId("service-status")).toHaveText("active");
      },
      async () => {
        await page.goto("/admin/services");
        await expect(serviceItem(page, svc.slug).getByTestId("service-status")).toHaveText("disabled");
      },
    );

    // Retry now: a callback to a closed port fails and waits for its retry.
    const hooked = cliService("http://localhost:9/callback");
    const approval = await requestFor(clientFor(hooked), `retry${tag()}.call`);
    await reviewer.page.goto(`/approvals/${approval.approval_id}`);
    await reviewer.page.getByRole("button", { name: "Approve" }).click();
    await expect.poll(async () => (await clientFor(hooked).getApproval(approval.approval_id)).status).toBe("approved");

    const retriedEvents = async () => {
      await page.goto(`/admin/audit?type=callback.retried&approvalId=${approval.approval_id}`);
      return page.getByTestId("audit-event").count();
    };
    const deliveries = () => serviceItem(page, hooked.slug).getByTestId("delivery");
    await expect
      .poll(async () => {
        await page.goto("/admin/services");
        await serviceItem(page, hooked.slug).getByText("Callback deliveries").click();
        return deliveries().getByTestId("attempt").count();
      }, { timeout: 30_000 })
      .toBeGreaterThan(0);
    await expect(deliveries().getByTestId("attempt").first()).toContainText("no answer (network)");
    const retry = await captureAction(page, () => deliveries().getByRole("button", { name: "Retry now" }).click());
    await check(
      retry,
      async () => expect(await retriedEvents()).toBe(0),
      async () => expect(await retriedEvents()).toBe(1),
    );
    await expect(page.getByTestId("audit-actor")).toHaveText(`user:${admin.user.email}`);
  });
});

test("a granted role works on the reviewer's next click, and a revoked one stops the next click", async ({ browser }) => {
  test.setTimeout(120_000);
  const t = tag();
  const role = `grant-${t}`;
  adminCli(["policy", "set", "--name", `e2e-grant-${t}`, "--tool", `grant${t}.*`, "--roles", role, "--quorum", "1", "--ttl", "3600"]);
  const client = clientFor(cliService());
  const approval = await requestFor(client, `grant${t}.pay`);

  const admin = await session(browser, ["admin"], "admin");
  const reviewer = await session(browser, ["reviewer"], "reviewer");
  const approveButton = reviewer.page.getByRole("button", { name: "Approve" });

  // Without one of its roles the request is not shown at all: the 404 of an unknown id (CONTRACT §19).
  const before = await reviewer.page.goto(`/approvals/${approval.approval_id}`);
  expect(before?.status()).toBe(404);
  await expect(reviewer.page.getByRole("heading", { level: 1, name: `grant${t}.pay` })).toHaveCount(0);
  await expect(approveButton).toHaveCount(0);

  const grant = async () => {
    await admin.page.goto("/admin/users");
    const item = userItem(admin.page, reviewer.user.email);
    await item.getByLabel("Role to grant").fill(role);
    await item.getByRole("button", { name: "Grant role" }).click();
    await expect(statusIn(item)).toContainText(`Granted ${role} to ${reviewer.user.email}`);
  };

  // Granted: the reviewer's next page load shows the buttons, no new sign-in.
  await grant();
  await reviewer.page.reload();
  await expect(reviewer.page.getByRole("heading", { level: 1, name: `grant${t}.pay` })).toBeVisible();
  await expect(approveButton).toBeVisible();

  // Revoked while the buttons are on screen: the click is refused.
  await admin.page.goto("/admin/users");
  const item = userItem(admin.page, reviewer.user.email);
  await item.getByLabel("Role to revoke").selectOption(role);
  await item.getByRole("button", { name: "Revoke role" }).click();
  await expect(statusIn(item)).toContainText(`Revoked ${role}`);
  await approveButton.click();
  await expect(reviewer.page.getByRole("main").getByRole("alert")).toBeVisible();
  expect((await client.getApproval(approval.approval_id)).status).toBe("pending");

  // Granted again: the same open page's next click goes through.
  await grant();
  await approveButton.click();
  await expect.poll(async () => (await client.getApproval(approval.approval_id)).status).toBe("approved");
  expect((await client.getApproval(approval.approval_id)).decided_by).toEqual([reviewer.user.email]);

  await Promise.all([admin.context.close(), reviewer.context.close()]);
});

test("a new service's credentials are shown once, work, and a reload does not show them again", async ({ browser }) => {
  test.setTimeout(120_000);
  const admin = await session(browser, ["admin"], "admin");
  const page = admin.page;
  const slug = `e2e-once-${tag()}`;

  await page.goto("/admin/services");
  const form = page.getByRole("region", { name: "Register a service" });
  await form.getByLabel("Slug").fill(slug);
  await form.getByRole("button", { name: "Create service" }).click();
  await expect(statusIn(form)).toContainText(`Service ${slug} created.`);
  const webhookSecret = (await form.getByTestId("secret-webhook-secret").textContent()) ?? "";
  const apiToken = (await form.getByTestId("secret-api-token").textContent()) ?? "";
  const callbackSecret = (await form.getByTestId("secret-callback-secret").textContent()) ?? "";
  expect(webhookSecret).toMatch(/^whsec_/);
  expect(callbackSecret).toMatch(/^whsec_/);
  expect(apiToken.length).toBeGreaterThan(20);
  await expect(form.getByRole("button", { name: "Copy webhook secret" })).toBeVisible();
  await expect(serviceItem(page, slug)).toBeVisible();

  // They are the real credentials.
  const client = clientFor({ slug, webhook_secret: webhookSecret, api_token: apiToken });
  const created = await requestFor(client, "e2e.once.call");
  expect((await client.getApproval(created.approval_id)).status).toBe("pending");

  // Gone after a reload: not in the page, not in its HTML.
  await page.reload();
  await expect(page.getByTestId("secrets")).toHaveCount(0);
  const html = await page.content();
  for (const secret of [webhookSecret, apiToken, callbackSecret]) expect(html).not.toContain(secret);

  // Rotation: the new secret once; both valid until the rotation is finished.
  const item = serviceItem(page, slug);
  await item.getByRole("button", { name: "Rotate webhook secret" }).click();
  await expect(statusIn(item)).toContainText("New webhook secret");
  const newSecret = (await item.getByTestId("secret-new-webhook-secret").textContent()) ?? "";
  expect(newSecret).toMatch(/^whsec_/);
  await requestFor(clientFor({ slug, webhook_secret: webhookSecret, api_token: apiToken }), "e2e.once.old");
  await requestFor(clientFor({ slug, webhook_secret: newSecret, api_token: apiToken }), "e2e.once.new");
  await page.reload();
  expect(await page.content()).not.toContain(newSecret);

  await serviceItem(page, slug).getByRole("button", { name: "Finish rotation" }).click();
  await serviceItem(page, slug).getByRole("button", { name: "Confirm: Finish rotation" }).click();
  await expect(statusIn(serviceItem(page, slug))).toContainText("Rotation finished");
  const oldRefused = await requestFor(clientFor({ slug, webhook_secret: webhookSecret, api_token: apiToken }), "e2e.once.late").then(
    () => null,
    (e: unknown) => (e instanceof CountersignError ? e.code : String(e)),
  );
  expect(oldRefused).toBe("invalid-signature");
  await requestFor(clientFor({ slug, webhook_secret: newSecret, api_token: apiToken }), "e2e.once.after");

  await admin.context.close();
});

test("policies page: create, edit, test which policy matches, delete; the default cannot be deleted", async ({ browser }) => {
  test.setTimeout(120_000);
  const admin = await session(browser, ["admin"], "admin");
  const page = admin.page;
  const name = `e2e-ui-${tag()}`;

  await page.goto("/admin/policies");
  await expect(policyItem(page, "default").getByRole("button", { name: "Delete policy" })).toHaveCount(0);

  const form = page.getByRole("region", { name: "Create or replace a policy" });
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Tool pattern").fill(`${name}.*`);
  await form.getByLabel("Effects").selectOption("destructive");
  await form.getByLabel("Roles").fill("payments, finance");
  await form.getByLabel("Quorum").fill("2");
  await form.getByLabel("TTL (seconds)").fill("900");
  await form.getByRole("button", { name: "Save policy" }).click();
  await expect(statusIn(form)).toContainText(`Policy ${name} created.`);
  await expect(policyItem(page, name).getByTestId("policy-rule")).toHaveText("2 approvals from payments, finance · TTL 900 s · priority 100");

  // A bad value is refused with the field named.
  await form.getByLabel("Name").fill(`${name}-bad`);
  await form.getByLabel("Tool pattern").fill("x.*");
  await form.getByLabel("Roles").fill("payments");
  await form.getByLabel("Quorum").fill("0");
  await form.getByLabel("TTL (seconds)").fill("900");
  await form.getByRole("button", { name: "Save policy" }).click();
  await expect(form.getByRole("alert")).toContainText("quorum: must be at least 1");
  await expect(policyItem(page, `${name}-bad`)).toHaveCount(0);

  // Which policy matches?
  const tester = page.getByRole("region", { name: "Which policy matches?" });
  await tester.getByLabel("Service").fill("any-service");
  await tester.getByLabel("Tool").fill(`${name}.refund`);
  await tester.getByLabel("Effects").selectOption("destructive");
  await tester.getByRole("button", { name: "Find policy" }).click();
  await expect(statusIn(tester)).toContainText(`→ policy ${name}`);
  await expect(statusIn(tester)).toContainText("Needs 2 approval(s) from: payments, finance");
  await tester.getByLabel("Effects").selectOption("write");
  await tester.getByRole("button", { name: "Find policy" }).click();
  await expect(statusIn(tester)).toContainText("→ policy default (the default: nothing else matches)");

  // Edit.
  const item = policyItem(page, name);
  await item.getByText(`Edit ${name}`).click();
  await item.getByLabel("Quorum").fill("1");
  await item.getByLabel("Roles").fill("payments");
  await item.getByRole("button", { name: "Save changes" }).click();
  await expect(statusIn(item)).toContainText(`Policy ${name} replaced.`);
  await expect(item.getByTestId("policy-rule")).toHaveText("1 approval from payments · TTL 900 s · priority 100");
  const listed = adminCli(["policy", "list"]) as { policies: Array<{ name: string; quorum: number; effects: string }> };
  expect(listed.policies.find((p) => p.name === name)).toMatchObject({ quorum: 1, effects: "destructive" });

  // Delete (asks first).
  await item.getByRole("button", { name: "Delete policy" }).click();
  await item.getByRole("button", { name: "Confirm: Delete policy" }).click();
  await expect(policyItem(page, name)).toHaveCount(0);

  await admin.context.close();
});

test("users page: create a user who can sign in; disabling them ends their open session at once", async ({ browser }) => {
  test.setTimeout(120_000);
  const admin = await session(browser, ["admin"], "admin");
  const page = admin.page;
  const email = uniqueEmail("ui-made");
  const password = randomBytes(12).toString("base64url");

  await page.goto("/admin/users");
  const form = page.getByRole("region", { name: "Create a user" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Name").fill("Made In UI");
  await form.getByLabel("Password").fill(password);
  await form.getByLabel("Roles").fill("reviewer, payments");
  await form.getByRole("button", { name: "Create user" }).click();
  await expect(statusIn(form)).toContainText(`Created ${email} with payments, reviewer.`);
  await expect(rolesOf(userItem(page, email))).toHaveText(["payments", "reviewer"]);
  await expect(userItem(page, email)).toContainText("Last sign-in: never");

  const other = await browser.newContext({ baseURL: E2E.appUrl });
  const otherPage = await other.newPage();
  await signIn(otherPage, { email, password });

  await page.reload();
  await expect(userItem(page, email)).not.toContainText("Last sign-in: never");
  const item = userItem(page, email);
  await item.getByRole("button", { name: "Disable user" }).click();
  await item.getByRole("button", { name: "Confirm: Disable user" }).click();
  await expect(statusIn(item)).toContainText(`Disabled ${email}; 1 session(s) ended.`);
  await expect(item.getByTestId("user-status")).toHaveText("disabled");

  await otherPage.goto("/approvals");
  await expect(otherPage).toHaveURL(onSignInPage);

  // The admin's self-grant is allowed, marked on the page and in the audit trail.
  const me = userItem(page, admin.user.email);
  await me.getByLabel("Role to grant").fill("payments");
  await me.getByRole("button", { name: "Grant role" }).click();
  await expect(statusIn(me)).toContainText("self-grant");
  await expect(me.getByTestId("role").filter({ hasText: "payments" })).toContainText("self-granted");
  await page.goto(`/admin/audit?type=role.granted&actor=${encodeURIComponent(`user:${admin.user.email}`)}`);
  await expect(page.getByTestId("audit-data").first()).toContainText('"selfGrant":true');

  await Promise.all([admin.context.close(), other.close()]);
});

test("audit page: newest first, filtered by type and actor, paged by seq", async ({ browser }) => {
  test.setTimeout(120_000);
  const admin = await session(browser, ["admin"], "admin");
  const page = admin.page;

  await page.goto("/admin/audit");
  await page.getByLabel("Event type").selectOption("user.created");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/type=user\.created/);
  const types = page.getByTestId("audit-type");
  await expect(types.first()).toHaveText("user.created");
  for (const t of await types.allTextContents()) expect(t).toBe("user.created");

  await page.goto("/admin/audit?limit=5");
  await expect(page.getByTestId("audit-event")).toHaveCount(5);
  const seqs = async () => (await page.getByTestId("audit-event").locator("td:first-child").allTextContents()).map(Number);
  const first = await seqs();
  expect([...first].sort((a, b) => b - a)).toEqual(first);
  await page.getByRole("link", { name: "Older events" }).click();
  await expect(page).toHaveURL(new RegExp(`before=${first.at(-1)}`));
  const second = await seqs();
  expect(Math.max(...second)).toBeLessThan(Math.min(...first));

  await page.goto(`/admin/audit?actor=${encodeURIComponent(`user:${admin.user.email}`)}`);
  await expect(page.getByText("No events match.")).toBeVisible();
  await page.goto("/admin/audit?type=not.a.type");
  await expect(page.getByRole("main").getByRole("alert")).toContainText("Invalid filter");

  await admin.context.close();
});
