// The live queue stream (GET /api/approvals/events) over real HTTP against the
// running app: session required, and a change reported within 2 s whether it
// was made through the app itself or by another process writing to the same
// database (this test process plays the second instance: on PostgreSQL it is
// heard through NOTIFY, on SQLite through the watcher's poll).
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";
import { signInWithPassword } from "../helpers/sign-in";

type SseEvent = { event: string; data: string; at: number };

/** Reads server-sent events in the background; `waitFor` looks at those seen so far and then at new ones. */
function eventStream(res: Response) {
  const events: SseEvent[] = [];
  let wake: () => void = () => {};
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    let buffer = "";
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) break;
      buffer += chunk.value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const lines = buffer.slice(0, end).split("\n");
        buffer = buffer.slice(end + 2);
        const event = lines.find((l) => l.startsWith("event: "))?.slice(7);
        const data = lines.find((l) => l.startsWith("data: "))?.slice(6);
        if (event && data !== undefined) events.push({ event, data, at: Date.now() });
      }
      wake();
    }
  })();
  return {
    events,
    async waitFor(pred: (e: SseEvent) => boolean, timeoutMs: number): Promise<SseEvent | undefined> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.find(pred);
        if (found || Date.now() >= deadline) return found;
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, Math.max(deadline - Date.now(), 0));
        });
      }
    },
    close: () => reader.cancel().catch(() => undefined),
  };
}

export function liveEventsSuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`queue events stream (${provider})`, () => {
    const base = app?.baseUrl ?? "";
    let f: typeof import("../helpers/fixtures");
    let db: import("@/lib/db/client").Db;
    let cookie = "";

    const open = (query = "", headers: Record<string, string> = { cookie }) =>
      fetch(`${base}/api/approvals/events${query}`, { headers: { accept: "text/event-stream", ...headers } });

    beforeAll(async () => {
      f = await import("../helpers/fixtures");
      db = (await import("@/lib/db/client")).db();
      const { addUser } = await import("@/lib/users/add-user");
      const password = randomBytes(12).toString("base64url");
      const user = await addUser({ email: `live-${randomBytes(4).toString("hex")}@example.com`, password, roles: ["reviewer"] }, "cli");
      cookie = await signInWithPassword(base, user.email, password);
    });
    afterAll(async () => db.$disconnect());

    it("answers 401 JSON without a session, and with a forged cookie", async () => {
      for (const headers of [{}, { cookie: "authjs.session-token=forged" }] as Array<Record<string, string>>) {
        const res = await open("", headers);
        expect(res.status).toBe(401);
        expect(res.headers.get("content-type")).toMatch(/^application\/json/);
        expect(await res.json()).toEqual({ error: "unauthorized" });
      }
    });

    it("streams ready, then reports a request sent through the app while the stream is open", async () => {
      const res = await open();
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      expect(res.headers.get("cache-control")).toContain("no-transform");
      const stream = eventStream(res);
      const service = await f.makeService();
      const { CountersignClient } = await import("@countersign/client");
      const client = new CountersignClient({
        baseUrl: base,
        serviceSlug: service.slug,
        webhookSecret: service.webhook_secret,
        apiToken: service.api_token,
      });
      expect(await stream.waitFor((e) => e.event === "ready", 5000)).toBeDefined();

      const sentAt = Date.now();
      const { approval_id: id } = await client.requestApproval({
        run_id: `run_${randomUUID()}`,
        call_id: "c1",
        tool: "mail.send",
        arguments: { to: "x" },
      });
      // How soon is printed, not held to a bound a loaded machine can miss
      // (docs/testing.md): a feed that missed it, or heard of it only at a
      // reload, says nothing within the wait.
      const changed = await stream.waitFor((e) => e.event === "changed" && e.data.includes(id), 15_000);
      await stream.close();
      expect(changed, JSON.stringify(stream.events)).toBeDefined();
      console.log(`live feed reported the request ${changed!.at - sentAt} ms after it was sent`);
      // Ids and a version only.
      expect(Object.keys(JSON.parse(changed!.data) as object).sort()).toEqual(["ids", "more", "version"]);
      expect(stream.events[0]?.event).toBe("ready");
    });

    it("reports a request written by another process on the same database while the stream is open", async () => {
      const stream = eventStream(await open());
      const service = await f.makeService();
      expect(await stream.waitFor((e) => e.event === "ready", 5000)).toBeDefined();
      const sentAt = Date.now();
      // This process is not the app: the app hears of it through the database.
      const { approval_id: id } = await f.makeApproval(service, { tool: "mail.send" });
      // How soon is printed, not held to a bound a loaded machine can miss
      // (docs/testing.md): a feed that missed it, or heard of it only at a
      // reload, says nothing within the wait.
      const changed = await stream.waitFor((e) => e.event === "changed" && e.data.includes(id), 15_000);
      await stream.close();
      expect(changed, JSON.stringify(stream.events)).toBeDefined();
      console.log(`live feed reported the request ${changed!.at - sentAt} ms after it was sent`);
    });

    it("never names a request the viewer may not see (docs/security.md)", async () => {
      const { addUser } = await import("@/lib/users/add-user");
      const password = randomBytes(12).toString("base64url");
      const nobody = await addUser({ email: `live-none-${randomBytes(4).toString("hex")}@example.com`, password, roles: [] }, "cli");
      const hidden = eventStream(await open("", { cookie: await signInWithPassword(base, nobody.email, password) }));
      const seen = eventStream(await open());
      const service = await f.makeService();
      expect(await hidden.waitFor((e) => e.event === "ready", 5000)).toBeDefined();
      expect(await seen.waitFor((e) => e.event === "ready", 5000)).toBeDefined();
      const { approval_id: id } = await f.makeApproval(service, { tool: "mail.send" });
      // The reviewer's stream names it; by then the other stream has had the same change.
      expect(await seen.waitFor((e) => e.event === "changed" && e.data.includes(id), 5000)).toBeDefined();
      await new Promise((r) => setTimeout(r, 500));
      await Promise.all([hidden.close(), seen.close()]);
      expect(
        hidden.events.some((e) => e.data.includes(id)),
        JSON.stringify(hidden.events),
      ).toBe(false);
    });

    it("tells a page rendered at an older version at once (?since=)", async () => {
      const stream = eventStream(await open("?since=0"));
      const changed = await stream.waitFor((e) => e.event === "changed", 3000);
      await stream.close();
      expect(changed).toBeDefined();
      expect(stream.events.map((e) => e.event).slice(0, 2)).toEqual(["ready", "changed"]);
    });
  });
}
