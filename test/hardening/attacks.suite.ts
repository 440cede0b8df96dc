// Hostile requests against the running app (issue: hardening): middleware-
// bypass tricks on protected pages and routes, hostile bodies, log-injection
// attempts, security headers. Every refusal leaves nothing stored.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";

const BYPASS_HEADERS: Array<Record<string, string>> = [
  {},
  { "x-middleware-subrequest": "middleware:middleware:middleware:middleware:middleware" },
  { "x-middleware-subrequest": "proxy:proxy:proxy:proxy:proxy" },
  { "x-middleware-subrequest": "src/middleware:src/middleware:src/middleware:src/middleware:src/middleware" },
  { RSC: "1" },
  { "Next-Router-Prefetch": "1" },
  { RSC: "1", "Next-Router-State-Tree": "%5B%22%22%2C%7B%7D%5D" },
  { "x-invoke-path": "/approvals", "x-invoke-query": "%7B%7D" },
];

export function attackSuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`hostile requests (${provider})`, () => {
    const base = app?.baseUrl ?? "";
    let f: typeof import("../helpers/fixtures");
    let db: import("@/lib/db/client").Db;
    let svc: Awaited<ReturnType<typeof f.makeService>>;
    let approval: { approval_id: string; args_digest: string };

    beforeAll(async () => {
      f = await import("../helpers/fixtures");
      db = (await import("@/lib/db/client")).db();
      svc = await f.makeService();
      approval = await f.makeApproval(svc, { tool: "secret.tool.name", arguments: { marker: "VISIBLE-ONLY-TO-REVIEWERS" } });
    });
    afterAll(async () => db?.$disconnect());

    const protectedPages = () => [
      "/approvals",
      `/approvals/${approval.approval_id}`,
      "/admin/users",
      "/admin/policies",
      "/admin/services",
      "/admin/audit",
      "/admin/executions",
      "/admin/insights",
      "/admin/insights/csv?chart=reviewers",
    ];

    it("never serves a protected page to an anonymous request, whatever the bypass trick", async () => {
      for (const path of protectedPages()) {
        for (const variant of [path, `${path}?_rsc=abc123`, `${path}.rsc`, `${path}/`]) {
          for (const headers of BYPASS_HEADERS) {
            const r = await fetch(`${base}${variant}`, { headers, redirect: "manual" });
            const body = await r.text();
            const where = `${variant} ${JSON.stringify(headers)} → ${r.status}`;
            expect([200, 500].includes(r.status) && body.includes("secret.tool.name"), where).toBe(false);
            expect(body.includes(approval.args_digest), where).toBe(false);
            expect(body.includes("VISIBLE-ONLY-TO-REVIEWERS"), where).toBe(false);
            expect(r.status, where).not.toBe(500);
            if (r.status >= 300 && r.status < 400) {
              // Next may first redirect an RSC request to a cache-busting URL of
              // the same page; following it must end at sign-in or a refusal.
              let location = r.headers.get("location") ?? "";
              let finalStatus = r.status;
              for (let hop = 0; hop < 3 && !/\/signin/.test(location) && finalStatus >= 300 && finalStatus < 400; hop++) {
                const next = await fetch(new URL(location, base), { headers, redirect: "manual" });
                const text = await next.text();
                expect(
                  ["VISIBLE-ONLY-TO-REVIEWERS", approval.args_digest, "secret.tool.name"].some((s) => text.includes(s)),
                  where,
                ).toBe(false);
                finalStatus = next.status;
                // An RSC answer carries the page's redirect() inside its payload.
                location = next.headers.get("location") ?? (/\/signin/.test(text) && next.status === 200 ? "/signin (in RSC payload)" : "");
              }
              expect(/\/signin/.test(location) || [401, 403, 404].includes(finalStatus), `${where} … ${finalStatus} ${location}`).toBe(true);
            }
          }
        }
      }
    });

    it("never answers the executor API without the right token, whatever the bypass trick", async () => {
      for (const headers of BYPASS_HEADERS) {
        const r = await fetch(`${base}/api/v1/approvals/${approval.approval_id}`, { headers });
        expect(r.status).toBe(401);
        const consume = await fetch(`${base}/api/v1/approvals/${approval.approval_id}/consume`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: "{}",
        });
        expect(consume.status).toBe(401);
        const result = await fetch(`${base}/api/v1/approvals/${approval.approval_id}/result`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: "{}",
        });
        expect(result.status).toBe(401);
      }
      expect((await db.approval.findUniqueOrThrow({ where: { id: approval.approval_id } })).consumedAt).toBeNull();
    });

    it("refuses a session-less server-action POST with a foreign or missing Origin", async () => {
      for (const origin of ["https://evil.example", null]) {
        const r = await fetch(`${base}/approvals/${approval.approval_id}`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "text/plain;charset=UTF-8", "next-action": "0".repeat(42), ...(origin ? { origin } : {}) },
          body: JSON.stringify([{ approvalId: approval.approval_id, decision: "approve" }]),
        });
        expect(r.status).not.toBe(200);
      }
      expect(await db.review.count({ where: { approvalId: approval.approval_id } })).toBe(0);
    });

    it("sets security headers: nonce CSP with frame-ancestors, nosniff, referrer policy", async () => {
      const r = await fetch(`${base}/signin`);
      const csp = r.headers.get("content-security-policy") ?? "";
      expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("unsafe-eval");
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
      expect(r.headers.get("referrer-policy")).toBe("same-origin");
      const html = await r.text();
      const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
      // Every inline script carries the nonce.
      for (const tag of html.match(/<script(?![^>]*\bsrc=)[^>]*>/g) ?? []) expect(tag).toContain(`nonce="${nonce}"`);
      const again = await fetch(`${base}/signin`);
      expect(again.headers.get("content-security-policy")).not.toBe(csp);
    });

    it("answers health and readiness", async () => {
      expect(await (await fetch(`${base}/api/health`)).json()).toEqual({ status: "ok" });
      const ready = await fetch(`${base}/api/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: "ready" });
    });

    describe("hostile webhook bodies", () => {
      const send = async (body: string | Uint8Array) => {
        const { signWebhook, unixNow } = await import("@countersign/client");
        const id = `msg_${randomUUID()}`;
        const ts = unixNow();
        const bytes = typeof body === "string" ? Buffer.from(body) : Buffer.from(body);
        const started = Date.now();
        const r = await fetch(`${base}/api/v1/webhooks/${svc.slug}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "webhook-id": id,
            "webhook-timestamp": String(ts),
            "webhook-signature": signWebhook({ secret: svc.webhook_secret, id, timestamp: ts, body: bytes }),
          },
          body: bytes,
        });
        return { status: r.status, body: (await r.json()) as Record<string, unknown>, ms: Date.now() - started };
      };
      const event = (data: Record<string, unknown>) =>
        JSON.stringify({ type: "approval.requested", data: { run_id: `r-${randomUUID()}`, call_id: "c1", tool: "x.y", arguments: {}, ...data } });
      const count = () => db.approval.count();

      it("refuses NUL bytes and newlines in ids, and NUL in summaries; newlines in summaries are text", async () => {
        const before = await count();
        for (const data of [{ run_id: "a\u0000b" }, { call_id: "line1\nline2" }, { run_id: "x\r\nforged: log" }, { summary: "a\u0000b" }]) {
          const r = await send(event(data));
          expect(r.status).toBe(422);
          expect(JSON.stringify(r.body)).not.toContain("forged");
        }
        expect(await count()).toBe(before);
        const ok = await send(event({ summary: "line one\nline two" }));
        expect(ok.status).toBe(201);
      });

      it("handles a key-flooded object within the size cap, and refuses a 1,000,000-key object by size", async () => {
        const keys = Object.fromEntries(Array.from({ length: 12_000 }, (_, i) => [`k${i}`, i]));
        const r = await send(event({ arguments: keys }));
        expect(r.status).toBe(201);
        const huge = `{"type":"approval.requested","data":{"arguments":{${Array.from({ length: 1_000_000 }, (_, i) => `"k${i}":0`).join(",")}}}}`;
        const before = await count();
        expect((await send(huge)).status).toBe(413);
        expect(await count()).toBe(before);
      });

      it("redacts a ReDoS-shaped argument in bounded time", async () => {
        const nasty = "a@".repeat(30_000) + "-----BEGIN " + "a".repeat(50_000) + " 4111".repeat(5_000);
        const r = await send(event({ arguments: { note: nasty } }));
        expect(r.status).toBe(201);
        expect(r.ms).toBeLessThan(5_000);
      });
    });
  });
}
