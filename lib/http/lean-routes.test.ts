import { describe, expect, it } from "vitest";
import { leanDispatcher, machineRoute } from "./lean-routes";

/** A handler that answers with what it was given: its params, method and body. */
const echo = (name: string) =>
  machineRoute<Record<string, string>>("POST", "/", async (req, ctx) =>
    Response.json({ name, params: await ctx.params, method: req.method, body: req.body ? await req.text() : null }),
  ).handler;

const dispatch = leanDispatcher([
  machineRoute("POST", "/api/v1/webhooks/[slug]", echo("webhook")),
  machineRoute("GET", "/api/v1/approvals/[id]", echo("state")),
  machineRoute("POST", "/api/v1/approvals/[id]/consume", echo("consume")),
]);

async function answer(method: string, path: string, body?: string) {
  const handler = dispatch(method, path);
  if (!handler) return null;
  const res = await handler(new Request(`http://localhost${path}`, { method, body }));
  return (await res.json()) as { name: string; params: Record<string, string>; method: string; body: string | null };
}

describe("the agents' routes served without Next.js: which requests the table takes", () => {
  it("finds the route by method and path, with its params decoded and the request passed on whole", async () => {
    expect(await answer("POST", "/api/v1/webhooks/billing-agent", '{"a":1}')).toEqual({
      name: "webhook",
      params: { slug: "billing-agent" },
      method: "POST",
      body: '{"a":1}',
    });
    expect(await answer("GET", "/api/v1/approvals/apr_1")).toMatchObject({ name: "state", params: { id: "apr_1" } });
    expect(await answer("POST", "/api/v1/approvals/apr%5F2/consume", "{}")).toMatchObject({ name: "consume", params: { id: "apr_2" } });
  });

  it("leaves to Next.js what it does not match exactly: another method, a trailing slash, an empty or undecodable segment, a longer path", () => {
    for (const [method, path] of [
      ["GET", "/api/v1/webhooks/billing-agent"], // Next answers 405
      ["HEAD", "/api/v1/approvals/apr_1"],
      ["OPTIONS", "/api/v1/approvals/apr_1"],
      ["GET", "/api/v1/approvals/apr_1/"], // Next redirects
      ["GET", "/api/v1/approvals/"],
      ["POST", "/api/v1/approvals//consume"],
      ["GET", "/api/v1/approvals/%E0%A4%A"],
      ["POST", "/api/v1/approvals/apr_1/consume/again"],
      ["GET", "/api/v1/approvals"],
      ["GET", "api/v1/approvals/apr_1"],
      ["POST", "/api/v1/webhooks/a/b"],
    ] as const) {
      expect(dispatch(method, path), `${method} ${path}`).toBeNull();
    }
  });
});
