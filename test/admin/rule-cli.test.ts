// `rule list` and `rule revoke` on the admin command line (docs/standing-approvals.md),
// through its dispatcher in this process, on a real SQLite file: the list shows a standing
// approval with its pins in words, the revocation takes effect for the next
// request and is one audit event by "cli", and a second revocation or an
// unknown id is refused with nothing changed.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSecrets } from "@/lib/local-secrets";
import { useFreshDatabase } from "../helpers/databases";
import { adminInProcess as adminCli } from "../helpers/admin-cli";

describe("admin command line: rule list, rule revoke (sqlite)", () => {
  let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
  const secrets = generateSecrets();

  beforeAll(async () => {
    Object.assign(process.env, secrets);
    ctx = await useFreshDatabase("sqlite");
  });
  afterAll(async () => ctx?.close());

  it("lists a standing approval, revokes it for the next request, and refuses a second revocation or an unknown id", async () => {
    const f = await import("../helpers/fixtures");
    const { ingestApproval } = await import("@/lib/approvals/ingest-approval");
    const { approvalRequestedSchema } = await import("@/lib/approvals/schemas");
    const { proposeStanding } = await import("@/lib/standing/standing-approvals");
    const service = await f.makeService();
    const tool = `cli.pay.${f.uid()}`;
    const policy = await f.makePolicy({ tool, roles: ["payments"], quorum: 1 });
    await ctx.db.policy.update({ where: { id: policy.id }, data: { standingMaxTtlSeconds: 3600 } });
    const ana = await f.makeUser(["payments"]);
    const ask = async (amount: number) =>
      (
        await ingestApproval(
          service.auth,
          `msg_${randomUUID()}`,
          approvalRequestedSchema.parse({
            type: "approval.requested",
            data: { run_id: `run_${randomUUID()}`, call_id: "c1", tool, arguments: { account: "AC-1", amount } },
          }),
        )
      ).body;
    const first = await ask(5);
    // A quorum of one: active as proposed.
    const s = await proposeStanding(ana.id, {
      approvalId: first.approval_id,
      pins: [{ path: "/amount", op: "lte", value: 10 }],
      expiresInSeconds: 600,
      maxUses: 5,
      reason: "small amounts",
    });
    expect((await ask(7)).status).toBe("approved");

    const listed = await adminCli(["rule", "list"]);
    expect(listed.code, listed.stderr).toBe(0);
    const rule = (JSON.parse(listed.stdout) as { rules: Array<Record<string, unknown>> }).rules.find((r) => r.id === s.id);
    expect(rule).toMatchObject({
      tool,
      pins: [
        "0 ≤ /amount ≤ 10",
        "Everything else must be exactly as in the request it came from: the same keys, the same types, lists of the same length. Free: /account (any text).",
      ],
      status: "active",
      approved_by: [ana.email],
      uses: 1,
      max_uses: 5,
    });
    expect(rule!.last_used_at).not.toBeNull();

    const revoked = await adminCli(["rule", "revoke", "--id", s.id]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: s.id, status: "revoked" });
    expect((await ask(7)).status).toBe("pending");

    const [again, unknown] = await Promise.all([adminCli(["rule", "revoke", "--id", s.id]), adminCli(["rule", "revoke", "--id", "sta_nosuchrule"])]);
    expect(again).toMatchObject({ code: 1, stdout: "" });
    expect(again.stderr).toContain("error: already-decided");
    expect(unknown).toMatchObject({ code: 1, stdout: "" });
    expect(unknown.stderr).toContain("error: not-found");
    const events = await ctx.db.auditEvent.findMany({ where: { type: "standing.revoked" } });
    expect(events.map((e) => [e.actor, JSON.parse(e.data)])).toEqual([["cli", { standing: s.id, uses: 1 }]]);
  }, 180_000);
});
