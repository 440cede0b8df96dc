// Run review in the browser (docs/revisions.md): the queue groups a run's
// requests and links to the run's page, which lists them pending first with
// digest and arguments, says which are left out and why, and decides the
// rest with one press: one vote per request, all or none.
import { randomUUID } from "node:crypto";
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { adminCli, tag } from "./helpers";
import { canActSection, openQueue, reviewer, reviewsOf, saveScreens, service } from "./review-helpers";

test.describe.configure({ timeout: 180_000 });

test.beforeAll(async ({ request }) => {
  await request.get("/signin");
});

test("a run's requests: grouped in the queue, reviewed together, the reviewer's own left out", async ({ browser }) => {
  const t = tag();
  const role = `runs-${t}`;
  const prefix = `e2e.run${t}`;
  adminCli(["policy", "set", "--anyway", "--name", `e2e-run-${t}`, "--tool", `${prefix}.*`, "--roles", role, "--quorum", "1", "--ttl", "86400"]);
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
  // The calls are read first: Approve all / Deny all come after the last of them, and the top says where they are.
  await expect(alice.page.getByTestId("run-batch-hint")).toHaveText(
    "The 2 calls you may decide are listed below; Approve all / Deny all come after them.",
  );
  const lastCall = (await alice.page.getByTestId("run-request").last().boundingBox())!;
  const batch = (await alice.page.getByRole("form", { name: "Decide the run" }).boundingBox())!;
  expect(batch.y).toBeGreaterThanOrEqual(lastCall.y + lastCall.height);
  await saveScreens(alice.page, "run", async (p) => {
    await expect(p.getByTestId("run-batch-hint")).toBeVisible();
    const { violations } = await new AxeBuilder({ page: p }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]).analyze();
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`)).toEqual([]);
  });

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

test("the run page shows each request's requester, summary and environment, and links to all of its arguments", async ({ browser }) => {
  const t = tag();
  const role = `runshow-${t}`;
  const prefix = `e2e.runshow${t}`;
  adminCli(["policy", "set", "--anyway", "--name", `e2e-runshow-${t}`, "--tool", `${prefix}.*`, "--roles", role, "--quorum", "1", "--ttl", "86400"]);
  const { slug, client } = service();
  const alice = await reviewer(browser, [role], "alice");
  const runId = `run_${randomUUID()}`;
  // Larger than the run page shows: it shows the start, and links to the request's page for the rest.
  const args = { note: "the start of a long note ".repeat(1_000), items: Array.from({ length: 500 }, (_, i) => ({ i })) };
  const a = await client.requestApproval({
    run_id: runId,
    call_id: "big",
    tool: `${prefix}.import`,
    arguments: args,
    requested_by: "agent-imports@example.com",
    summary: "Import the \u202Eorders\u202C of last week",
    environment: "staging",
  });

  await alice.page.goto(`/runs/${slug}/${runId}`);
  const request = alice.page.getByTestId("run-request");
  await expect(request.getByTestId("run-requested-by")).toHaveText("agent-imports@example.com");
  await expect(request.getByTestId("run-environment")).toHaveText("staging");
  // The agent's summary, its direction overrides shown as escapes, flagged.
  await expect(request.getByTestId("run-summary")).toContainText("Import the ⟨U+202E⟩orders⟨U+202C⟩ of last week");
  await expect(request.getByTestId("run-flagged")).toContainText("summary");
  await expect(alice.page.getByTestId("run-display-warning")).toContainText("Check carefully: 1 request of this run contains hidden");
  await expect(request.getByTestId("run-args")).toContainText("the start of a long note");
  const link = request.getByTestId("run-full-args");
  await expect(link).toContainText("All arguments (");
  await link.click();
  await expect(alice.page).toHaveURL(new RegExp(`/approvals/${a.approval_id}$`));
  await expect(alice.page.getByRole("heading", { level: 1 })).toContainText(`${prefix}.import`);
  await alice.context.close();
});

test("the run page has no two landmarks of one kind with the same name (axe landmark-unique)", async ({ browser }) => {
  const t = tag();
  const role = `runaxe-${t}`;
  const prefix = `e2e.runaxe${t}`;
  adminCli(["policy", "set", "--anyway", "--name", `e2e-runaxe-${t}`, "--tool", `${prefix}.*`, "--roles", role, "--quorum", "1", "--ttl", "86400"]);
  const { slug, client } = service();
  const bob = await reviewer(browser, [role], "bob");
  const runId = `run_${randomUUID()}`;
  for (const call of ["first", "second", "third"]) {
    await client.requestApproval({ run_id: runId, call_id: call, tool: `${prefix}.${call}`, arguments: { call, items: [1, 2, 3] } });
  }
  await bob.page.goto(`/runs/${slug}/${runId}`);
  await expect(bob.page.getByTestId("run-request")).toHaveCount(3);
  const { violations } = await new AxeBuilder({ page: bob.page }).withRules(["landmark-unique", "region", "landmark-one-main"]).analyze();
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`)).toEqual([]);
  await bob.context.close();
});
