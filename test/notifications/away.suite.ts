// Away (CONTRACT §21) on a real database, with explicit clocks where the code
// takes one: an away reviewer is told nothing (the fan-out skips them, and a
// message written before they left is dropped at delivery), a request that
// only away reviewers could approve is flagged as unreachable when it
// arrives, away changes no authority, and it ends at its time or with
// "I'm back". Fan-out and delivery run in this process (email kept in the
// local mailbox: no SMTP_URL), the same functions the background work runs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { direct } from "@/lib/db/sql";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";
import { refusalWithMessage as refusal } from "../helpers/refusal-code";

export function awaySuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`away (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let away: typeof import("@/lib/users/away");
    let recipients: typeof import("@/lib/notifications/recipients");
    let fanOutDueTriggers: typeof import("@/lib/notifications/fan-out").fanOutDueTriggers;
    let deliverDueNotifications: typeof import("@/lib/notifications/deliver-notifications").deliverDueNotifications;
    let recordReview: typeof import("@/lib/reviews/record-review").recordReview;
    let inTransaction: typeof import("@/lib/db/transaction").inTransaction;

    beforeAll(async () => {
      // Email kept in the local mailbox: written and "sent" without a mail server.
      delete process.env.SMTP_URL;
      process.env.NOTIFY_LOCAL_MAILBOX = "1";
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      away = await import("@/lib/users/away");
      recipients = await import("@/lib/notifications/recipients");
      ({ fanOutDueTriggers } = await import("@/lib/notifications/fan-out"));
      ({ deliverDueNotifications } = await import("@/lib/notifications/deliver-notifications"));
      ({ recordReview } = await import("@/lib/reviews/record-review"));
      ({ inTransaction } = await import("@/lib/db/transaction"));
    });
    afterAll(async () => ctx?.close());

    async function world(quorum = 1) {
      const service = await f.makeService();
      const role = `aw-${f.uid()}`;
      const tool = `away.${f.uid()}`;
      await f.makePolicy({ tool, roles: [role], quorum });
      const ria = await f.makeUser([role]);
      const rex = await f.makeUser([role]);
      return { service, role, tool, ria, rex };
    }
    const emailsTo = async (approvalId: string) =>
      (await ctx.db.notification.findMany({ where: { approvalId, channel: "email" }, orderBy: { recipient: "asc" } })).map((n) => ({
        to: n.recipient,
        status: n.status,
        outcome: n.outcome,
      }));

    it("sets away until a time, recorded by the reviewer; refuses a past, unreadable or distant time", async () => {
      const u = await f.makeUser([]);
      const now = new Date("2026-12-04T12:00:00Z");
      expect(await away.setAway(u.id, "2026-12-05T09:00", now)).toEqual({ awayUntil: new Date("2026-12-05T09:00:00Z") });
      for (const [until, message] of [
        ["2026-12-04T11:00Z", "away until: must be in the future"],
        ["next week", "away until: must be a date and time such as 2026-12-31T18:00Z (UTC when no offset is given)"],
        ["2028-01-01T00:00Z", "away until: must be within a year"],
      ] as const) {
        expect(await refusal(away.setAway(u.id, until, now))).toEqual({ code: "invalid-request", message });
      }
      expect((await ctx.db.user.findUniqueOrThrow({ where: { id: u.id } })).awayUntil).toEqual(new Date("2026-12-05T09:00:00Z"));
      const events = await ctx.db.auditEvent.findMany({ where: { type: "user.away" } });
      expect(events.map((e) => [e.actor, JSON.parse(e.data)])).toEqual([[`user:${u.email}`, { user: u.email, until: "2026-12-05T09:00:00.000Z" }]]);
    });

    it("tells only those not away, and counts the away as unreachable until their time", async () => {
      const { service, role, tool, ria, rex } = await world();
      const now = new Date();
      const back = new Date(now.getTime() + 3600_000);
      await away.setAway(ria.id, back.toISOString(), now);
      const a = await f.makeApproval(service, { tool });
      const row = await ctx.db.approval.findUniqueOrThrow({ where: { id: a.approval_id }, include: { reviews: { select: { reviewerId: true } } } });
      const among = await inTransaction((tx) => recipients.recipientsAmong(tx, [role]));
      expect(among.eligibleFor(row, now).map((r) => r.email)).toEqual([rex.email]);
      expect(among.eligibleFor(row, new Date(back.getTime() + 1)).map((r) => r.email)).toEqual([ria.email, rex.email].sort());
      expect(await recipients.countPossibleApprovers(direct(), row, now)).toBe(1);
      expect(await recipients.countPossibleApprovers(direct(), row, back)).toBe(2);

      // The fan-out writes rex's message, none for ria.
      while ((await fanOutDueTriggers()) > 0);
      expect((await emailsTo(a.approval_id)).map((m) => m.to)).toEqual([rex.email]);
    });

    it("drops a message written before its recipient went away", async () => {
      const { service, tool, rex } = await world();
      const a = await f.makeApproval(service, { tool });
      while ((await fanOutDueTriggers()) > 0);
      expect((await emailsTo(a.approval_id)).map((m) => m.to)).toContain(rex.email);
      await away.setAway(rex.id, new Date(Date.now() + 3600_000).toISOString());
      while ((await deliverDueNotifications()) > 0);
      const mine = (await emailsTo(a.approval_id)).filter((m) => m.to === rex.email);
      expect(mine).toEqual([{ to: rex.email, status: "dropped", outcome: "the recipient is away" }]);
    });

    it("flags a request that only away reviewers could approve as unreachable when it arrives", async () => {
      const { service, tool, ria } = await world(2);
      const until = new Date(Date.now() + 3600_000).toISOString();
      await away.setAway(ria.id, until);
      const flagged = await f.makeApproval(service, { tool });
      expect((await ctx.db.approval.findUniqueOrThrow({ where: { id: flagged.approval_id } })).quorumUnreachable).toBe(true);
      await away.endAway(ria.id);
      const fine = await f.makeApproval(service, { tool });
      expect((await ctx.db.approval.findUniqueOrThrow({ where: { id: fine.approval_id } })).quorumUnreachable).toBe(false);
    });

    it("changes no authority: an away reviewer who opens a request may still decide it", async () => {
      const { service, tool, ria } = await world();
      await away.setAway(ria.id, new Date(Date.now() + 3600_000).toISOString());
      const a = await f.makeApproval(service, { tool });
      expect((await recordReview(ria.id, { approvalId: a.approval_id, decision: "approve" })).status).toBe("approved");
    });

    it("ends with I'm back, recorded once; a time that has passed is already over", async () => {
      const u = await f.makeUser([]);
      const now = new Date();
      await away.setAway(u.id, new Date(now.getTime() + 60_000).toISOString(), now);
      expect(await away.awayUntil(u.id, now)).not.toBeNull();
      expect(await away.awayUntil(u.id, new Date(now.getTime() + 60_000))).toBeNull();
      expect(await away.endAway(u.id, now)).toEqual({ wasAway: true });
      expect(await away.endAway(u.id, now)).toEqual({ wasAway: false });
      const backs = await ctx.db.auditEvent.findMany({ where: { type: "user.back" } });
      expect(backs.filter((e) => (JSON.parse(e.data) as { user: string }).user === u.email)).toHaveLength(1);
    });
  });
}
