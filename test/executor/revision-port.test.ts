// The TypeScript approval port follows a revision against the live app: on a
// quorum-2 policy reviewer A answers with changes (the one proposal function,
// lib/revisions, on the app's database), the port applies them to its own
// arguments and asks again; A's approval is carried, reviewer B approves, and
// the port allows exactly the changed arguments, the secret untouched, with a
// receipt of the final request that verifies against the app's JWKS.
import { describe, expect, it } from "vitest";
import type { RequestedApproval } from "@countersign/client";
import { appFor } from "../helpers/app";

describe("TypeScript approval port follows a revision (live, sqlite)", () => {
  const app = appFor("sqlite");

  it.runIf(app)("asks again with the proposed changes and allows only the changed call", async () => {
    const f = await import("../helpers/fixtures");
    const { proposeRevision } = await import("@/lib/revisions/propose-revision");
    const { recordReview } = await import("@/lib/reviews/record-review");
    const { db } = await import("@/lib/db/client");
    const { ApprovalPort, CountersignClient, verifyReceipt } = await import("@countersign/client");
    const svc = await f.makeService();
    const tool = `payments.rev.${f.uid()}`;
    await f.makePolicy({ tool, roles: ["payments"], quorum: 2, service: svc.slug });
    const ana = await f.makeUser(["payments"]);
    const bo = await f.makeUser(["payments"]);
    const client = new CountersignClient({
      baseUrl: app!.baseUrl,
      serviceSlug: svc.slug,
      webhookSecret: svc.webhook_secret,
      apiToken: svc.api_token,
    });

    const secret = `sk_live_${f.uid()}${f.uid()}${f.uid()}`;
    const args = { account: "AC-1", amount: 500, api_key: secret };
    const asked: RequestedApproval[] = [];
    const acted: Promise<unknown>[] = [];
    const port = new ApprovalPort(client, {
      timeoutMs: 30_000,
      onRequest: (created) => {
        asked.push(created);
        const approvalId = created.approval_id;
        if (asked.length === 1) {
          acted.push(proposeRevision(ana.id, { approvalId, patch: [{ op: "replace", path: "/amount", value: 50 }], reason: "50 is enough" }));
        } else {
          acted.push(recordReview(bo.id, { approvalId, decision: "approve", reason: "ok at 50" }));
        }
      },
    });

    const runId = `run-${f.uid()}`;
    const verdict = await port.ask({ run_id: runId, call_id: "c1", tool, arguments: args });
    await Promise.all(acted);

    expect(verdict).toMatchObject({ allowed: true, code: "approved" });
    if (!verdict.allowed) throw new Error(verdict.reason);
    expect(verdict.arguments).toEqual({ account: "AC-1", amount: 50, api_key: secret });
    expect(args.amount).toBe(500);

    // The revision arrived pending with A's approval carried (quorum 2), and no warning.
    expect(asked).toHaveLength(2);
    expect(asked[1]).toMatchObject({ status: "pending" });
    expect(asked[1]!.warnings).toBeUndefined();
    const [original, revision] = asked.map((a) => a.approval_id) as [string, string];
    expect(verdict.approvalId).toBe(revision);
    expect(verdict.reviews.map((r) => [r.by, r.vote])).toEqual([
      [ana.email, "approve"],
      [bo.email, "approve"],
    ]);
    expect(verdict.revisions).toEqual([
      expect.objectContaining({
        approvalId: original,
        callId: "c1",
        patch: [{ op: "replace", path: "/amount", value: 50 }],
        proposal: { by: ana.email, reason: "50 is enough", at: expect.any(String) },
      }),
    ]);

    const jwks = `${app!.baseUrl}/.well-known/jwks.json`;
    const receipt = await verifyReceipt(verdict.receiptJws, jwks);
    expect(receipt).toMatchObject({
      approval_id: revision,
      service: svc.slug,
      run_id: runId,
      call_id: "c1~rev1",
      tool,
      decision: "approved",
      decided_by: [ana.email, bo.email],
    });
    expect(await verifyReceipt(verdict.revisions[0]!.receiptJws, jwks)).toMatchObject({ approval_id: original, decision: "revised", call_id: "c1" });

    const row = await db().approval.findUniqueOrThrow({ where: { id: revision } });
    expect(row).toMatchObject({ revisesId: original, revisionMatch: true, callId: "c1~rev1", runId, status: "approved" });
    expect(row.consumedAt).not.toBeNull();
  });
});
