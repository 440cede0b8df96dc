// The routes agent services call are served by the custom server without
// Next.js's per-request machinery (lib/http/lean-routes.ts,
// scripts/server/lean-http.mjs). Over real HTTP against the running app:
// their answers carry every header Next.js gives the rest (the security
// headers, the request id), whatever the outcome; what the table does not
// match is still Next's to answer. The executor, webhook and hardening
// suites check what the routes answer.
import { randomBytes } from "node:crypto";
import { Agent, request } from "node:http";
import { describe, expect, it } from "vitest";
import { signWebhookHeaders } from "@countersign/client";
import { appFor } from "../helpers/app";

const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=()",
};

/** Next.js marks every answer it renders with its router's Vary header; the custom server's own answers have none. */
const fromNext = (r: Response) => (r.headers.get("vary") ?? "").includes("next-router-state-tree");

function expectHeaders(r: Response, what: string) {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(r.headers.get(name), `${what}: ${name}`).toBe(value);
  expect(r.headers.get("x-request-id"), what).toMatch(/^req_[0-9a-f-]{36}$/);
  expect(r.headers.get("cache-control"), what).toBe("no-store");
  expect(r.headers.get("content-type"), what).toBe("application/json; charset=utf-8");
  expect(Number(r.headers.get("content-length")), what).toBeGreaterThan(0);
}

const app = appFor("sqlite");
describe.runIf(app)("the agents' routes, served without Next.js", () => {
  const base = app?.baseUrl ?? "";

  it("answer with the security headers and a request id, accepted or refused; other routes are still Next's", async () => {
    const { createService } = await import("@/lib/services/manage-services");
    const svc = await createService({ slug: `lean-${randomBytes(3).toString("hex")}` }, "cli");
    const body = JSON.stringify({
      type: "approval.requested",
      data: { run_id: "run-lean", call_id: "c1", tool: "payments.refund", arguments: { amount: 1 } },
    });
    const accepted = await fetch(`${base}/api/v1/webhooks/${svc.slug}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...signWebhookHeaders({ secret: svc.webhook_secret, body }) },
      body,
    });
    expect(accepted.status).toBe(201);
    expectHeaders(accepted, "accepted webhook");
    expect(fromNext(accepted)).toBe(false);
    const { approval_id: id } = (await accepted.json()) as { approval_id: string };

    const bearer = { authorization: `Bearer ${svc.api_token}`, "content-type": "application/json" };
    const state = await fetch(`${base}/api/v1/approvals/${id}`, { headers: bearer });
    expect(state.status).toBe(200);
    expectHeaders(state, "state");
    expect(fromNext(state)).toBe(false);
    expect(await state.json()).toMatchObject({ approval_id: id, status: "pending" });

    const refused: Array<[string, string, RequestInit]> = [
      ["POST", `/api/v1/webhooks/${svc.slug}`, { body, headers: { "content-type": "application/json" } }],
      ["GET", `/api/v1/approvals/${id}`, {}],
      ["POST", `/api/v1/approvals/${id}/consume`, { body: "{}" }],
      ["POST", `/api/v1/approvals/${id}/result`, { body: "{}" }],
      ["POST", `/api/v1/approvals/${id}/cancel`, {}],
    ];
    for (const [method, path, init] of refused) {
      const r = await fetch(`${base}${path}`, { method, ...init });
      expect(r.status, `${method} ${path}`).toBe(401);
      expectHeaders(r, `${method} ${path}`);
      expect(fromNext(r), `${method} ${path}`).toBe(false);
    }

    // A wrong method, a trailing slash and every other route: Next's, as before.
    const wrongMethod = await fetch(`${base}/api/v1/webhooks/${svc.slug}`);
    expect(wrongMethod.status).toBe(405);
    const slash = await fetch(`${base}/api/v1/approvals/${id}/`, { headers: bearer, redirect: "manual" });
    expect(slash.status).toBe(308);
    const health = await fetch(`${base}/api/health`);
    expect(health.status).toBe(200);
    expect(fromNext(health)).toBe(true);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(health.headers.get(name)).toBe(value);
  });

  it("answers the next request on a kept-alive connection after a refusal that left the body unread", async () => {
    // One socket, kept alive: every request below goes over the same connection.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, body?: Buffer, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; socket: unknown }>((resolve, reject) => {
        const req = request(`${base}${path}`, { method, agent, headers, timeout: 20_000 }, (res) => {
          res.resume();
          res.on("end", () => resolve({ status: res.statusCode ?? 0, socket: req.socket }));
        });
        req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer in 20 s`)));
        req.on("error", reject);
        req.end(body);
      });
    try {
      // 401 before the body is read (no token), and 413 part way through a body over the limit.
      const big = Buffer.alloc(1024 * 1024, "x");
      const refusedEarly = await send("POST", "/api/v1/approvals/apr_x/consume", big, { "content-type": "application/json" });
      expect(refusedEarly.status).toBe(401);
      const next = await send("GET", "/api/health");
      expect(next.status).toBe(200);
      expect(next.socket).toBe(refusedEarly.socket);
      const tooLarge = await send("POST", "/api/v1/webhooks/no-such-service", big, { "content-type": "application/json" });
      expect(tooLarge.status).toBe(413);
      const after = await send("POST", "/api/v1/approvals/apr_x/cancel");
      expect(after.status).toBe(401);
    } finally {
      agent.destroy();
    }
  });
});
