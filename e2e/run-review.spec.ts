// Run review in the browser (docs/revisions.md): the queue groups a run's
// requests and links to the run's page, which lists them pending first with
// digest and arguments, says which are left out and why, and decides the
// rest with one press: one vote per request, all or none.
import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { adminCli, tag } from "./helpers";
import { canActSection, openQueue, reviewer, reviewsOf, service } from "./review-helpers";

test.describe.configure({ timeout: 180_000 });

test.beforeAll(async ({ request }) => {
  await request.get("/signin");
});

test("a run's requests: grouped in the queue, reviewed together, the reviewer's own left out", async ({ browser }) => {
  const t = tag();
  const role = `runs-${t}`;
  const prefix = `e2e.run${t}`;
  adminCli(["policy", "set", "--name", `e2e-run-${t}`, "--tool", `${prefix}.*`, "--roles", role, "--quorum", "1", "--ttl", "86400"]);
  const { slug, client } = service();
  const alice = await reviewer(browser, [role], "alice");
  const runId = `run_${randomUUID()}`;
  const ask = (call: string, extra: { requested_by?: string } = {}) =>
    client.requestApproval({ run_id: runId, call_id: call, tool: `${prefix}.${call}`, arguments: { call, amount: 10 }, ...extra });
  const a = await ask("refund");
  const b = await ask("email");
  const own = await ask("own", { requested_by: alice.user.email });

  await openQueue(alice.page);
  const group = canActSection(alice.page).getByTestId("run-group");
  await expect(group).toContainText("2 calls of run");
  await group.getByRole("link", { name: "Review the run together" }).click();
  await expect(alice.page).toHaveURL(new RegExp(`/runs/${slug}/${runId}$`));
  await expect(alice.page.getByRole("heading", { level: 1 })).toContainText(runId);
  await expect(alice.page.getByTestId("run-request")).toHaveCount(3);
  await expect(alice.page.getByTestId("run-excluded")).toContainText("1 pending request is left out");
  await expect(alice.page.getByTestId("run-excluded-reason")).toContainText("you requested this call");
  await expect(alice.page.getByTestId("run-digest").first()).toHaveText(/^sha256:[0-9a-f]{64}$/);

  // Deny all asks for a reason first; nothing is sent without one.
  await alice.page.getByRole("button", { name: "Deny all 2" }).click();
  await expect(alice.page.getByTestId("run-batch-message")).toHaveText("Deny all needs a reason.");
  expect(reviewsOf(a.approval_id)).toEqual([]);

  await alice.page.getByRole("button", { name: "Approve all 2" }).click();
  await expect(alice.page.getByTestId("run-batch-message")).toContainText("recorded on 2 requests; 2 decided");
  await expect(alice.page.getByTestId("run-nothing-to-decide")).toBeVisible();
  for (const id of [a.approval_id, b.approval_id]) expect(reviewsOf(id)).toEqual([{ reviewerEmail: alice.user.email, decision: "approve" }]);
  expect(reviewsOf(own.approval_id)).toEqual([]);
  expect((await client.getApproval(a.approval_id)).status).toBe("approved");
  await alice.context.close();
});
