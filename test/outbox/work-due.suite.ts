// The background loop's one statement (lib/background-due) against the steps
// it stands for, on a real database: whenever a step has work the statement
// says so, and when it says nothing is due, every step finds nothing. Rows
// are put in or out of due by their times, one kind at a time; the steps are
// the real ones the loop runs, called in this process.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";

export function workDueSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`background work due (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let backgroundWorkDue: typeof import("@/lib/background-due").backgroundWorkDue;
    let steps: Record<
      "sweepExpired" | "deliverDueCallbacks" | "queueSlackUpdates" | "fanOutDueTriggers" | "deliverDueNotifications",
      () => Promise<number>
    >;
    let newId: typeof import("@/lib/ids").newId;

    beforeAll(async () => {
      // Email kept in the local mailbox: delivery "sends" without a mail server.
      delete process.env.SMTP_URL;
      process.env.NOTIFY_LOCAL_MAILBOX = "1";
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      ({ backgroundWorkDue } = await import("@/lib/background-due"));
      ({ newId } = await import("@/lib/ids"));
      const { sweepExpired } = await import("@/lib/approvals/expire-approval");
      const { deliverDueCallbacks } = await import("@/lib/callbacks/deliver-callbacks");
      const { queueSlackUpdates } = await import("@/lib/slack/sync-posts");
      const { fanOutDueTriggers } = await import("@/lib/notifications/fan-out");
      const { deliverDueNotifications } = await import("@/lib/notifications/deliver-notifications");
      steps = {
        sweepExpired: () => sweepExpired(),
        deliverDueCallbacks: () => deliverDueCallbacks(),
        queueSlackUpdates: () => queueSlackUpdates(),
        fanOutDueTriggers: () => fanOutDueTriggers(),
        deliverDueNotifications: () => deliverDueNotifications(),
      };
    });
    afterAll(async () => ctx?.close());

    const later = () => new Date(Date.now() + 3600_000);
    const earlier = () => new Date(Date.now() - 1000);

    /** Nothing due: every pending time an hour ahead, every Slack post up to date. */
    async function quiet() {
      await ctx.db.approval.updateMany({ where: { status: "pending" }, data: { expiresAt: later() } });
      await ctx.db.callbackDelivery.updateMany({ where: { status: "pending" }, data: { nextAttemptAt: later() } });
      await ctx.db.notificationTrigger.updateMany({ where: { status: "pending" }, data: { dueAt: later() } });
      await ctx.db.notification.updateMany({ where: { status: "pending" }, data: { nextAttemptAt: later() } });
      await ctx.db.slackPost.updateMany({ where: { shownStatus: "pending" }, data: { shownStatus: "seen" } });
    }

    /** The steps that found work, each run once. */
    async function stepsWithWork(): Promise<string[]> {
      const busy: string[] = [];
      for (const [name, step] of Object.entries(steps)) if ((await step()) > 0) busy.push(name);
      return busy;
    }

    async function expectIdle() {
      expect(await backgroundWorkDue()).toBe(false);
      expect(await stepsWithWork()).toEqual([]);
    }

    /** An email to one recipient, due a second ago; `lease`: under someone's lease. */
    async function dueMessage(approvalId: string, lease: { leaseOwner: string; leaseUntil: Date } | null = null) {
      await ctx.db.notification.create({
        data: {
          id: newId("ntf"),
          dedupeKey: `wd-${f.uid()}`,
          approvalId,
          channel: "email",
          kind: "needs_review",
          recipient: `r-${f.uid()}@example.com`,
          subject: "s",
          body: JSON.stringify({ text: "t" }),
          nextAttemptAt: earlier(),
          ...lease,
        },
      });
    }

    async function world() {
      const service = await f.makeService();
      const role = `wd-${f.uid()}`;
      const tool = `due.${f.uid()}`;
      await f.makePolicy({ tool, roles: [role], quorum: 1 });
      await f.makeUser([role]);
      const approval = await f.makeApproval(service, { tool });
      return { service, tool, approvalId: approval.approval_id };
    }

    it("says nothing is due when no step has work, and that a step has work when it has", async () => {
      const { service, tool, approvalId } = await world();
      // Just filed: its needs_review trigger is due now.
      expect(await backgroundWorkDue()).toBe(true);
      expect(await steps.fanOutDueTriggers()).toBeGreaterThan(0);
      await quiet();
      await expectIdle();

      // A request past its expiry: the sweep.
      await ctx.db.approval.update({ where: { id: approvalId }, data: { expiresAt: earlier() } });
      expect(await backgroundWorkDue()).toBe(true);
      expect(await steps.sweepExpired()).toBe(1);
      await quiet();
      await expectIdle();

      // A trigger due (a reminder's time come).
      const other = await f.makeApproval(service, { tool });
      await quiet();
      await ctx.db.notificationTrigger.updateMany({ where: { approvalId: other.approval_id }, data: { dueAt: earlier() } });
      expect(await backgroundWorkDue()).toBe(true);
      expect(await steps.fanOutDueTriggers()).toBeGreaterThan(0);
      await quiet();
      await expectIdle();

      // A message due.
      await dueMessage(other.approval_id);
      expect(await backgroundWorkDue()).toBe(true);
      expect(await steps.deliverDueNotifications()).toBeGreaterThan(0);
      await quiet();
      await expectIdle();

      // A callback due.
      await ctx.db.callbackDelivery.create({
        data: {
          id: newId("dlv"),
          approvalId,
          serviceId: service.auth.id,
          messageId: `msg_${f.uid()}`,
          payload: "{}",
          nextAttemptAt: earlier(),
        },
      });
      expect(await backgroundWorkDue()).toBe(true);
      expect(await steps.deliverDueCallbacks()).toBe(1);
      await quiet();
      await expectIdle();

      // A Slack post still showing a request that has been decided since (this one expired above).
      await ctx.db.slackPost.create({
        data: { id: newId("slk"), approvalId, notificationId: `ntf-${f.uid()}`, channel: "C1", ts: `${Date.now()}.0001`, shownStatus: "pending" },
      });
      expect(await backgroundWorkDue()).toBe(true);
      expect(await steps.queueSlackUpdates()).toBe(1);
      await quiet();
      await expectIdle();
    });

    it("leaves out rows under another instance's running lease, and counts them again when it has run out", async () => {
      const { approvalId } = await world();
      await quiet();
      const leased = { leaseOwner: "another-instance", leaseUntil: later() };
      await ctx.db.notificationTrigger.updateMany({ where: { approvalId }, data: { dueAt: earlier(), ...leased } });
      await dueMessage(approvalId, leased);
      await expectIdle();
      // The lease ran out (its holder died): due again, and the steps take them.
      await ctx.db.notificationTrigger.updateMany({ where: { approvalId }, data: { leaseUntil: earlier() } });
      await ctx.db.notification.updateMany({ where: { approvalId, leaseOwner: "another-instance" }, data: { leaseUntil: earlier() } });
      expect(await backgroundWorkDue()).toBe(true);
      expect(await stepsWithWork()).toEqual(["fanOutDueTriggers", "deliverDueNotifications"]);
    });
  });
}
