// Refused webhooks (docs/api.md) over real HTTP against the running app, on
// one database: the service's rate limit, and refusals counted per minute and
// audited without their payload.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";
import { createService } from "@/lib/services/manage-services";
import { callData, event, unique, type Sent, useWebhookService } from "./webhook-harness";

export function webhookRejectionsSuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`webhook rejections (${provider})`, () => {
    const { db, post } = useWebhookService(app, "rj");

    it("answers 429 with Retry-After past the service's rate limit", async () => {
      const s = await createService({ slug: `rl-${randomBytes(4).toString("hex")}` }, "cli");
      await db.service.update({ where: { slug: s.slug }, data: { rateLimitPerMinute: 3 } });
      const statuses: number[] = [];
      let limited: Sent | undefined;
      for (let i = 0; i < 8; i++) {
        const r = await post(JSON.stringify(event(callData())), { slug: s.slug, secret: s.webhook_secret });
        statuses.push(r.status);
        if (r.status === 429) limited = r;
      }
      // A minute boundary can reset the window once; at least one refusal must land.
      expect(statuses.filter((x) => x === 429).length).toBeGreaterThanOrEqual(1);
      expect(limited!.body).toEqual({ error: "rate-limited" });
      expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThan(0);
    });

    // docs/security.md changed this: refusals are counted per minute, and each
    // minute's count becomes one webhook.rejected event once the minute is over.
    it("counts a refusal under its service and reason, and audits the minute's count with no payload", async () => {
      const { refusalSnapshot, refusalsSince } = await import("../helpers/refusals");
      const { flushRefusalTallies } = await import("@/lib/audit/refusal-tallies");
      const s = await createService({ slug: `rej-${randomBytes(4).toString("hex")}` }, "cli");
      const marker = `PAYLOAD-${unique()}`;
      const counted = { kind: "webhook.rejected", subject: s.slug, reason: "invalid-request" };
      const before = await refusalSnapshot(db, counted);
      const r = await post(JSON.stringify(event(callData({ tool: `${marker} is not a tool name` }))), { slug: s.slug, secret: s.webhook_secret });
      expect(r.status).toBe(422);
      await flushRefusalTallies(Date.now() + 120_000); // as if the minute were over
      const { count, after } = await refusalsSince(db, counted, before);
      expect(count).toBe(1);
      expect(after.events).toEqual([
        { minute: expect.stringMatching(/:00\.000Z$/), service: s.slug, reason: "invalid-request", status: 422, count: 1 },
      ]);
      const written = await db.auditEvent.findMany({ where: { seq: { gt: before.head } } });
      for (const e of written) expect(e.data).not.toContain(marker);
    });
  });
}
