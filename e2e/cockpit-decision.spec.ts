// The reviewer's decision page (issue 13): the result panel after a vote,
// live updates from another reviewer and at expiry, the decision bar within
// reach on a huge request at phone width, and the destructive confirmation
// that never moves the button. Every test makes its own role, policy,
// service and users, so other tests' requests never count as "next".
import { expect, test, type Page } from "@playwright/test";
import { ask, reviewer, service, reviewTeam } from "./review-helpers";

test.describe.configure({ timeout: 180_000 });

const PHONE = { width: 390, height: 844 };

/** A role of its own and a policy giving it the tools `<prefix>.*`. */

// The first sign-in after the app starts can be slow: warm the pages up once.
test.beforeAll(async ({ request }) => {
  await request.get("/signin");
});

const approve = (page: Page) => page.getByRole("button", { name: "Approve", exact: true });
const result = (page: Page) => page.getByTestId("decision-result");

test("after a vote: a lasting result panel from the server, focused and announced, with the next request", async ({ browser }) => {
  const { role, tool } = reviewTeam("cockpit", 2);
  const { slug, client } = service();
  const [alice, bob] = [await reviewer(browser, [role], "alice"), await reviewer(browser, [role], "bob")];
  const first = await ask(client, { tool: tool("first") });
  const second = await ask(client, { tool: tool("second") });

  await alice.page.goto(`/approvals/${first.approval_id}`);
  await expect(alice.page).toHaveTitle(`${tool("first")} · ${slug} · Countersign`);
  await approve(alice.page).click();
  const panel = result(alice.page);
  await expect(panel).toHaveText(new RegExp(`^You approved · 1 of 2 · waiting for 1 more approval from ${role}`));
  await expect(panel).toHaveAttribute("role", "status");
  await expect(panel).toBeFocused();
  await expect(panel).toHaveAttribute("data-mine", "true");
  await expect(panel.getByRole("link", { name: "Next request" })).toHaveAttribute("href", `/approvals/${second.approval_id}`);
  await expect(alice.page.getByTestId("status")).toHaveText("pending");
  await expect(alice.page.getByTestId("why-not")).toHaveCount(0);
  // Lasting: the same after a reload.
  await alice.page.reload();
  await expect(result(alice.page)).toContainText("You approved · 1 of 2");

  // Bob completes it: his panel names both, with him as "you"; Alice's open page follows live.
  await bob.page.goto(`/approvals/${first.approval_id}`);
  await approve(bob.page).click();
  await expect(result(bob.page)).toContainText(`Approved by you and ${alice.user.email}`);
  await expect(result(bob.page)).toBeFocused();
  await expect(result(alice.page)).toContainText(`Approved by you and ${bob.user.email}`);
  await expect(alice.page.getByTestId("status")).toHaveText("approved");

  // A denial reads as the viewer's own, with the reason; nothing left to review: back to the queue.
  await bob.page.goto(`/approvals/${second.approval_id}`);
  await bob.page.getByLabel("Reason").fill("Wrong account");
  await bob.page.getByRole("button", { name: "Deny" }).click();
  await expect(result(bob.page)).toContainText("You denied: Wrong account");
  await expect(result(bob.page).getByRole("link", { name: "Back to the queue" })).toHaveAttribute("href", "/approvals");
  await Promise.all([alice.context.close(), bob.context.close()]);
});

test("an open page follows another reviewer's deny, and stops at expiry", async ({ browser }) => {
  const { tool, role } = reviewTeam("cockpit", 2);
  const { client } = service();
  const [alice, bob] = [await reviewer(browser, [role], "alice"), await reviewer(browser, [role], "bob")];
  const denied = await ask(client, { tool: tool("denied") });

  await alice.page.goto(`/approvals/${denied.approval_id}`);
  await expect(alice.page.getByTestId("live-status")).toHaveAttribute("data-state", "live", { timeout: 10_000 });
  await expect(approve(alice.page)).toBeEnabled();
  await bob.page.goto(`/approvals/${denied.approval_id}`);
  await bob.page.getByLabel("Reason").fill("Not this vendor");
  await bob.page.getByRole("button", { name: "Deny" }).click();
  await expect(result(bob.page)).toContainText("You denied: Not this vendor");
  // Alice never reloaded: status, reviews and the form changed on their own.
  await expect(alice.page.getByTestId("status")).toHaveText("denied");
  await expect(result(alice.page)).toHaveText(new RegExp(`^Denied by ${bob.user.email.replace(/[.+]/g, "\\$&")}: Not this vendor`));
  await expect(result(alice.page)).toHaveAttribute("data-mine", "false");
  await expect(approve(alice.page)).toHaveCount(0);
  await expect(alice.page.getByText("“Not this vendor”")).toBeVisible();

  // A request that lives 12 s: the buttons stop at expiry, then the page shows it expired.
  const expiring = await ask(client, { tool: tool("expiring"), expires_in: 12 });
  await alice.page.goto(`/approvals/${expiring.approval_id}`);
  await expect(approve(alice.page)).toBeEnabled();
  await expect(alice.page.getByTestId("countdown")).toHaveText(/\d+ s left/);
  await expect(alice.page.getByTestId("status")).toHaveText("expired", { timeout: 20_000 });
  await expect(result(alice.page)).toContainText("Expired with 0 of 2 approvals");
  await expect(approve(alice.page)).toHaveCount(0);
  expect((await client.getApproval(expiring.approval_id)).status).toBe("expired");
  await Promise.all([alice.context.close(), bob.context.close()]);
});

