// Revisions in the browser (docs/revisions.md): a reviewer proposes changes
// on the decision page (preview first), the request ends "revised", the
// executor consumes the patch, applies it to its own arguments and asks
// again; the revision shows its diff and links both ways, the proposer's
// approval counts, a second reviewer completes it, and the executor runs
// exactly the edited arguments. A redacted value cannot be edited, and a
// resubmission that changed a hidden value carries a warning.
import { expect, test } from "@playwright/test";
import { applyJsonPatch } from "@countersign/client";
import { tag } from "./helpers";
import { reviewer, reviewsOf, service, reviewTeam } from "./review-helpers";

test.describe.configure({ timeout: 180_000 });

test.beforeAll(async ({ request }) => {
  await request.get("/signin");
});

test("propose changes → revised → the executor resubmits → the proposer counts → a second approval → the edited call runs", async ({ browser }) => {
  const { role, tool: toolNamed } = reviewTeam("revise", 2);
  const tool = toolNamed("pay");
  const { client } = service();
  const [alice, bob] = [await reviewer(browser, [role], "alice"), await reviewer(browser, [role], "bob")];
  const args = { account: "AC-1", amount: 500, notify: "carol@example.com" };
  const call = { run_id: `run_${tag()}`, call_id: "c1", tool, arguments: args };
  const first = await client.requestApproval(call);

  const page = alice.page;
  await page.goto(`/approvals/${first.approval_id}`);
  await page.getByText("Propose changes").click();
  // A redacted value cannot be changed: the server says so, and nothing is recorded.
  // A redacted value is not offered as a field; typed by hand, the server refuses it.
  await expect(page.getByLabel("Change 1: field").getByRole("option", { name: "notify" })).toHaveCount(0);
  await page.getByLabel("Change 1: field").selectOption({ label: "Another place (type its path)…" });
  await page.getByLabel("Change 1: path").fill("/notify");
  await page.getByLabel("Change 1: new value").fill("dave");
  await page.getByRole("button", { name: "Preview" }).click();
  await expect(page.getByTestId("proposal-message")).toContainText("a redacted value cannot be changed");

  await page.getByLabel("Change 1: field").selectOption({ label: "amount" });
  await expect(page.getByLabel("Change 1: path")).toHaveCount(0);
  await page.getByLabel("Change 1: new value").fill("50");
  // Read as words; the JSON Patch the agent receives is there too, folded.
  await expect(page.getByTestId("patch-summary")).toHaveText("Set amount to 50");
  await expect(page.getByTestId("patch-text")).toBeHidden();
  await page.getByText("As the agent receives them (JSON Patch)").click();
  await expect(page.getByTestId("patch-text")).toContainText('"path": "/amount"');
  await page.getByRole("button", { name: "Preview" }).click();
  await expect(page.getByTestId("proposal-preview")).toContainText('"amount": 50');
  await expect(page.getByTestId("proposal-preview")).toContainText("[redacted:email]");
  await page.getByLabel("Explain the changes").fill("50, not 500");
  await page.getByRole("button", { name: "Submit proposal" }).click();
  await expect(page.getByTestId("decision-result")).toContainText("You proposed changes: 50, not 500");
  await expect(page.getByTestId("status")).toHaveText("revised");
  await expect(page.getByTestId("proposal-changes")).toContainText("amount");
  await expect(page.getByTestId("proposal-changes")).not.toContainText("/amount");
  await expect(page.getByTestId("revised-as")).toContainText("Waiting for the agent");

  // The executor takes the patch and sends the changed call.
  const taken = await client.consume(first.approval_id, { run_id: call.run_id, call_id: "c1", tool, arguments: args, args_salt: first.args_salt });
  expect(taken).toMatchObject({ decision: "revised", patch: [{ op: "replace", path: "/amount", value: 50 }] });
  const edited = applyJsonPatch(args, taken.patch!) as Record<string, unknown>;
  const revisionCall = { ...call, call_id: "c1~rev1", arguments: edited, revises: first.approval_id };
  const revision = await client.requestApproval(revisionCall);
  expect(revision.status).toBe("pending");
  expect(reviewsOf(revision.approval_id)).toEqual([{ reviewerEmail: alice.user.email, decision: "approve" }]);

  // Links both ways, and the revision shows its diff against the original.
  await page.reload();
  await page.getByTestId("revised-as").getByRole("link", { name: "open the revision" }).click();
  await expect(page).toHaveURL(new RegExp(`/approvals/${revision.approval_id}$`));
  await expect(page.getByTestId("revision-matches")).toContainText(`${alice.user.email}'s approval counts toward it`);
  await expect(page.getByTestId("revision-diff")).toContainText("amount");
  await expect(page.getByTestId("revision-diff")).toContainText("500");
  await expect(page.getByTestId("revision-diff")).toContainText("50");
  await expect(page.getByTestId("decision-result")).toContainText("You approved · 1 of 2");

  await bob.page.goto(`/approvals/${revision.approval_id}`);
  await bob.page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(bob.page.getByTestId("decision-result")).toContainText(`Approved by you and ${alice.user.email}`);
  const done = await client.consume(revision.approval_id, { ...revisionCall, args_salt: revision.args_salt });
  expect(done).toMatchObject({ decision: "approved", decided_by: [alice.user.email, bob.user.email] });
  // What runs is exactly the edited arguments: the approved digest is theirs.
  expect(edited).toEqual({ account: "AC-1", amount: 50, notify: "carol@example.com" });
  await Promise.all([alice.context.close(), bob.context.close()]);
});

test("a resubmission that changed a hidden value is marked and credits nobody", async ({ browser }) => {
  const { role, tool: toolNamed } = reviewTeam("revise", 1);
  const tool = toolNamed("pay");
  const { client } = service();
  const alice = await reviewer(browser, [role], "alice");
  const args = { amount: 500, notify: "carol@example.com" };
  const call = { run_id: `run_${tag()}`, call_id: "c1", tool, arguments: args };
  const first = await client.requestApproval(call);

  await alice.page.goto(`/approvals/${first.approval_id}`);
  await alice.page.getByText("Propose changes").click();
  await alice.page.getByLabel("Change 1: field").selectOption({ label: "amount" });
  await alice.page.getByLabel("Change 1: new value").fill("5");
  await alice.page.getByLabel("Explain the changes").fill("smaller");
  await alice.page.getByRole("button", { name: "Submit proposal" }).click();
  await expect(alice.page.getByTestId("status")).toHaveText("revised");

  const sneaky = await client.requestApproval({
    ...call,
    call_id: "c1~rev1",
    arguments: { amount: 5, notify: "mallory@example.com" },
    revises: first.approval_id,
  });
  expect(sneaky).toMatchObject({ status: "pending", warnings: ["revision-differs"] });
  await alice.page.goto(`/approvals/${sneaky.approval_id}`);
  await expect(alice.page.getByTestId("revision-differs")).toContainText("/notify");
  await expect(alice.page.getByTestId("revision-differs")).not.toContainText("mallory");
  expect(reviewsOf(sneaky.approval_id)).toEqual([]);
  await expect(alice.page.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
  await alice.context.close();
});
