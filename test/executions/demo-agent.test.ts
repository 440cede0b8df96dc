// `npm run demo:agent` against the running app, as a user tries it: it says
// how long each request lives, consumes each decision once, and reports the
// approved call's execution (digest only), so the request does not show up
// as unreported; credentials another instance does not know are explained.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import { entryPointArgs } from "../helpers/entry-points";

type Agent = { done: Promise<number>; output: () => string };

function startAgent(env: Record<string, string>): Agent {
  const child = spawn(process.execPath, entryPointArgs("demo-agent"), { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  return { done: new Promise((r) => child.once("exit", (code) => r(code ?? 1))), output: () => out };
}

const app = appFor("sqlite");

describe.runIf(app)("demo agent", () => {
  it("says how long its requests live, and reports the execution of what was approved", async () => {
    const f = await import("../helpers/fixtures");
    const { recordReview } = await import("@/lib/reviews/record-review");
    const { db } = await import("@/lib/db/client");
    const svc = await f.makeService();
    const role = `demo-${f.uid()}`;
    const reviewer = await f.makeUser([role]);
    for (const tool of ["payments.pay", "email.send"]) await f.makePolicy({ tool, roles: [role], quorum: 1, ttlSeconds: 3600, service: svc.slug });

    const agent = startAgent({
      COUNTERSIGN_URL: app!.baseUrl,
      COUNTERSIGN_SLUG: svc.slug,
      COUNTERSIGN_WEBHOOK_SECRET: svc.webhook_secret,
      COUNTERSIGN_API_TOKEN: svc.api_token,
    });
    // The reviewer approves the payment and denies the email, each as it arrives.
    const decide = async (tool: string, decision: "approve" | "deny") => {
      for (let i = 0; i < 300; i++) {
        const a = await db().approval.findFirst({ where: { serviceId: svc.auth.id, tool, status: "pending" } });
        if (a) return recordReview(reviewer.id, { approvalId: a.id, decision, reason: decision === "deny" ? "not today" : undefined });
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`no ${tool} request arrived:\n${agent.output()}`);
    };
    await decide("payments.pay", "approve");
    await decide("email.send", "deny");
    expect(await agent.done, agent.output()).toBe(0);

    const out = agent.output();
    expect(out).toMatch(/requested payments\.pay: http:\/\/\S+\/approvals\/apr_/);
    expect(out).toMatch(/the request expires in (59|60) minutes \(at \d\d:\d\d/);
    expect(out).toContain("approved by");
    expect(out).toMatch(/reported: succeeded \(result digest sha256:[0-9a-f]{64}\)/);
    expect(out).toContain("denied by");

    const pay = await db().approval.findFirstOrThrow({ where: { serviceId: svc.auth.id, tool: "payments.pay" } });
    const email = await db().approval.findFirstOrThrow({ where: { serviceId: svc.auth.id, tool: "email.send" } });
    expect(pay).toMatchObject({ status: "approved", executionStatus: "succeeded" });
    expect(pay.resultDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(pay.consumedAt).not.toBeNull();
    expect(email).toMatchObject({ status: "denied", executionStatus: null });
  });

  it("explains a signature the server refuses: the credentials belong to another instance", async () => {
    const f = await import("../helpers/fixtures");
    const svc = await f.makeService();
    const other = await f.makeService();
    const agent = startAgent({
      COUNTERSIGN_URL: app!.baseUrl,
      COUNTERSIGN_SLUG: svc.slug,
      COUNTERSIGN_WEBHOOK_SECRET: other.webhook_secret,
      COUNTERSIGN_API_TOKEN: svc.api_token,
    });
    expect(await agent.done).toBe(1);
    expect(agent.output()).toContain(
      `demo agent: ${app!.baseUrl} refused the demo service's signature: the credentials from the environment belong to another Countersign instance.`,
    );
    // Nothing was stored for the refused request.
    const { db } = await import("@/lib/db/client");
    expect(await db().approval.count({ where: { serviceId: svc.auth.id } })).toBe(0);
  });
});
