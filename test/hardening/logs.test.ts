// Operations (issue: hardening): the app's stdout is one JSON object per line,
// every line written while handling a request carries its request id (also
// sent back as X-Request-Id), and nothing a client submits as a value, nor
// any secret, ever reaches the log, whether the request succeeds or fails.
// Runs its own instance at LOG_LEVEL=debug, so every line the app can write is seen.
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { generateSecrets } from "@/lib/local-secrets";
import { signWebhookHeaders } from "@countersign/client";
import { useFreshDatabase } from "../helpers/databases";
import { startAppServer, type AppServer } from "../helpers/app-server";
import { freePort } from "../helpers/ports";
import { signInWithPassword } from "../helpers/sign-in";

const marker = (name: string) => `${name}${randomBytes(6).toString("hex")}`;

describe("structured logs (sqlite)", () => {
  let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
  let app: AppServer;
  let secrets: Record<string, string>;

  beforeAll(async () => {
    secrets = { ...generateSecrets() };
    Object.assign(process.env, secrets);
    ctx = await useFreshDatabase("sqlite");
    app = await startAppServer({
      port: await freePort(),
      env: {
        ...secrets,
        DATABASE_URL: ctx.url,
        COUNTERSIGN_DATA_DIR: mkdtempSync(join(tmpdir(), "cs-logs-")),
        AUTH_CREDENTIALS: "1",
        LOG_LEVEL: "debug",
      },
    });
  }, 180_000);

  afterAll(async () => {
    await app?.stop();
    await ctx?.close();
  });

  it("writes JSON lines with request ids, and never a submitted value or a secret", async () => {
    onTestFailed(() => console.log(`app output:\n${app.output().slice(-8000)}`));
    const { createService } = await import("@/lib/services/manage-services");
    const { addUser } = await import("@/lib/users/add-user");
    const svc = await createService({ slug: `logs-${randomBytes(3).toString("hex")}` }, "cli");
    const password = marker("Password");
    const user = await addUser({ email: `${marker("mailbox")}@example.com`, password, roles: ["reviewer"] }, "cli");

    const values = {
      apiKey: marker("sk_live_"),
      card: "4111 1111 1111 1111",
      email: `${marker("alice")}@example.com`,
      note: marker("plainArgumentValue"),
      summary: marker("summaryText"),
      badTool: `${marker("badToolValue")} <not a tool>`,
      badJson: marker("notJson"),
      badToken: marker("forgedToken"),
      wrongPassword: marker("wrongPassword"),
      unknownEmail: `${marker("nobody")}@example.com`,
    };
    const webhook = (data: Record<string, unknown>, headers: Record<string, string> = {}, raw?: string) => {
      const body = raw ?? JSON.stringify({ type: "approval.requested", data });
      return fetch(`${app.baseUrl}/api/v1/webhooks/${svc.slug}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...signWebhookHeaders({ secret: svc.webhook_secret, body }), ...headers },
        body,
      });
    };
    const call = {
      run_id: `run-${randomBytes(4).toString("hex")}`,
      call_id: "c1",
      tool: "payments.refund",
      arguments: { api_key: values.apiKey, card: values.card, customer: values.email, note: values.note },
      // A newline and a fake JSON line: log injection must not work.
      summary: `${values.summary}\n{"level":"error","msg":"forged"}`,
    };

    // Accepted, under a trace id from the front proxy.
    const accepted = await webhook(call, { "x-request-id": "trace-0123456789" });
    expect(accepted.status).toBe(201);
    expect(accepted.headers.get("x-request-id")).toBe("trace-0123456789");
    // Refused in every way the route can refuse, each carrying values.
    expect((await webhook({ ...call, call_id: "c2" }, { "webhook-signature": "v1,AAAA" })).status).toBe(401);
    expect((await webhook({ ...call, call_id: "c3", tool: values.badTool })).status).toBe(422);
    expect((await webhook({}, {}, `{"type":"approval.requested","data":${values.badJson}`)).status).toBe(422);
    const unsafeId = await webhook({ ...call, call_id: "c4" }, { "x-request-id": "bad id <script>" });
    expect(unsafeId.headers.get("x-request-id")).toMatch(/^req_[0-9a-f-]{36}$/);
    // Executor calls with a forged token, and sign-in failures.
    const forged = await fetch(`${app.baseUrl}/api/v1/approvals/apr_x/consume`, {
      method: "POST",
      headers: { authorization: `Bearer ${values.badToken}`, "content-type": "application/json" },
      body: JSON.stringify({ run_id: call.run_id, call_id: "c1", tool: call.tool, args_digest: `sha256:${"0".repeat(64)}` }),
    });
    expect(forged.status).toBe(401);
    await expect(signInWithPassword(app.baseUrl, user.email, values.wrongPassword)).rejects.toThrow();
    await expect(signInWithPassword(app.baseUrl, values.unknownEmail, values.wrongPassword)).rejects.toThrow();
    await signInWithPassword(app.baseUrl, user.email, password);
    await new Promise((r) => setTimeout(r, 500));

    const lines = app
      .output()
      .split("\n")
      .filter((l) => l.trim() !== "");
    // Next's start-up banner and our own start-up lines are the only plain text.
    const banner = /^(▲ Next\.js|- (Local|Network):|✓ (Ready|Running|Starting)|countersign: )/;
    const records = lines.filter((l) => !banner.test(l)).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.length).toBeGreaterThan(5);
    for (const r of records) expect(Object.keys(r).slice(0, 3)).toEqual(["time", "level", "msg"]);

    // One access line per request, each with its id; the proxy's id is kept.
    const access = records.filter((r) => r.msg === "request");
    expect(access.find((r) => r.requestId === "trace-0123456789")).toMatchObject({ route: "webhook", method: "POST", status: 201 });
    expect(access.filter((r) => r.route === "webhook").map((r) => r.status)).toEqual([201, 401, 422, 422, 201]);
    expect(access.every((r) => typeof r.requestId === "string" && typeof r.ms === "number")).toBe(true);
    // The refusals' own lines carry the same id as their access line.
    const rejection = records.find((r) => r.msg === "webhook rejected" && r.reason === "invalid-request");
    expect(rejection?.requestId).toBeDefined();
    expect(access.find((r) => r.requestId === rejection?.requestId)?.status).toBe(422);

    // Nothing submitted as a value, and no secret, anywhere in the output.
    const output = app.output();
    const forbidden = {
      ...values,
      password,
      cardDigits: "4111111111111111",
      webhookSecret: svc.webhook_secret,
      webhookSecretKey: svc.webhook_secret.slice("whsec_".length),
      apiToken: svc.api_token,
      auditKey: secrets.AUDIT_KEY!,
      authSecret: secrets.AUTH_SECRET!,
      encryptionKey: secrets.ENCRYPTION_KEY!,
    };
    const leaked = Object.entries(forbidden).filter(([, v]) => output.includes(v));
    expect(leaked.map(([k]) => k)).toEqual([]);
    expect(output).not.toContain('"msg":"forged"');
  }, 120_000);

  // The state route is served by the custom server without Next.js
  // (lib/http/lean-routes.ts): the client's leaving must still reach the handler.
  it("ends a long-poll as soon as its client leaves: its access line is written then, not at the end of the wait", async () => {
    onTestFailed(() => console.log(`app output:\n${app.output().slice(-4000)}`));
    const { createService } = await import("@/lib/services/manage-services");
    const svc = await createService({ slug: `leave-${randomBytes(3).toString("hex")}` }, "cli");
    const body = JSON.stringify({
      type: "approval.requested",
      data: { run_id: "run-leave", call_id: "c1", tool: "payments.refund", arguments: { amount: 1 } },
    });
    const created = await fetch(`${app.baseUrl}/api/v1/webhooks/${svc.slug}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...signWebhookHeaders({ secret: svc.webhook_secret, body }) },
      body,
    });
    expect(created.status).toBe(201);
    const { approval_id } = (await created.json()) as { approval_id: string };

    const requestId = `leave-${randomBytes(6).toString("hex")}`;
    const leaving = new AbortController();
    const poll = fetch(`${app.baseUrl}/api/v1/approvals/${approval_id}?wait=30`, {
      headers: { authorization: `Bearer ${svc.api_token}`, "x-request-id": requestId },
      signal: leaving.signal,
    });
    await new Promise((r) => setTimeout(r, 1_000));
    leaving.abort();
    await expect(poll).rejects.toThrow();
    const accessLine = () =>
      app
        .output()
        .split("\n")
        .find((l) => l.includes(`"requestId":"${requestId}"`) && l.includes('"msg":"request"'));
    const deadline = Date.now() + 10_000;
    while (!accessLine() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    // Written within 10 s of a 30 s wait, and the handling took less than the wait.
    const line = JSON.parse(accessLine() ?? "null") as { route: string; status: number; ms: number } | null;
    expect(line).toMatchObject({ route: "approval", status: 200 });
    expect(line!.ms).toBeLessThan(30_000);
  }, 60_000);
});
