// The OpenAPI description covers every route and error code of docs/api.md,
// with each error under the status the app really answers it with.
import { describe, expect, it } from "vitest";
import { buildOpenApi, CONTRACT_ERROR_CODES } from "@/lib/openapi/build-openapi";
import { ERROR_STATUS } from "@/lib/errors";
import { appFor } from "../helpers/app";

describe("OpenAPI description", () => {
  const doc = buildOpenApi("http://localhost:3000");
  const text = JSON.stringify(doc);

  it("describes every route of the contract", () => {
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/.well-known/jwks.json",
      "/api/v1/approvals/{approval_id}",
      "/api/v1/approvals/{approval_id}/cancel",
      "/api/v1/approvals/{approval_id}/consume",
      "/api/v1/approvals/{approval_id}/result",
      "/api/v1/reviewers/{email}/passkeys",
      "/api/v1/webhooks/{service_slug}",
    ]);
    expect(Object.keys(doc.webhooks)).toEqual(["approval.decided", "approval.executed"]);
  });

  it("names every error code under the status the code maps to", () => {
    for (const code of CONTRACT_ERROR_CODES) {
      expect(text).toContain(`"${code}"`);
      const status = String(ERROR_STATUS[code]);
      const listed = Object.values(doc.paths).some((p) =>
        Object.values(p).some((op) => JSON.stringify((op.responses as Record<string, unknown>)[status] ?? {}).includes(`"${code}"`)),
      );
      expect(listed, `${code} under ${status}`).toBe(true);
    }
  });

  it("carries the webhook body schema generated from the route's zod schema", () => {
    const body: unknown = doc.paths["/api/v1/webhooks/{service_slug}"].post.requestBody.content["application/json"].schema;
    expect(body).toMatchObject({ properties: { data: { required: expect.arrayContaining(["run_id", "call_id", "tool", "arguments"]) } } });
  });

  it("describes the votes (by, vote, reason, at) on the state and consume answers and the callback", () => {
    const review = {
      type: "object",
      properties: { by: { type: "string" }, vote: { enum: ["approve", "deny"] }, at: { format: "date-time" } },
      required: ["by", "vote", "reason", "at"],
    };
    const reviews = { type: "array", items: review };
    const answer = (path: keyof typeof doc.paths, method: string) =>
      (doc.paths[path] as Record<string, { responses: Record<string, { content: { "application/json": { schema: unknown } } }> }>)[method]!.responses[
        "200"
      ]!.content["application/json"].schema;
    expect(answer("/api/v1/approvals/{approval_id}/consume", "post")).toMatchObject({
      properties: { reviews },
      required: expect.arrayContaining(["reviews"]),
    });
    expect(answer("/api/v1/approvals/{approval_id}", "get")).toMatchObject({
      properties: { reviews },
      required: expect.arrayContaining(["reviews"]),
    });
    expect(doc.webhooks["approval.decided"].post.requestBody.content["application/json"].schema).toMatchObject({
      properties: { data: { properties: { reviews }, required: expect.arrayContaining(["reviews"]) } },
    });
  });

  const app = appFor("sqlite");
  it.runIf(app)("is served at /api/v1/openapi.json", async () => {
    const r = await fetch(`${app!.baseUrl}/api/v1/openapi.json`);
    expect(r.status).toBe(200);
    const served = (await r.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(served.openapi).toBe("3.1.0");
    // The same document the module builds: every path of the API.
    expect(Object.keys(served.paths).sort()).toEqual(Object.keys(doc.paths).sort());
    expect(Object.keys(served.paths)).toContain("/api/v1/reviewers/{email}/passkeys");
  });
});

describe("error codes", () => {
  it("every contract code is a server error code with a status", () => {
    for (const code of CONTRACT_ERROR_CODES) expect(ERROR_STATUS[code]).toBeGreaterThanOrEqual(400);
  });
});
