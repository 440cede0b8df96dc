// The standard-library Python client against the live app: request → approve
// (with a reason) through the review function → wait → consume, which carries
// the vote → a second consume refused, with the receipt verified here against
// the app's JWKS.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";

describe("Python client (live, sqlite)", () => {
  const app = appFor("sqlite");

  it.runIf(app)("runs a whole approval and cannot consume twice", async () => {
    const f = await import("../helpers/fixtures");
    const { recordReview } = await import("@/lib/reviews/record-review");
    const { verifyReceipt } = await import("@countersign/client");
    const { argsDigest } = await import("@countersign/client");
    const svc = await f.makeService();
    const reviewer = await f.makeUser(["reviewer"]);

    const py = spawn("python3", ["clients/python/live_check.py"], {
      env: {
        ...process.env,
        COUNTERSIGN_URL: app!.baseUrl,
        COUNTERSIGN_SLUG: svc.slug,
        COUNTERSIGN_WEBHOOK_SECRET: svc.webhook_secret,
        COUNTERSIGN_API_TOKEN: svc.api_token,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    py.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const lines = createInterface({ input: py.stdout })[Symbol.asyncIterator]();
    const next = async () => {
      const r = await lines.next();
      if (r.done) throw new Error(`python exited early: ${stderr}`);
      return JSON.parse(r.value) as Record<string, unknown>;
    };

    const created = await next();
    await recordReview(reviewer.id, { approvalId: String(created.approval_id), decision: "approve", reason: "refund matches ticket 1234" });
    py.stdin.write("decided\n");
    const outcome = await next();
    const exitCode = await new Promise<number | null>((r) => py.on("exit", r));

    expect(exitCode, stderr).toBe(0);
    expect(outcome).toMatchObject({ status: "approved", decision: "approved", decided_by: [reviewer.email], second_consume: "already-consumed" });
    // The vote and its reason reach the Python executor, on the state and the consume answer.
    const votes = [{ by: reviewer.email, vote: "approve", reason: "refund matches ticket 1234", at: expect.any(String) }];
    expect(outcome.reviews).toEqual(votes);
    expect(outcome.state_reviews).toEqual(outcome.reviews);
    expect(outcome.denial_reason).toBeNull();
    // Python's salted RFC 8785 digest (docs/security.md) equals ours and the server's.
    const args = { account: "AC-7", amount: 42, memo: "refund order 1234", nested: { ok: true, n: null } };
    const salt = String(created.args_salt);
    expect(Buffer.from(salt, "base64url")).toHaveLength(32);
    expect(outcome.local_digest).toBe(argsDigest(args, salt));
    expect(created.args_digest).toBe(argsDigest(args, salt));
    expect(created.args_digest).not.toBe(argsDigest(args));
    const receipt = await verifyReceipt(String(outcome.receipt), `${app!.baseUrl}/.well-known/jwks.json`);
    expect(receipt).toMatchObject({ approval_id: created.approval_id, service: svc.slug, decision: "approved" });
  });
});
