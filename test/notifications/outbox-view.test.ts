// The admin outbox's view (lib/notifications/outbox-view.ts) on a real SQLite
// file: each message carries its own attempts, newest first, at most 20, with
// their result, words and duration; a message never tried has none.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useFreshDatabase } from "../helpers/databases";

describe("outbox view: messages with their attempts (sqlite)", () => {
  let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
  let view: typeof import("@/lib/notifications/outbox-view");
  let f: typeof import("../helpers/fixtures");

  beforeAll(async () => {
    ctx = await useFreshDatabase("sqlite");
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
    const { messages } = await view.listOutbox(2);
    expect(messages).toHaveLength(2);
    const all = await view.listOutbox();
    for (const m of messages) expect(m.log).toEqual(all.messages.find((x) => x.id === m.id)!.log);
  });
});
