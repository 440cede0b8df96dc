// Deciding requests in the browser (docs/architecture.md): four-eyes with two
// reviewers, the deny reason, the requester who may not review (in the page
// and against a replayed server action), and a cross-site replay. Every test
// makes its own users and service.
import { expect, test, type BrowserContext, type Locator, type Page } from "@playwright/test";
import { E2E } from "./config";
import { adminCli, tag } from "./helpers";
import { ask, canActSection, openQueue, reviewer, reviewsOf, rowOf, service, waitingSection } from "./review-helpers";

// Each test makes users and a service through the admin CLI (seconds each on a small machine).
test.describe.configure({ timeout: 180_000 });

// --------------------------------------------------- server action capture

type CapturedAction = { url: string; headers: Record<string, string>; body: Buffer };

/**
 * Clicks `button` and captures the server action POST it makes, which is
 * aborted: the capture is made but nothing reaches the server.
 */
async function captureAction(page: Page, button: Locator): Promise<CapturedAction> {
  let resolve!: (c: CapturedAction) => void;
  const captured = new Promise<CapturedAction>((r) => (resolve = r));
  await page.route(
    (url) => url.pathname.startsWith("/approvals/"),
    async (route) => {
      const req = route.request();
      const headers = await req.allHeaders();
      if (req.method() !== "POST" || !headers["next-action"]) return route.continue();
      const keep = ["next-action", "next-router-state-tree", "content-type", "accept", "origin"];
      resolve({
        url: req.url(),
        headers: Object.fromEntries(keep.filter((h) => headers[h] !== undefined).map((h) => [h, headers[h]!])),
        body: req.postDataBuffer() ?? Buffer.alloc(0),
      });
      await route.abort();
    },
  );
  await button.click();
  const action = await captured;
  await page.unrouteAll({ behavior: "ignoreErrors" });
  return action;
}

/** Sends a captured server action again, with the cookies of `context` (another user's session). */
async function replay(context: BrowserContext, action: CapturedAction, body: Buffer = action.body) {
  const res = await context.request.post(action.url, { headers: action.headers, data: body, maxRedirects: 0 });
  return { status: res.status(), text: await res.text() };
}

// ------------------------------------------------------------------ tests

test("the page says whom it waits on: per role, the people who can still decide it, and no one once decided", async ({ browser }) => {
  const t = tag();
  const role = `wo-${t}`;
  const tool = `e2e.waiting.${t}`;
  adminCli(["policy", "set", "--anyway", "--name", `e2e-waiting-${t}`, "--tool", tool, "--roles", role, "--quorum", "2", "--ttl", "3600"]);
  const { client } = service();
  const first = await reviewer(browser, [role], "first");
  const second = await reviewer(browser, [role], "second");
  const created = await ask(client, { tool });

  await first.page.goto(`/approvals/${created.approval_id}`);
  const waiting = first.page.getByTestId("waiting-on");
  await expect(waiting.getByRole("heading")).toHaveText("Waiting on 2 more approvals, from:");
  await expect(waiting.getByTestId("waiting-on-role")).toContainText(`${role} 2 can decide it now:`);
  await expect(waiting).toContainText(first.user.email);
  await expect(waiting).toContainText(second.user.email);

  await first.page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(first.page.getByTestId("decision-result")).toContainText("You approved · 1 of 2");
  await expect(waiting.getByRole("heading")).toHaveText("Waiting on 1 more approval, from:");
  await expect(waiting.getByTestId("waiting-on-role")).toContainText(`${role} 1 can decide it now:`);
  await expect(waiting).toContainText(second.user.email);
  await expect(waiting).not.toContainText(first.user.email);

  await second.page.goto(`/approvals/${created.approval_id}`);
  await second.page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(second.page.getByTestId("decision-result")).toContainText("Approved by you and");
  await expect(second.page.getByTestId("waiting-on")).toHaveCount(0);
  await Promise.all([first.context.close(), second.context.close()]);
});

