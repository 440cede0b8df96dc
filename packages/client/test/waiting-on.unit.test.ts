// The state answer's `waiting_on` (who may still decide a request, per role)
// as getApproval reads it from a real HTTP server: passed on when well formed,
// absent from older servers, and refused as an unexpected response when a
// count is not a whole number of at least zero.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CountersignClient } from "../src/index.js";
import { caught } from "./fake-countersign.js";

const STATE = {
  approval_id: "apr_1",
  status: "pending",
  run_id: "run_1",
  call_id: "c1",
  tool: "payments.refund",
  args_digest: `sha256:${"0".repeat(64)}`,
  expires_at: "2030-01-01T00:00:00.000Z",
  decided_at: null,
  decided_by: [],
  reviews: [],
  consumed: false,
  execution: null,
};

describe("waiting_on in the state answer", () => {
  let server: Server;
  let answer: Record<string, unknown> = STATE;
  let c: CountersignClient;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(answer));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const { port } = server.address() as AddressInfo;
    c = new CountersignClient({ baseUrl: `http://127.0.0.1:${port}`, serviceSlug: "svc", webhookSecret: "whsec_" + "a".repeat(43), apiToken: "t" });
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("passes the counts on, and leaves the field out when an older server does", async () => {
    answer = { ...STATE, waiting_on: [{ role: "payments", needed: 2, eligible: 3 }] };
    expect((await c.getApproval("apr_1")).waiting_on).toEqual([{ role: "payments", needed: 2, eligible: 3 }]);
    answer = STATE;
    expect((await c.getApproval("apr_1")).waiting_on).toBeUndefined();
  });

  it("refuses a malformed waiting_on as an unexpected response", async () => {
    for (const waiting_on of [
      [{ role: "payments", needed: -1, eligible: 3 }],
      [{ role: "payments", needed: 1.5, eligible: 0 }],
      [{ needed: 1, eligible: 0 }],
      {},
    ]) {
      answer = { ...STATE, waiting_on };
      const error = await caught(c.getApproval("apr_1"));
      expect([error.code, error.status]).toEqual(["unexpected-response", 200]);
      expect(error.message).toContain("waiting_on");
    }
  });
});
