// The services page (docs/operations.md): its server actions refused
// server-side for a non-admin, and credentials shown once, working, and
// rotated.
import { expect, test } from "@playwright/test";
import { CountersignError } from "@countersign/client";
import {
  captureAction,
  clientFor,
  cliService,
  replay,
  REFUSED,
  requestFor,
  serviceItem,
  session,
  statusIn,
  useAdminAndReviewer,
} from "./admin-helpers";
import { tag } from "./helpers";

test.describe.serial("admin server actions are refused server-side for a non-admin", () => {
  const { sessions, check } = useAdminAndReviewer();

  test("services: create, rotate, finish rotation, callback URL, notification webhook URL, disable, retry a callback", async () => {
    const { admin, reviewer } = sessions;
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
      await item.getByRole("button", { name: "Finish webhook secret rotation" }).click();
      await item.getByRole("button", { name: "Confirm: Finish webhook secret rotation" }).click();
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

    // Notification webhook URL: saved, then cleared.
    const notifyUrl = `https://oncall.example.com/${tag()}`;
    const notifyShown = () => serviceItem(page, svc.slug).getByTestId("notify-webhook-url");
    const saveNotify = await captureAction(page, async () => {
      const item = serviceItem(page, svc.slug);
      await item.getByLabel("Notification webhook URL").fill(notifyUrl);
      await item.getByRole("button", { name: "Save notification webhook URL" }).click();
    });
    await check(
      saveNotify,
      async () => {
        await page.goto("/admin/services");
        await expect(notifyShown()).toHaveText("Notification webhook URL: none");
      },
      async () => {
        await page.goto("/admin/services");
        await expect(notifyShown()).toHaveText(`Notification webhook URL: ${notifyUrl}`);
      },
    );
    const clearNotify = await captureAction(page, () =>
      serviceItem(page, svc.slug).getByRole("button", { name: "Clear notification webhook URL" }).click(),
    );
    await check(
      clearNotify,
      async () => {
        await page.goto("/admin/services");
        await expect(notifyShown()).toHaveText(`Notification webhook URL: ${notifyUrl}`);
      },
      async () => {
        await page.goto("/admin/services");
        await expect(notifyShown()).toHaveText("Notification webhook URL: none");
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
    await reviewer.page.getByRole("button", { name: "Approve", exact: true }).click();
    await expect.poll(async () => (await clientFor(hooked).getApproval(approval.approval_id)).status).toBe("approved");

    const retriedEvents = async () => {
      await page.goto(`/admin/audit?type=callback.retried&approvalId=${approval.approval_id}`);
      return page.getByTestId("audit-event").count();
    };
    const deliveries = () => serviceItem(page, hooked.slug).getByTestId("delivery");
    await expect
      .poll(
        async () => {
          await page.goto("/admin/services");
          await serviceItem(page, hooked.slug).getByText("Callback deliveries").click();
          return deliveries().getByTestId("attempt").count();
        },
        { timeout: 30_000 },
      )
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

test("a new service's credentials are shown once, work, and a reload does not show them again", async ({ browser }) => {
  test.setTimeout(120_000);
  const admin = await session(browser, ["admin"], "admin");
  const page = admin.page;
  const slug = `e2e-once-${tag()}`;

  await page.goto("/admin/services");
  const form = page.getByRole("region", { name: "Register a service" });
  // A refusal names the field by its label, in a sentence (not "value: must be …").
  await form.getByLabel("Slug").fill("Not A Slug!");
  await form.getByRole("button", { name: "Create service" }).click();
  await expect(form.getByRole("alert")).toHaveText(
    "Not saved: Slug must be 2-63 lower-case letters, digits or '-', starting with a letter or digit.",
  );
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

  // A second start before the finish: refused, pointing at this page's own button (not a command-line flag).
  await item.getByRole("button", { name: "Rotate webhook secret" }).click();
  await expect(item.getByRole("alert")).toHaveText(
    `A rotation of the webhook secret of ${slug} is already in progress. Press “Finish webhook secret rotation” once everything uses the new webhook secret, then rotate again.`,
  );

  await serviceItem(page, slug).getByRole("button", { name: "Finish webhook secret rotation" }).click();
  await serviceItem(page, slug).getByRole("button", { name: "Confirm: Finish webhook secret rotation" }).click();
  await expect(statusIn(serviceItem(page, slug))).toContainText("Rotation finished");
  const oldRefused = await requestFor(clientFor({ slug, webhook_secret: webhookSecret, api_token: apiToken }), "e2e.once.late").then(
    () => null,
    (e: unknown) => (e instanceof CountersignError ? e.code : String(e)),
  );
  expect(oldRefused).toBe("invalid-signature");
  const after = await requestFor(clientFor({ slug, webhook_secret: newSecret, api_token: apiToken }), "e2e.once.after");

  // The API token rotates the same way: both tokens work until the rotation is finished.
  const answers = async (token: string) =>
    (await page.request.get(`/api/v1/approvals/${after.approval_id}`, { headers: { authorization: `Bearer ${token}` } })).status();
  await page.reload(); // the webhook rotation's answers go
  await serviceItem(page, slug).getByRole("button", { name: "Rotate API token" }).click();
  await expect(statusIn(serviceItem(page, slug))).toContainText("New API token");
  const newToken = (await serviceItem(page, slug).getByTestId("secret-new-api-token").textContent()) ?? "";
  expect(newToken).toMatch(/^cs_tok_/);
  expect([await answers(apiToken), await answers(newToken)]).toEqual([200, 200]);
  await page.reload();
  await expect(serviceItem(page, slug).getByText("API token rotating: two tokens valid")).toBeVisible();
  await serviceItem(page, slug).getByRole("button", { name: "Finish API token rotation" }).click();
  await serviceItem(page, slug).getByRole("button", { name: "Confirm: Finish API token rotation" }).click();
  await expect(statusIn(serviceItem(page, slug)).filter({ hasText: "Rotation finished" })).toContainText("only the new API token is valid now");
  expect([await answers(apiToken), await answers(newToken)]).toEqual([401, 200]);

  // Disabling says it is for good; Cancel leaves the service as it was.
  await serviceItem(page, slug).getByRole("button", { name: "Disable service" }).click();
  await expect(serviceItem(page, slug).getByRole("alert")).toContainText("This cannot be undone");
  await expect(serviceItem(page, slug).getByRole("alert")).toContainText("cannot be enabled again");
  await serviceItem(page, slug).getByRole("button", { name: "Cancel" }).click();
  await expect(serviceItem(page, slug).getByTestId("service-status")).toHaveText("active");

  await admin.context.close();
});
