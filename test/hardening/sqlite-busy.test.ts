// SQLITE_BUSY is an error the caller sees, never a success (STACK.md): while
// another process holds SQLite's write lock past the app's busy timeout, a
// webhook is answered 503 (retryable) and nothing is stored; once the lock is
// released, the same delivery is accepted.
import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";

const app = appFor("sqlite");

describe.runIf(app)("SQLite lock held by another process", () => {
  it("answers 503 with Retry-After instead of a false success, then recovers", async () => {
    const f = await import("../helpers/fixtures");
    const { signWebhook, unixNow } = await import("@countersign/client");
    const { db } = await import("@/lib/db/client");
    const svc = await f.makeService();
    const body = JSON.stringify({ type: "approval.requested", data: { run_id: `r-${randomUUID()}`, call_id: "c1", tool: "x.y", arguments: {} } });
    const send = () => {
      const id = `msg_${randomUUID()}`;
      const ts = unixNow();
      return fetch(`${app!.baseUrl}/api/v1/webhooks/${svc.slug}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "webhook-id": id,
          "webhook-timestamp": String(ts),
          "webhook-signature": signWebhook({ secret: svc.webhook_secret, id, timestamp: ts, body }),
        },
        body,
      });
    };
    const before = await db().approval.count();
    await db().$disconnect(); // this test process must not hold the file either

    const holder = new Database(app!.env.DATABASE_URL!.replace(/^file:/, ""));
    holder.exec("BEGIN IMMEDIATE");
    let refused: Response;
    try {
      refused = await send();
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ error: "unavailable" });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await db().approval.count()).toBe(before);

    const accepted = await send();
    expect(accepted.status).toBe(201);
    expect(await db().approval.count()).toBe(before + 1);
    await db().$disconnect();
  }, 60_000);
});
