// The Python approval port follows a revision against the live app: on a
// quorum-2 policy reviewer A answers with changes (the one proposal function,
// lib/revisions, on the app's database), the port applies them to its own
// arguments and asks again; A's approval is carried, reviewer B approves, and
// the port allows exactly the changed arguments, the secret untouched, with a
// receipt of the final request that verifies against the app's JWKS.
import { describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import { resultOf, runPortCheck } from "../helpers/python-port";

describe("Python approval port follows a revision (live, sqlite)", () => {
  const app = appFor("sqlite");

  it.runIf(app)("asks again with the proposed changes and allows only the changed call", async () => {
    const f = await import("../helpers/fixtures");
    const { proposeRevision } = await import("@/lib/revisions/propose-revision");
    const { recordReview } = await import("@/lib/reviews/record-review");
    const { db } = await import("@/lib/db/client");
    const { verifyReceipt } = await import("@countersign/client");
    const svc = await f.makeService();
    const tool = `payments.pyrev.${f.uid()}`;
    await f.makePolicy({ tool, roles: ["payments"], quorum: 2, service: svc.slug });
    const ana = await f.makeUser(["payments"]);
    const bo = await f.makeUser(["payments"]);
    const secret = `sk_live_${f.uid()}${f.uid()}${f.uid()}`;
    const requested: Array<Record<string, unknown>> = [];

    const events = await runPortCheck({
      python: "python3",
      script: "clients/python/live_revision_check.py",
      scenarios: [],
      service: svc,
      baseUrl: app!.baseUrl,
      env: { ...process.env, COUNTERSIGN_TOOL: tool, COUNTERSIGN_TEST_KEY: secret },
      onRequested: async (e) => {
        requested.push(e);
        const approvalId = String(e.approval_id);
        if (requested.length === 1) {
          await proposeRevision(ana.id, { approvalId, patch: [{ op: "replace", path: "/amount", value: 50 }], reason: "50 is enough" });
        } else {
          await recordReview(bo.id, { approvalId, decision: "approve", reason: "ok at 50" });
        }
      },
    });

    const result = resultOf(events, "revise");
    expect(result).toMatchObject({
      allowed: true,
      code: "approved",
      arguments: { account: "AC-1", amount: 50 },
      api_key_unchanged: true,
      original_unchanged: true,
    });
    expect(JSON.stringify(events)).not.toContain(secret);

    expect(requested).toHaveLength(2);
    expect(requested[1]).toMatchObject({ status: "pending", warnings: null });
    const [original, revision] = requested.map((e) => String(e.approval_id)) as [string, string];
    expect(result.approval_id).toBe(revision);
    expect(result.revisions).toEqual([
      {
        approval_id: original,
        call_id: "c1",
        proposal: { by: ana.email, reason: "50 is enough", at: expect.any(String) },
        patch: [{ op: "replace", path: "/amount", value: 50 }],
        receipt_jws: expect.any(String),
      },
    ]);

    const jwks = `${app!.baseUrl}/.well-known/jwks.json`;
    const receipt = await verifyReceipt(String(result.receipt_jws), jwks);
    expect(receipt).toMatchObject({
      approval_id: revision,
      service: svc.slug,
      call_id: "c1~rev1",
      tool,
      decision: "approved",
      decided_by: [ana.email, bo.email],
    });
    const revised = (result.revisions as Array<{ receipt_jws: string }>)[0]!;
    expect(await verifyReceipt(revised.receipt_jws, jwks)).toMatchObject({ approval_id: original, decision: "revised" });

    const row = await db().approval.findUniqueOrThrow({ where: { id: revision } });
    expect(row).toMatchObject({ revisesId: original, revisionMatch: true, callId: "c1~rev1", status: "approved" });
    expect(row.consumedAt).not.toBeNull();
  });
});
