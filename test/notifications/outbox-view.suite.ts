// The admin outbox's view (lib/notifications/outbox-view.ts) on each database
// (its search is SQL of its own): each message carries its own attempts, newest first, at most 20, with
// their result, words and duration; a message never tried has none. Messages
// come a page at a time, newest first, all or those of one status or to one
// recipient, and a query the page cannot use is refused in words.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PG_TEST_URL, useFreshDatabase, type Provider } from "../helpers/databases";

export function outboxViewSuite(provider: Provider) {
  describe.runIf(provider === "sqlite" || PG_TEST_URL)(`outbox view: messages with their attempts (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let view: typeof import("@/lib/notifications/outbox-view");
    let f: typeof import("../helpers/fixtures");

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      view = await import("@/lib/notifications/outbox-view");
      f = await import("../helpers/fixtures");
    });
    afterAll(async () => ctx?.close());

    async function message(channel: "email" | "push" | "webhook", createdAt: Date, extra: Record<string, unknown> = {}) {
      const id = `ntf_${f.uid()}`;
      await ctx.db.notification.create({
        data: {
          id,
          dedupeKey: `${id}:key`,
          channel,
          kind: "needs_review",
          recipient: channel === "webhook" ? "https://hooks.example.com/notify" : `r-${f.uid()}@example.com`,
          subject: `Review needed ${id}`,
          body: JSON.stringify({ text: `Text of ${id}`, html: "<p>x</p>" }),
          nextAttemptAt: createdAt,
          createdAt,
          ...extra,
        },
      });
      return id;
    }

    async function attempt(notificationId: string, at: Date, result: string, detail: string, durationMs = 5) {
      await ctx.db.notificationAttempt.create({ data: { id: `nta_${f.uid()}`, notificationId, at, result, detail, durationMs } });
    }

    it("shows each message's attempts newest first, only its own, at most 20", async () => {
      const t0 = Date.now() - 3_600_000;
      const email = await message("email", new Date(t0), { status: "sent", attempts: 2, sentAt: new Date(t0 + 20_000) });
      await attempt(email, new Date(t0 + 1_000), "error", "Error ECONNREFUSED", 31);
      await attempt(email, new Date(t0 + 20_000), "sent", "accepted by the SMTP server", 12);

      const hook = await message("webhook", new Date(t0 + 1), { attempts: 25 });
      for (let i = 0; i < 25; i++) await attempt(hook, new Date(t0 + i * 60_000), "error", `HTTP 503 (http-status) #${i}`, i);

      const push = await message("push", new Date(t0 + 2), { status: "dropped", attempts: 1, outcome: "the recipient turned push off" });
      await attempt(push, new Date(t0 + 5_000), "dropped", "the recipient turned push off", 1);

      const untried = await message("email", new Date(t0 + 3));

      const { messages } = await view.listOutbox();
      const byId = new Map(messages.map((m) => [m.id, m]));
      // Newest message first, as before.
      expect(messages.map((m) => m.id)).toEqual([untried, push, hook, email]);

      expect(byId.get(email)).toMatchObject({ channel: "email", status: "sent", attempts: 2, text: `Text of ${email}` });
      expect(byId.get(email)!.log).toEqual([
        { at: new Date(t0 + 20_000), result: "sent", detail: "accepted by the SMTP server", durationMs: 12 },
        { at: new Date(t0 + 1_000), result: "error", detail: "Error ECONNREFUSED", durationMs: 31 },
      ]);

      const hookLog = byId.get(hook)!.log;
      expect(hookLog).toHaveLength(view.ATTEMPTS_SHOWN);
      expect(view.ATTEMPTS_SHOWN).toBe(20);
      expect(hookLog.map((a) => a.detail)).toEqual(Array.from({ length: 20 }, (_, i) => `HTTP 503 (http-status) #${24 - i}`));
      expect(byId.get(hook)!.attempts).toBe(25);

      expect(byId.get(push)!.log).toEqual([expect.objectContaining({ result: "dropped", detail: "the recipient turned push off" })]);
      expect(byId.get(untried)!.log).toEqual([]);
    });

    it("reads attempts only for the messages on the page", async () => {
      const { messages } = await view.listOutbox({}, 2);
      expect(messages).toHaveLength(2);
      const all = await view.listOutbox();
      for (const m of messages) expect(m.log).toEqual(all.messages.find((x) => x.id === m.id)!.log);
    });

    it("pages newest first, filters by status and by recipient, and past the last page shows the last", async () => {
      const to = `paged-${f.uid()}@example.com`;
      const t0 = Date.now() + 3_600_000; // newer than every other message in this file
      const ids: string[] = [];
      for (let i = 0; i < 7; i++)
        ids.push(await message("email", new Date(t0 + i * 1000), { recipient: to, status: i % 3 === 0 ? "failed" : "sent" }));
      const newestFirst = [...ids].reverse();

      const first = await view.listOutbox({ to }, 3);
      expect(first).toMatchObject({ total: 7, page: 1, pages: 3, to, status: undefined });
      expect(first.messages.map((m) => m.id)).toEqual(newestFirst.slice(0, 3));
      expect((await view.listOutbox({ to, page: 2 }, 3)).messages.map((m) => m.id)).toEqual(newestFirst.slice(3, 6));
      const past = await view.listOutbox({ to, page: 99 }, 3);
      expect([past.page, past.messages.map((m) => m.id)]).toEqual([3, newestFirst.slice(6)]);

      const failed = await view.listOutbox({ to, status: "failed" }, 3);
      expect([failed.total, failed.messages.map((m) => m.id)]).toEqual([3, [ids[6], ids[3], ids[0]]]);
      // Unfiltered, the newest page is these messages, and the total counts every message.
      const all = await view.listOutbox({}, 3);
      expect(all.messages.map((m) => m.id)).toEqual(newestFirst.slice(0, 3));
      expect(all.total).toBe(await ctx.db.notification.count());
      expect(view.OUTBOX_PAGE_SIZE).toBe(25);
      expect(await view.listOutbox({ to: `nobody-${f.uid()}@example.com` })).toMatchObject({ messages: [], total: 0, page: 1, pages: 1 });
    });

    it("finds messages whose recipient contains the search, in any case, with % and _ taken literally", async () => {
      const tag = f.uid();
      const t0 = Date.now() + 7_200_000;
      const underscore = await message("email", new Date(t0), { recipient: `ana_${tag}@example.com` });
      const lookalike = await message("email", new Date(t0 + 1), { recipient: `anax${tag}@example.com` });
      const push = await message("push", new Date(t0 + 2), { recipient: `ana_${tag}@example.com (push.example.net)` });
      const found = async (to: string) => (await view.listOutbox({ to })).messages.map((m) => m.id);
      expect(await found(`ANA_${tag.toUpperCase()}`)).toEqual([push, underscore]);
      expect(await found(`x${tag}@`)).toEqual([lookalike]);
      expect(await found(`ana%${tag}`)).toEqual([]);
      expect((await view.listOutbox({ to: tag, status: "pending" })).total).toBe(3);
    });

    it("reads the page's query, and refuses what it cannot use in words", () => {
      expect(view.outboxQuerySchema.parse({ status: "", to: "  ", page: undefined })).toEqual({ status: undefined, to: undefined, page: 1 });
      expect(view.outboxQuerySchema.safeParse({ to: "x".repeat(201) }).error?.issues.map((i) => i.message)).toEqual([
        "the recipient search is limited to 200 characters",
      ]);
      expect(view.outboxQuerySchema.parse({ status: "failed", to: " ana@example.com ", page: "2" })).toEqual({
        status: "failed",
        to: "ana@example.com",
        page: 2,
      });
      const messages = (input: Record<string, unknown>) => {
        const r = view.outboxQuerySchema.safeParse(input);
        return r.success ? [] : r.error.issues.map((i) => i.message);
      };
      expect(messages({ status: "lost" })).toEqual(["status must be one of pending, sent, dropped, failed"]);
      expect(messages({ page: "0" })).toEqual(["pages start at 1"]);
      expect(messages({ page: "two" })).toEqual(["page must be a number"]);
      expect(messages({ page: "1.5" })).toEqual(["page must be a whole number"]);
    });
  });
}
