// The MCP gateway with a reviewer deciding in Chromium: an official SDK
// Client calls tools through the gateway (in-process), which asks the e2e app
// through a real ApprovalPort and fronts a real SDK server over Streamable
// HTTP. Approved in the queue by two reviewers (the seeded payments.* policy
// wants two) → the tool runs once with the approved arguments; denied with a reason on the request page → the MCP client gets
// an error result carrying that reason, and the tool never runs.
import { expect, test } from "@playwright/test";
import { ApprovalPort, type RequestedApproval } from "@countersign/client";
import { connectDownstream, createGateway } from "@countersign/mcp-gateway";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Invocation } from "../packages/mcp-gateway/test/fixtures/downstream";
import { startHttpDownstream } from "../packages/mcp-gateway/test/fixtures/http-downstream";
import { newService } from "./helpers";
import { canActSection, openQueue, reviewer, rowOf } from "./review-helpers";

test.describe.configure({ timeout: 180_000 });

test("reviewers approve in Chromium and the call runs once; a denial with a reason reaches the MCP client", async ({ browser }) => {
  const invoked: Invocation[] = [];
  const http = await startHttpDownstream((call) => invoked.push(call));
  const downstream = await connectDownstream({ url: http.url });
  const { slug, client: countersign } = newService("e2e-mcp");
  const requests: RequestedApproval[] = [];
  const port = new ApprovalPort(countersign, { timeoutMs: 150_000, onRequest: (created) => requests.push(created) });
  const gateway = createGateway({ port, downstream, progressIntervalMs: 1000 });
  const [gatewaySide, clientSide] = InMemoryTransport.createLinkedPair();
  await gateway.connect(gatewaySide);
  const agent = new Client({ name: "e2e-agent", version: "1.0.0" });
  await agent.connect(clientSide);
  const r = await reviewer(browser, ["reviewer"], "mcp");
  const second = await reviewer(browser, ["reviewer"], "mcp-second");
  // The SDK client's own timeout restarts with each progress notification the gateway sends while waiting.
  let progressSeen = 0;
  const waiting = { onprogress: () => void progressSeen++, resetTimeoutOnProgress: true, timeout: 30_000 };
  const nextRequest = async (n: number) => {
    await expect.poll(() => requests.length, { timeout: 30_000 }).toBe(n);
    return requests[n - 1]!;
  };

  try {
    // Approve from the queue.
    const refund = agent.callTool({ name: "payments.refund", arguments: { order: "E2E-1", amount: 42 } }, undefined, waiting);
    const first = await nextRequest(1);
    await openQueue(r.page, `?service=${slug}`);
    await rowOf(canActSection(r.page), first.approval_id).getByRole("link", { name: "payments.refund" }).click();
    await expect(r.page.getByRole("heading", { level: 1, name: "payments.refund" })).toBeVisible();
    await expect(r.page.getByText(first.args_digest, { exact: true })).toBeVisible();
    expect(invoked).toEqual([]); // nothing ran while the reviewer looked
    // destructiveHint on the MCP tool made the request destructive: approving takes a confirmation.
    await r.page.getByRole("button", { name: "Approve", exact: true }).click();
    await expect(r.page.getByRole("main").getByRole("alert")).toContainText("This call is destructive and cannot be undone.");
    await r.page.getByRole("button", { name: "Confirm approve" }).click();
    // The e2e app's seeded policy wants two approvers for payments.*: one is not enough to run anything.
    await expect(r.page.getByTestId("decision-result")).toContainText("You approved · 1 of 2");
    await expect.poll(() => progressSeen, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(invoked).toEqual([]);
    await second.page.goto(`/approvals/${first.approval_id}`);
    await second.page.getByRole("button", { name: "Approve", exact: true }).click();
    await second.page.getByRole("button", { name: "Confirm approve" }).click();
    await expect(second.page.getByTestId("status")).toHaveText("approved");
    const approved = await refund;
    expect(approved.isError).toBeFalsy();
    expect(approved.content).toEqual([{ type: "text", text: "refunded 42 on E2E-1" }]);
    expect(invoked).toEqual([{ tool: "payments.refund", args: { order: "E2E-1", amount: 42 } }]);

    // Deny with a reason on the request page.
    const email = agent.callTool({ name: "email.send", arguments: { to: "all-staff@example.com", subject: "Bonus" } }, undefined, waiting);
    const denial = await nextRequest(2);
    await r.page.goto(`/approvals/${denial.approval_id}`);
    await r.page.getByLabel("Reason").fill("Not to all staff");
    await r.page.getByRole("button", { name: "Deny" }).click();
    await expect(r.page.getByTestId("status")).toHaveText("denied");
    const denied = await email;
    expect(denied.isError).toBe(true);
    expect(denied.content).toEqual([{ type: "text", text: 'Countersign denied this call: Not to all staff. The tool "email.send" was not run.' }]);
    expect(invoked.map((i) => i.tool)).toEqual(["payments.refund"]);
    expect(await countersign.getApproval(denial.approval_id)).toMatchObject({ status: "denied", consumed: true, decided_by: [r.user.email] });
  } finally {
    await agent.close();
    await gateway.close();
    await downstream.close();
    await http.close();
    await r.context.close();
    await second.context.close();
  }
});