test("four-eyes: the first approval leaves it pending, the second decides it, both listed in order", async ({ browser }) => {
  const t = tag();
  const tool = `e2e.four-eyes.${t}`;
  adminCli(["policy", "set", "--anyway", "--name", `e2e-four-eyes-${t}`, "--tool", tool, "--roles", "payments", "--quorum", "2", "--ttl", "3600"]);
  const { slug, client } = service();
  const first = await reviewer(browser, ["payments"], "first");
  const second = await reviewer(browser, ["payments"], "second");
  const created = await ask(client, { tool, summary: "Pay supplier invoice 7781" });

  // Reviewer 1: in their queue, then approves on the decision page.
  await openQueue(first.page, `?service=${slug}`);
  await rowOf(canActSection(first.page), created.approval_id).getByRole("link", { name: tool }).click();
  await expect(first.page.getByRole("heading", { level: 1, name: tool })).toBeVisible();
  await expect(first.page.getByText(created.args_digest, { exact: true })).toBeVisible();
  await first.page.getByRole("button", { name: "Approve", exact: true }).click();
  // The page re-renders from the server: the reviewer's own vote, one of two approvals, still pending, no second vote.
  await expect(first.page.getByTestId("decision-result")).toContainText("You approved · 1 of 2 · waiting for 1 more approval from payments");
  await expect(first.page.getByText(/1 of 2 so far/)).toBeVisible();
  await expect(first.page.getByTestId("status")).toHaveText("pending");
  await expect(first.page.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
  await first.page.reload();
  await expect(first.page.getByText(/1 of 2 so far/)).toBeVisible();
  await expect(first.page.getByTestId("decided-by")).toHaveCount(0);
  expect((await client.getApproval(created.approval_id)).status).toBe("pending");

  // In reviewer 1's queue it now waits on others; reviewer 2 still has it to act on.
  await openQueue(first.page, `?service=${slug}`);
  await expect(rowOf(waitingSection(first.page), created.approval_id)).toContainText("You approved; waiting for 1 more approval.");
  await openQueue(second.page, `?service=${slug}`);
  await expect(rowOf(canActSection(second.page), created.approval_id)).toContainText("1 of 2 approvals");

  // Reviewer 2 approves: decided, by both, in order.
  await second.page.goto(`/approvals/${created.approval_id}`);
  await second.page.getByLabel("Reason").fill("Matches the invoice");
  await second.page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(second.page.getByTestId("status")).toHaveText("approved");
  await second.page.reload();
  await expect(second.page.getByTestId("status")).toHaveText("approved");
  await expect(second.page.getByText(/2 of 2 so far/)).toBeVisible();
  await expect(second.page.getByTestId("decided-by")).toHaveText(`Decided by: ${first.user.email}, ${second.user.email}`);

  const state = await client.getApproval(created.approval_id);
  expect(state).toMatchObject({ status: "approved", decided_by: [first.user.email, second.user.email] });
  expect(reviewsOf(created.approval_id)).toEqual([
    { reviewerEmail: first.user.email, decision: "approve" },
    { reviewerEmail: second.user.email, decision: "approve" },
  ]);
  await Promise.all([first.context.close(), second.context.close()]);
});

test("a denial without a reason is refused, in the page and by the server", async ({ browser }) => {
  const { client } = service();
  const r = await reviewer(browser, ["reviewer"], "denier");
  const created = await ask(client, { tool: `e2e.deny.${tag()}` });

  await r.page.goto(`/approvals/${created.approval_id}`);
  await r.page.getByRole("button", { name: "Deny" }).click();
  await expect(r.page.getByRole("main").getByRole("alert")).toHaveText("A denial needs a reason.");
  // The field itself is focused, marked invalid and described by the message.
  const reasonField = r.page.getByLabel("Reason");
  await expect(reasonField).toBeFocused();
  await expect(reasonField).toHaveAttribute("aria-invalid", "true");
  await expect(reasonField).toHaveAccessibleDescription(/A denial needs a reason\./);
  await r.page.getByLabel("Reason").fill("   ");
  await r.page.getByRole("button", { name: "Deny" }).click();
  await expect(r.page.getByRole("main").getByRole("alert")).toHaveText("A denial needs a reason.");
  await expect(r.page.getByTestId("status")).toHaveText("pending");

  // Past the page's check: the same action with the reason emptied is refused by the server.
  const marker = `reason-${tag()}`;
  await r.page.getByLabel("Reason").fill(marker);
  await expect(reasonField).not.toHaveAttribute("aria-invalid", "true");
  const action = await captureAction(r.page, r.page.getByRole("button", { name: "Deny" }));
  expect(action.body.includes(marker)).toBe(true);
  const emptied = Buffer.from(action.body.toString("latin1").replace(marker, ""), "latin1");
  const answer = await replay(r.context, action, emptied);
  expect(answer.status).toBe(200);
  expect(answer.text).toContain("a denial needs a reason");
  expect((await client.getApproval(created.approval_id)).status).toBe("pending");
  expect(reviewsOf(created.approval_id)).toEqual([]);

  // With a reason it goes through.
  await r.page.goto(`/approvals/${created.approval_id}`);
  await r.page.getByLabel("Reason").fill("Wrong account");
  await r.page.getByRole("button", { name: "Deny" }).click();
  await expect(r.page.getByTestId("status")).toHaveText("denied");
  await expect(r.page.getByText("“Wrong account”")).toBeVisible();
  expect(await client.getApproval(created.approval_id)).toMatchObject({ status: "denied", decided_by: [r.user.email] });
  await r.context.close();
});

test("the requester cannot review their own request: no buttons, and a replayed action is refused", async ({ browser }) => {
  const { slug, client } = service();
  const requester = await reviewer(browser, ["reviewer"], "requester");
  const eligible = await reviewer(browser, ["reviewer"], "eligible");
  // requested_by as the agent sent it: other case, so the match must be case-insensitive.
  const created = await ask(client, { tool: `e2e.self.${tag()}`, requested_by: requester.user.email.toUpperCase() });

  // The page: no Approve/Deny, and why.
  await requester.page.goto(`/approvals/${created.approval_id}`);
  await expect(requester.page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(requester.page.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
  await expect(requester.page.getByRole("button", { name: "Deny" })).toHaveCount(0);
  await expect(requester.page.getByLabel("Reason")).toHaveCount(0);
  await expect(requester.page.getByTestId("why-not")).toHaveText("you requested this call, so you cannot review it");
  // The queue: waiting on others, with the same reason.
  await openQueue(requester.page, `?service=${slug}`);
  await expect(rowOf(canActSection(requester.page), created.approval_id)).toHaveCount(0);
  await expect(rowOf(waitingSection(requester.page), created.approval_id)).toContainText("You requested this call, so you cannot review it.");

  // The real server action, as an eligible reviewer's click sends it (captured, not delivered)…
  await eligible.page.goto(`/approvals/${created.approval_id}`);
  const action = await captureAction(eligible.page, eligible.page.getByRole("button", { name: "Approve", exact: true }));
  expect(action.headers["next-action"]).toMatch(/^[0-9a-f]{16,}$/i);
  expect(reviewsOf(created.approval_id)).toEqual([]);

  // …replayed with the requester's session: refused by the server.
  const refused = await replay(requester.context, action);
  expect(refused.status).toBe(200);
  expect(refused.text).toContain("you requested this call, so you cannot review it");
  expect(await client.getApproval(created.approval_id)).toMatchObject({ status: "pending", decided_by: [] });
  expect(reviewsOf(created.approval_id)).toEqual([]);
  await requester.page.goto(`/approvals/${created.approval_id}`);
  await expect(requester.page.getByText("No reviews yet.")).toBeVisible();

  // Control: the very same replay with the eligible reviewer's session is accepted,
  // so the refusal above was the server's rule, not a broken replay.
  const accepted = await replay(eligible.context, action);
  expect(accepted.status).toBe(200);
  expect(accepted.text).toContain("Request approved.");
  expect(await client.getApproval(created.approval_id)).toMatchObject({ status: "approved", decided_by: [eligible.user.email] });
  expect(reviewsOf(created.approval_id)).toEqual([{ reviewerEmail: eligible.user.email, decision: "approve" }]);
  await Promise.all([requester.context.close(), eligible.context.close()]);
});

test("a reviewer's real action replayed cross-site (foreign or missing Origin) changes nothing; same-site it works", async ({ browser }) => {
  const { client } = service();
  const eligible = await reviewer(browser, ["reviewer"], "csrf");
  const created = await ask(client, { tool: `e2e.csrf.${tag()}` });
  await eligible.page.goto(`/approvals/${created.approval_id}`);
  const action = await captureAction(eligible.page, eligible.page.getByRole("button", { name: "Approve", exact: true }));
  expect(action.headers.origin).toBe(new URL(E2E.appUrl).origin);

  // The victim's own session cookie rides along, as it would from a hostile page.
  const { origin: _sameSite, ...withoutOrigin } = action.headers;
  for (const headers of [{ ...withoutOrigin, origin: "https://evil.example" }, withoutOrigin]) {
    const res = await eligible.context.request.post(action.url, { headers, data: action.body, maxRedirects: 0 });
    expect(await res.text()).not.toContain("Request approved.");
    expect(reviewsOf(created.approval_id)).toEqual([]);
  }
  expect(await client.getApproval(created.approval_id)).toMatchObject({ status: "pending", decided_by: [] });

  // Control: the unchanged replay is accepted, so the refusals were the Origin rule.
  const accepted = await replay(eligible.context, action);
  expect(accepted.text).toContain("Request approved.");
  expect(reviewsOf(created.approval_id)).toEqual([{ reviewerEmail: eligible.user.email, decision: "approve" }]);
  await eligible.context.close();
});
