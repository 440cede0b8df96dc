// Expiry while a page is open (issue 36): the request's page turns "expired"
// everywhere at once, for every viewer, without a reload; the queue says when
// requests the reviewer could have decided ran out, instead of dropping them
// silently.
import { expect, test, type Page } from "@playwright/test";
import { ask, canActSection, openQueue, reviewer, rowOf, service, reviewTeam } from "./review-helpers";

test.describe.configure({ timeout: 180_000 });

test.beforeAll(async ({ request }) => {
  await request.get("/signin");
});

/** Holds the page's re-read back, to see what the open page shows by itself at the moment of expiry. */
async function holdRereads(page: Page, ms: number) {
  await page.route(
    (url) => url.pathname.startsWith("/approvals/"),
    async (route) => {
      if (route.request().headers()["rsc"]) await new Promise((r) => setTimeout(r, ms));
      await route.continue().catch(() => {});
    },
  );
}

test("a request that expires while open turns expired everywhere on the page, for voters and onlookers", async ({ browser }) => {
  const { role, tool } = reviewTeam("exp", 2);
  const { client } = service();
  const [alice, bob] = [await reviewer(browser, [role], "alice"), await reviewer(browser, [role], "bob")];
  const created = await ask(client, { tool: tool("brief"), expires_in: 25 });
  // Bob approves at once: he is an onlooker from then on (nothing left for him to decide).
  await bob.page.goto(`/approvals/${created.approval_id}`);
  await bob.page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(bob.page.getByTestId("decision-result")).toContainText("You approved · 1 of 2");
  await alice.page.goto(`/approvals/${created.approval_id}`);
  for (const p of [alice.page, bob.page]) {
    await expect(p.getByTestId("status")).toHaveText("pending");
    await expect(p.getByTestId("countdown")).toHaveText(/^\d+ s left$/);
  }
  await holdRereads(alice.page, 6_000);

  // At expiry, before any re-read: the badge, the countdown and the bar all say so.
  await expect(alice.page.getByTestId("status")).toHaveText("expired", { timeout: 30_000 });
  await expect(alice.page.getByTestId("countdown")).toHaveText("expired");
  await expect(alice.page.getByTestId("decision-time-left")).toHaveText("expired");
  await expect(alice.page.getByRole("button", { name: "Approve", exact: true })).toBeDisabled();
  // Then the page is re-read: the server's state, the result panel.
  await expect(alice.page.getByTestId("decision-result")).toContainText("Expired with 1 of 2 approvals", { timeout: 15_000 });
  // The onlooker, who had no form to disable, follows too, without a reload.
  await expect(bob.page.getByTestId("status")).toHaveText("expired");
  await expect(bob.page.getByTestId("decision-result")).toContainText("You approved · expired with 1 of 2 approvals", { timeout: 15_000 });
  await expect(bob.page.getByTestId("countdown")).toHaveCount(0);
  await Promise.all([alice.context.close(), bob.context.close()]);
});

test("the queue says when requests the reviewer could have decided expired, and links to them", async ({ browser }) => {
  const { role, tool } = reviewTeam("exp", 1);
  const { slug, client } = service();
  const me = await reviewer(browser, [role], "ivy");
  const brief = await ask(client, { tool: tool("brief"), expires_in: 10 });
  const stays = await ask(client, { tool: tool("stays") });

  await openQueue(me.page, `?service=${slug}`);
  const can = canActSection(me.page);
  await expect(rowOf(can, brief.approval_id)).toBeVisible();
  await expect(me.page.getByTestId("recently-expired")).toHaveCount(0);
  // It expires while the queue is open: the row goes, and a note says so (live, no reload).
  await expect(rowOf(can, brief.approval_id)).toHaveCount(0, { timeout: 20_000 });
  const note = me.page.getByTestId("recently-expired");
  await expect(note).toHaveText("1 request you could have decided expired in the last hour without a decision. Show expired requests");
  await expect(rowOf(can, stays.approval_id)).toBeVisible();
  await note.getByRole("link", { name: "Show expired requests" }).click();
  await expect(me.page).toHaveURL(new RegExp(`[?&]status=expired`));
  await expect(me.page).toHaveURL(new RegExp(`[?&]service=${slug}`));
  await expect(me.page.locator(`article[data-approval-id="${brief.approval_id}"]`)).toBeVisible();
  await me.context.close();
});
