// What the admin services and audit pages call: callback and notification
// webhook URL edits and "Retry now" (all audited), delivery history, and the
// audit list's filters and keyset pages.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";
import { refusal } from "../helpers/refusal-code";

export function servicesAuditSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`admin services and audit (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let services: typeof import("@/lib/services/manage-services");
    let findAuditEvents: typeof import("@/lib/audit/find-events").findAuditEvents;

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      services = await import("@/lib/services/manage-services");
      ({ findAuditEvents } = await import("@/lib/audit/find-events"));
    });
    afterAll(async () => ctx?.close());

    async function failedDelivery(service: Awaited<ReturnType<typeof f.makeService>>, status = "failed") {
      const a = await f.makeApproval(service, { tool: "mail.send" });
      const id = `dlv_${randomUUID().replaceAll("-", "")}`;
      await ctx.db.callbackDelivery.create({
        data: {
          id,
          approvalId: a.approval_id,
          serviceId: service.auth.id,
          messageId: `msg_${f.uid()}`,
          payload: "{}",
          status,
          attempts: 1,
          nextAttemptAt: new Date(Date.now() + 3_600_000),
        },
      });
      await ctx.db.callbackAttempt.create({
        data: { id: `att_${f.uid()}`, deliveryId: id, at: new Date(), statusCode: 503, errorClass: "http-status", durationMs: 12 },
      });
      return { id, approvalId: a.approval_id };
    }

    it("sets and clears a callback URL, audited as service.updated without the URL itself", async () => {
      const s = await f.makeService();
      expect(await services.updateCallbackUrl({ slug: s.slug, callbackUrl: "https://hooks.example.com/cb" }, "user:admin@example.com")).toEqual({
        slug: s.slug,
        callback_url: "https://hooks.example.com/cb",
      });
      expect((await services.listServices()).find((x) => x.slug === s.slug)).toMatchObject({
        callbackUrl: "https://hooks.example.com/cb",
        disabled: false,
        rotating: false,
      });
      await services.updateCallbackUrl({ slug: s.slug, callbackUrl: null }, "cli");
      expect((await ctx.db.service.findUniqueOrThrow({ where: { slug: s.slug } })).callbackUrl).toBeNull();
      const events = await ctx.db.auditEvent.findMany({ where: { type: "service.updated" }, orderBy: { seq: "asc" } });
      expect(events.map((e) => [e.actor, JSON.parse(e.data)])).toEqual([
        ["user:admin@example.com", { service: s.slug, field: "callback_url", change: "set" }],
        ["cli", { service: s.slug, field: "callback_url", change: "cleared" }],
      ]);
      expect(await refusal(services.updateCallbackUrl({ slug: s.slug, callbackUrl: "ftp://x.example.com" }, "cli"))).toBe("ZodError");
      expect(await refusal(services.updateCallbackUrl({ slug: s.slug, callbackUrl: "https://u:p@x.example.com" }, "cli"))).toBe("ZodError");
      expect(await refusal(services.updateCallbackUrl({ slug: `nope-${f.uid()}`, callbackUrl: null }, "cli"))).toBe("not-found");
    });

    it("sets and clears a notification webhook URL like the callback URL, audited as service.updated without the URL", async () => {
      const s = await f.makeService();
      const url = "https://oncall.example.com/countersign";
      expect(await services.updateNotifyWebhookUrl({ slug: s.slug, notifyWebhookUrl: url }, "user:admin@example.com")).toEqual({
        slug: s.slug,
        notify_webhook_url: url,
      });
      expect((await services.listServices()).find((x) => x.slug === s.slug)).toMatchObject({ notifyWebhookUrl: url, callbackUrl: null });
      await services.updateNotifyWebhookUrl({ slug: s.slug, notifyWebhookUrl: null }, "cli");
      expect((await ctx.db.service.findUniqueOrThrow({ where: { slug: s.slug } })).notifyWebhookUrl).toBeNull();
      const events = await ctx.db.auditEvent.findMany({ where: { type: "service.updated", data: { contains: s.slug } }, orderBy: { seq: "asc" } });
      expect(events.map((e) => [e.actor, JSON.parse(e.data)])).toEqual([
        ["user:admin@example.com", { service: s.slug, field: "notify_webhook_url", change: "set" }],
        ["cli", { service: s.slug, field: "notify_webhook_url", change: "cleared" }],
      ]);
      expect(events.map((e) => e.data).join()).not.toContain("oncall.example.com");
      // The callback URL's rules: http(s), no credentials, never a blocked address.
      const set = (u: string) => services.updateNotifyWebhookUrl({ slug: s.slug, notifyWebhookUrl: u }, "cli");
      expect(await refusal(set("ftp://x.example.com"))).toBe("ZodError");
      expect(await refusal(set("https://u:p@x.example.com"))).toBe("ZodError");
      expect(await refusal(set("not a url"))).toBe("ZodError");
      await expect(set("http://169.254.169.254/latest/meta-data/")).rejects.toThrow("Notification webhook URL refused: callbacks may not go to");
      expect(await refusal(services.updateNotifyWebhookUrl({ slug: `nope-${f.uid()}`, notifyWebhookUrl: null }, "cli"))).toBe("not-found");
      expect((await ctx.db.service.findUniqueOrThrow({ where: { slug: s.slug } })).notifyWebhookUrl).toBeNull();
      expect(await ctx.db.auditEvent.count({ where: { type: "service.updated", data: { contains: s.slug } } })).toBe(2);
    });

    it("shows rotation in the list and the delivery history with attempts", async () => {
      const s = await f.makeService();
      await services.rotateWebhookSecret(s.slug, "cli");
      expect((await services.listServices()).find((x) => x.slug === s.slug)?.rotating).toBe(true);
      const d = await failedDelivery(s);
      const history = await services.findServiceDeliveries(s.slug);
      expect(history).toEqual([
        expect.objectContaining({
          id: d.id,
          approvalId: d.approvalId,
          status: "failed",
          attempts: 1,
          log: [expect.objectContaining({ statusCode: 503, errorClass: "http-status" })],
        }),
      ]);
    });

    it("Retry now makes a failed delivery due at once, audited as callback.retried; a delivered one is refused", async () => {
      const s = await f.makeService();
      const d = await failedDelivery(s);
      expect(await services.retryCallbackDelivery(d.id, "user:admin@example.com")).toEqual({ delivery: d.id, retrying: true });
      const row = await ctx.db.callbackDelivery.findUniqueOrThrow({ where: { id: d.id } });
      expect(row.status).toBe("pending");
      expect(row.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now());
      const event = await ctx.db.auditEvent.findFirstOrThrow({ where: { type: "callback.retried", approvalId: d.approvalId } });
      expect([event.actor, JSON.parse(event.data)]).toEqual([
        "user:admin@example.com",
        { delivery: d.id, service: s.slug, previous_status: "failed" },
      ]);

      const done = await failedDelivery(s, "delivered");
      expect(await refusal(services.retryCallbackDelivery(done.id, "cli"))).toBe("conflict");
      expect(await ctx.db.auditEvent.count({ where: { type: "callback.retried", approvalId: done.approvalId } })).toBe(0);
      expect(await refusal(services.retryCallbackDelivery("dlv_nope", "cli"))).toBe("not-found");
    });

    it("lists audit events newest first in keyset pages, with filters", async () => {
      const actor = `user:audit-${f.uid()}@example.com` as const;
      for (let i = 0; i < 5; i++) await f.makeUser([], `a${i}-${f.uid()}@example.com`);
      const s = await f.makeService();
      for (let i = 0; i < 5; i++) await services.updateCallbackUrl({ slug: s.slug, callbackUrl: `https://h.example.com/${i}` }, actor);

      const first = await findAuditEvents({ actor, limit: 2 });
      expect(first.events.map((e) => e.type)).toEqual(["service.updated", "service.updated"]);
      expect(first.events[0]!.seq).toBeGreaterThan(first.events[1]!.seq);
      const all: number[] = [];
      let before: number | undefined;
      for (;;) {
        const page = await findAuditEvents({ actor, limit: 2, before });
        all.push(...page.events.map((e) => e.seq));
        if (page.nextBefore === null) break;
        before = page.nextBefore;
      }
      expect(all).toHaveLength(5);
      expect([...all].sort((a, b) => b - a)).toEqual(all);

      expect((await findAuditEvents({ type: "user.created", limit: 200 })).events.every((e) => e.type === "user.created")).toBe(true);
      const a = await f.makeApproval(s, { tool: "mail.send" });
      expect((await findAuditEvents({ approvalId: a.approval_id })).events.map((e) => e.type)).toEqual(["approval.requested"]);
      expect((await findAuditEvents({ actor, from: new Date(Date.now() + 60_000).toISOString() })).events).toEqual([]);
      expect((await findAuditEvents({ actor, to: new Date(Date.now() - 3_600_000).toISOString().slice(0, 16) })).events).toEqual([]);
      expect((await findAuditEvents({ actor, from: new Date(Date.now() - 3_600_000).toISOString().slice(0, 16) })).events).toHaveLength(5);
      expect(await refusal(findAuditEvents({ type: "made.up" as "user.created" }))).toBe("ZodError");
    });
  });
}
