// The approval port runs nothing on a receipt that is expired or about
// another call, even when Countersign's key signed it (a server bug, a
// replayed receipt): the signature proves who said it, not that it is this call's.
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalPort } from "../src/index.js";
import { client, decide, fake, newCall, useFakeCountersign } from "./fake-countersign.js";

useFakeCountersign();

afterEach(() => {
  fake.receiptChange = undefined;
});

function approvingPort() {
  return new ApprovalPort(client(), {
    timeoutMs: 5000,
    jwks: { keys: [fake.publicJwk] },
    onRequest: (created) => decide(created.approval_id, "approved", ["bo@example.com"]),
  });
}

describe("ApprovalPort and receipts", () => {
  it("allows a call on a fresh receipt that names it", async () => {
    const verdict = await approvingPort().ask(newCall("payments.pay", { amount: 5 }));
    expect(verdict).toMatchObject({ allowed: true, code: "approved" });
    expect(verdict.receipt).toMatchObject({ tool: "payments.pay", decision: "approved", policy: { name: "default", version: 1 } });
  });

  it("refuses an expired receipt (past its exp and the 30 s tolerance)", async () => {
    fake.receiptChange = (p) => ({ ...p, iat: p.iat - 700, exp: p.iat - 31 });
    const verdict = await approvingPort().ask(newCall("payments.pay", { amount: 5 }));
    expect(verdict).toMatchObject({ allowed: false, code: "invalid-receipt" });
    expect(verdict.reason).toMatch(/expired at/);
    expect(verdict.arguments).toBeUndefined();
  });

  it("refuses a receipt whose binding differs from the call, naming the fields and not their values", async () => {
    for (const [field, change] of [
      ["call_id", { call_id: "c-other" }],
      ["tool", { tool: "payments.refund" }],
      ["args_digest", { args_digest: `sha256:${"0".repeat(64)}` }],
      ["run_id", { run_id: "run_other" }],
      ["approval_id", { approval_id: "apr_other" }],
      ["service", { service: "other-service" }],
      ["decision", { decision: "denied" as const }],
    ] as const) {
      fake.receiptChange = (p) => ({ ...p, ...change });
      const verdict = await approvingPort().ask(newCall("payments.pay", { amount: 5 }));
      expect(verdict, field).toMatchObject({ allowed: false, code: "binding-mismatch" });
      expect(verdict.reason).toContain(field);
      expect(verdict.reason).not.toContain(String(Object.values(change)[0]));
    }
  });
});
