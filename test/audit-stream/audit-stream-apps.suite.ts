// Audit streaming as deployed: the built app (two instances sharing the
// database on PostgreSQL, one on SQLite) streams from its background loop to
// a JSON Lines webhook receiver and a TCP syslog receiver the test starts.
// Every event arrives once and in order at each, with two instances racing
// for each sink; the syslog collector stopped and restarted gets what it
// missed; /admin/outbox shows the lag and the failure's class. The loop
// runs on its own clock, so the test waits for outcomes (polling), not for
// fixed times.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useNotifyingApps } from "../helpers/notifying-apps";
import { signInWithPassword } from "../helpers/sign-in";
import { syslogReceiver, type SyslogReceiver } from "../helpers/syslog-receiver";
import { close, jsonLinesReceiver } from "../helpers/audit-receivers";

async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function auditStreamAppsSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`audit streaming from the running app (${provider})`, () => {
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    let hook: Awaited<ReturnType<typeof jsonLinesReceiver>>;
    let tcp: SyslogReceiver;
    beforeAll(async () => {
      hook = await jsonLinesReceiver(secret);
      tcp = await syslogReceiver(false);
    });
    const apps = useNotifyingApps(provider, {
      name: "audit-stream",
      env: () => ({ AUDIT_WEBHOOK_URL: hook.url, AUDIT_WEBHOOK_SECRET: secret, AUDIT_SYSLOG_URL: tcp.url, AUTH_CREDENTIALS: "1" }),
    });
    afterAll(async () => {
      await Promise.all([close(hook.server), tcp.stop()]);
    });

    const seqs = async () => (await apps.db.auditEvent.findMany({ select: { seq: true }, orderBy: { seq: "asc" } })).map((e) => e.seq);
    const hookSeqs = () => hook.batches.flatMap((b) => b.lines.map((l) => l.seq));
    const syslogSeqs = () => tcp.messages.map((m) => Number(m.sd[0]!.params.seq));
    const same = (a: number[], b: number[]) => a.length === b.length && a.every((x, i) => x === b[i]);

    it("streams every event once, in order, to each sink; a collector down gets what it missed; the page shows the lag", async () => {
      const password = randomBytes(12).toString("base64url");
      const { addUser } = await import("@/lib/users/add-user");
      const admin = `admin-${apps.f.uid()}@example.com`;
      await addUser({ email: admin, password, roles: ["admin"] }, "cli");
      for (let i = 0; i < 12; i++) await apps.f.makeUser(["reviewer"]);
      const all = await seqs();
      await waitFor("both sinks to catch up", async () => hookSeqs().length >= all.length && syslogSeqs().length >= all.length);
      expect(hookSeqs()).toEqual(all);
      expect(syslogSeqs()).toEqual(all);
      expect(hook.refused).toBe(0);
      expect(tcp.malformed).toEqual([]);

      // The collector goes down; events keep coming.
      await tcp.stop();
      for (let i = 0; i < 5; i++) await apps.f.makeUser(["reviewer"]);
      const more = await seqs();
      await waitFor("the failure to be recorded", async () => {
        const row = await apps.db.auditSink.findUnique({ where: { name: "syslog" } });
        return row?.lastErrorClass === "connection-refused";
      });
      await waitFor("the webhook to catch up", () => hookSeqs().length >= more.length);
      const cookie = await signInWithPassword(apps.appUrl, admin, password);
      const page = await (await fetch(`${apps.appUrl}/admin/outbox`, { headers: { cookie } })).text();
      expect(page).toContain("Audit streaming");
      expect(page).toContain("connection-refused");
      const behind = [...page.matchAll(/data-testid="audit-sink-behind"[^>]*>(\d+)</g)].map((m) => Number(m[1]));
      expect(behind).toHaveLength(2); // syslog and webhook
      expect(Math.max(...behind)).toBeGreaterThanOrEqual(5);

      await tcp.start();
      const final = await seqs();
      await waitFor("syslog to catch up after the restart", async () => syslogSeqs().length >= final.length);
      await waitFor("the webhook to hold everything", async () => same(hookSeqs(), await seqs()));
      // Nothing was accepted while it was down, so nothing is sent twice.
      expect(syslogSeqs()).toEqual(await seqs());
      expect(hookSeqs()).toEqual(await seqs());
      await waitFor("the error to clear", async () => (await apps.db.auditSink.findUnique({ where: { name: "syslog" } }))?.lastErrorClass === null);
    });
  });
}