test("the form disables itself at expiry before the page is re-read", async ({ browser }) => {
  const { tool, role } = reviewTeam("cockpit", 1);
  const { client } = service();
  const alice = await reviewer(browser, [role], "alice");
  // Every re-read of the page is held until the form's own state at expiry has been checked.
  // (A fixed delay raced a loaded machine: the re-read replaced the form before it was looked at.)
  let release = () => {};
  const released = new Promise<void>((r) => (release = r));
  await alice.page.route(
    (url) => url.pathname.startsWith("/approvals/"),
    async (route) => {
      if (route.request().headers()["rsc"]) await released;
      await route.continue().catch(() => {});
    },
  );
  const expiring = await ask(client, { tool: tool("expiring"), expires_in: 12 });
  await alice.page.goto(`/approvals/${expiring.approval_id}`);
  await expect(approve(alice.page)).toBeEnabled();
  await expect(approve(alice.page)).toBeDisabled({ timeout: 20_000 });
  await expect(alice.page.getByTestId("decision-line")).toHaveText("This request has expired; it can no longer be decided.");
  await expect(alice.page.getByTestId("status")).toHaveText("expired");
  release();
  // Re-read: the server's answer replaces the form.
  await expect(result(alice.page)).toContainText("Expired with 0 of 1 approvals", { timeout: 15_000 });
  await expect(approve(alice.page)).toHaveCount(0);
  await alice.context.close();
});

test("on a 60 KiB request at 390 px, Approve is under 10 Tab presses away and stays on screen", async ({ browser }) => {
  const { tool, role } = reviewTeam("cockpit", 1);
  const { client } = service();
  const alice = await reviewer(browser, [role], "alice", PHONE);
  const big = { rows: Array.from({ length: 600 }, (_, i) => ({ id: i, note: `${"n".repeat(90)} ${i}` })) };
  expect(JSON.stringify(big).length).toBeGreaterThan(60 * 1024);
  const created = await ask(client, { tool: tool("big"), arguments: big });

  await alice.page.goto(`/approvals/${created.approval_id}`);
  await expect(approve(alice.page)).toBeVisible();
  let presses = 0;
  for (; presses < 10; presses++) {
    if (await approve(alice.page).evaluate((el) => el === document.activeElement)) break;
    await alice.page.keyboard.press("Tab");
  }
  expect(presses).toBeLessThan(10);
  await expect(approve(alice.page)).toBeFocused();
  // Sticky: in view at the top of the page and after scrolling to the very bottom.
  await expect(approve(alice.page)).toBeInViewport();
  await alice.page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  // (The argument tree shows a bounded first page of a big object, so the page is long, not endless.)
  expect(await alice.page.evaluate(() => window.scrollY)).toBeGreaterThan(300);
  await expect(approve(alice.page)).toBeInViewport();
  await expect(alice.page.getByRole("button", { name: "Deny" })).toBeInViewport();
  await expect(alice.page.getByLabel("Reason")).toBeInViewport();
  await alice.context.close();
});

for (const viewport of [PHONE, { width: 1280, height: 800 }]) {
  test(`a destructive call's confirmation keeps the button in place (${viewport.width} px)`, async ({ browser }) => {
    const { tool, role } = reviewTeam("cockpit", 1);
    const { client } = service();
    const alice = await reviewer(browser, [role], "alice", viewport);
    const created = await ask(client, { tool: tool("drop"), effects: "destructive" });
    await alice.page.goto(`/approvals/${created.approval_id}`);
    const button = approve(alice.page);
    await expect(alice.page.getByTestId("decision-line")).toHaveText("Destructive call: approving asks you to confirm.");
    const before = await button.boundingBox();
    await button.click();
    const confirm = alice.page.getByRole("button", { name: "Confirm approve" });
    await expect(confirm).toBeVisible();
    await expect(alice.page.getByTestId("decision-line")).toContainText("destructive and cannot be undone");
    expect(await confirm.boundingBox()).toEqual(before);
    expect((await client.getApproval(created.approval_id)).status).toBe("pending");
    await confirm.click();
    await expect(result(alice.page)).toContainText("Approved by you");
    expect((await client.getApproval(created.approval_id)).status).toBe("approved");
    await alice.context.close();
  });
}
