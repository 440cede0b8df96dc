// The decision page walks the list it was opened from (issue 36): Previous,
// Next, "Approve & next" and the link back keep the queue's filters and order;
// and the decision bar shows the four-eyes progress and the time left,
// following another reviewer's vote without a reload.
import { expect, test, type Page } from "@playwright/test";
import { ask, canActSection, openQueue, reviewer, rowOf, service, reviewTeam } from "./review-helpers";

test.describe.configure({ timeout: 180_000 });

test.beforeAll(async ({ request }) => {
  await request.get("/signin");
});

const approve = (page: Page, name = "Approve") => page.getByRole("button", { name, exact: true });

test("Next and Approve & next follow the queue's filter and order", async ({ browser }) => {
  const { role, tool } = reviewTeam("next", 1);
  const { client } = service();
  const me = await reviewer(browser, [role], "nia");
  // Created in this order; by expiry: drop (10 min), soon (15), read (20), late (50).
  const late = await ask(client, { tool: tool("late"), effects: "write", expires_in: 3000 });
  const drop = await ask(client, { tool: tool("drop"), effects: "destructive", expires_in: 600 });
  const soon = await ask(client, { tool: tool("soon"), effects: "write", expires_in: 900 });
  await ask(client, { tool: tool("read"), effects: "read", expires_in: 1200 });

  const query = "?effects=write&order=expiring";
  await openQueue(me.page, query);
  const can = canActSection(me.page);
  await expect(can.getByTestId("row-tool")).toHaveText([tool("soon"), tool("late")]);
  await rowOf(can, soon.approval_id).getByTestId("row-tool").click();
  await expect(me.page).toHaveURL(`/approvals/${soon.approval_id}${query}`);

  // Next is the next write request by expiry, not the destructive one created between them.
  const nav = me.page.getByRole("navigation", { name: "Requests needing your review" });
  await expect(nav.getByRole("link", { name: "Next →" })).toHaveAttribute("href", `/approvals/${late.approval_id}${query}`);
  await expect(nav.getByText("No previous")).toBeVisible();
  await expect(nav.getByRole("link", { name: "Queue" })).toHaveAttribute("href", `/approvals${query}`);

  await approve(me.page, "Approve & next").click();
  await expect(me.page).toHaveURL(`/approvals/${late.approval_id}${query}`);
  await expect(me.page.getByRole("heading", { level: 1, name: tool("late") })).toBeVisible();
  // The last one of the filtered list: nothing next; after it, back to the same filtered queue.
  await expect(nav.getByText("No next")).toBeVisible();
  await approve(me.page).click();
  await expect(me.page.getByTestId("decision-result").getByRole("link", { name: "Back to the queue" })).toHaveAttribute("href", `/approvals${query}`);

  // Without a query the default order (oldest first) still walks every request.
  await me.page.goto(`/approvals/${drop.approval_id}`);
  await expect(nav.getByText("No previous")).toBeVisible();
  await expect(nav.getByText("No next")).toHaveCount(0);
  await me.context.close();
});

test("the bar shows four-eyes progress and time left, and follows the other reviewer's vote live", async ({ browser }) => {
  const { role, tool } = reviewTeam("next", 2);
  const { client } = service();
  const phone = { width: 390, height: 844 };
  const [alice, bob] = [await reviewer(browser, [role], "alice", phone), await reviewer(browser, [role], "bob")];
  const created = await ask(client, { tool: tool("pay"), expires_in: 1800 });

  await alice.page.goto(`/approvals/${created.approval_id}`);
  await expect(alice.page.getByTestId("live-status")).toHaveAttribute("data-state", "live", { timeout: 10_000 });
  const progress = alice.page.getByTestId("decision-progress");
  await expect(progress).toHaveText(/^0 of 2 approvals — your approval makes it 1 of 2 · expires in (29|30) min( \d+ s)?$/);
  await expect(progress).toBeInViewport();
  await expect(alice.page.getByTestId("decision-time-left")).toBeInViewport();

  await bob.page.goto(`/approvals/${created.approval_id}`);
  await expect(bob.page.getByTestId("decision-progress")).toContainText("0 of 2 approvals — your approval makes it 1 of 2");
  await approve(bob.page).click();
  await expect(bob.page.getByTestId("decision-result")).toContainText("You approved · 1 of 2");

  // Alice never reloads: her bar now says her approval completes it.
  await expect(progress).toContainText("1 of 2 approvals — your approval completes it · expires in");
  await expect(alice.page.getByTestId("glance-progress")).toContainText("1 of 2 approvals — your approval completes it");
  await approve(alice.page).click();
  await expect(alice.page.getByTestId("decision-result")).toContainText(`Approved by you and ${bob.user.email}`);
  await expect(progress).toHaveCount(0);
  await Promise.all([alice.context.close(), bob.context.close()]);
});
