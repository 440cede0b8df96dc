// Shared by the webhook suites (docs/api.md over real HTTP
// against the running app, on one database): a service of the suite's own,
// signed deliveries, and the counts a refused webhook must leave unchanged.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect } from "vitest";
import type { appFor } from "../helpers/app";
import { createDb, type Db } from "@/lib/db/client";
import { signWebhook, unixNow } from "@countersign/client";
import { createService } from "@/lib/services/manage-services";

export type Sent = { status: number; body: Record<string, unknown>; headers: Headers };
export type PostOptions = { slug?: string; secret?: string; id?: string; timestamp?: string; signature?: string; headers?: Record<string, string> };

export const unique = () => randomUUID();
export const event = (data: Record<string, unknown>) => ({ type: "approval.requested", timestamp: new Date().toISOString(), data });
export const callData = (extra: Record<string, unknown> = {}) => ({
  run_id: `run_${unique()}`,
  call_id: "c1",
  tool: "payments.pay",
  arguments: { account: "AC-1", amount: 10 },
  ...extra,
});

/**
 * Call inside the suite's describe: creates a service (slug `<slugPrefix>-…`)
 * before its tests, `prepare` then adjusts it, and disconnects after them.
 */
export function useWebhookService(app: ReturnType<typeof appFor>, slugPrefix: string, prepare?: (db: Db, slug: string) => Promise<unknown>) {
  const base = app?.baseUrl ?? "";
  const db = createDb(app?.env.DATABASE_URL ?? "file::memory:");
  /** Filled in before the tests run. */
  const svc = { slug: "", webhook_secret: "", api_token: "" };

  beforeAll(async () => {
    Object.assign(svc, await createService({ slug: `${slugPrefix}-${randomBytes(4).toString("hex")}` }, "cli"));
    await prepare?.(db, svc.slug);
  });
  afterAll(async () => {
    await db.$disconnect();
    const { db: shared } = await import("@/lib/db/client");
    await shared().$disconnect();
  });

  /** Posts `body` signed with the service's secret unless `opts` says otherwise. */
  async function post(body: string | Uint8Array, opts: PostOptions = {}): Promise<Sent> {
    const id = opts.id ?? `msg_${unique()}`;
    const timestamp = opts.timestamp ?? String(unixNow());
    const bytes = typeof body === "string" ? Buffer.from(body) : Buffer.from(body);
    // Signed over the header's timestamp when it is a number, so a malformed
    // timestamp header still carries an otherwise valid signature.
    const signedAt = /^\d+$/.test(timestamp) ? Number(timestamp) : unixNow();
    const signature = opts.signature ?? signWebhook({ secret: opts.secret ?? svc.webhook_secret, id, timestamp: signedAt, body: bytes });
    const r = await fetch(`${base}/api/v1/webhooks/${opts.slug ?? svc.slug}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": id,
        "webhook-timestamp": timestamp,
        "webhook-signature": signature,
        ...opts.headers,
      },
      body: bytes,
    });
    const text = await r.text();
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      parsed = { raw: text };
    }
    return { status: r.status, body: parsed, headers: r.headers };
  }

  /** Counts of everything a refused webhook must not add to. */
  async function stored() {
    const [approvals, seen, events] = await Promise.all([
      db.approval.count(),
      db.seenWebhook.count(),
      db.auditEvent.count({ where: { type: { not: "webhook.rejected" } } }),
    ]);
    return { approvals, seen, events };
  }

  async function expectRefusedWithoutStoring(send: () => Promise<Sent>, status: number, error: string) {
    const before = await stored();
    const r = await send();
    expect(r.status).toBe(status);
    expect(r.body.error).toBe(error);
    expect(await stored()).toEqual(before);
    return r;
  }

  return { base, db, svc, post, stored, expectRefusedWithoutStoring };
}

export const salt = () => randomBytes(32).toString("base64url");
/** The digest of an RFC 8785 text, salted as docs/security.md says when `s` is given, computed here independently. */
export const jcsDigest = (jcs: string, s?: string) =>
  `sha256:${createHash("sha256")
    .update(s === undefined ? jcs : `${s}.${jcs}`, "utf8")
    .digest("hex")}`;
/** A request body whose `arguments` are the given raw JSON text. */
export const bodyWith = (argsText: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: "approval.requested",
    data: { run_id: `run_${randomUUID()}`, call_id: "c1", tool: "payments.pay", arguments: "@ARGS@", ...extra },
  }).replace('"@ARGS@"', argsText);
