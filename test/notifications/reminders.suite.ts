// Reminders and escalation end to end (docs/notifications.md): the built app
// (two instances on PostgreSQL) with a real SMTP server and a Standard
// Webhooks receiver. The test holds the clock: requests live an hour, so
// nothing falls due by itself; the test checks when each follow-up was
// scheduled (the policy's fractions of the TTL, escalate_after), then brings
// it due by moving its trigger's due time to now, and the app's background
// worker (ticking every second) does the rest. Reminders reach exactly those
// who may still decide, once each; nothing goes out after a decision; an
// escalation adds its roles once, tells the newly eligible, who can then
// approve through the normal review.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PG_TEST_URL, type Provider } from "../helpers/databases";
import { useNotifyingApps, type NotifyingApps } from "../helpers/notifying-apps";
import { freePort } from "../helpers/ports";
import { refusal } from "../helpers/refusal-code";
import { smtpSink, type ReceivedMail, type SmtpSink } from "../helpers/smtp-sink";
import { webhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

const SECRET_VALUES = ["ACCT-7741-NEVER", "4321987", "4111 1111 1111 1111"];
const TTL_S = 3600;
const ESCALATE_AFTER_S = 600;
// The worker ticks every second; fan-out and delivery take a tick each, plus SMTP, on a busy machine.
const LATE_MS = 5000;
/** Long enough for another instance's duplicate, had there been one, to arrive. */
const DUPLICATE_WINDOW_MS = 2500;

export function remindersSuite(provider: Provider) {
  describe.runIf(provider === "sqlite" || PG_TEST_URL)(`reminders and escalation (${provider})`, () => {
    let sink: SmtpSink;
    let hook: WebhookReceiver;
    let hookSecret = "";
    beforeAll(async () => {
      sink = smtpSink(await freePort());
      await sink.start();
      hookSecret = (await import("@countersign/client")).generateWebhookSecret();
      hook = await webhookReceiver(hookSecret);
    });
    afterAll(async () => {
      await sink?.stop();
      await hook?.close();
    });
    // Two instances on PostgreSQL: each reminder and escalation must still happen once.
    const apps = useNotifyingApps(provider, {
      name: "remind",
      env: () => ({
        SMTP_URL: sink.url,
        SMTP_FROM: "Countersign <countersign@test.invalid>",
        NOTIFY_WEBHOOK_URL: hook.url,
        NOTIFY_WEBHOOK_SECRET: hookSecret,
      }),
    });
    let f: NotifyingApps["f"];
    let db: NotifyingApps["db"];
    let recordReview: NotifyingApps["recordReview"];
    let newId: typeof import("@/lib/ids").newId;
    let appUrl = "";
    beforeAll(async () => {
      ({ f, db, recordReview, appUrl } = apps);
      ({ newId } = await import("@/lib/ids"));
    });

    /** A policy with its own tool and roles, so other tests' users are never recipients. */
    async function setUp(p: { quorum: number; remindAt?: number[]; escalate?: boolean }) {
      const role = `approver-${f.uid()}`;
      const oncall = `oncall-${f.uid()}`;
      const tool = `payments.refund_${f.uid()}`;
      await db.policy.create({
        data: {
          id: newId("pol"),
          name: `p-${f.uid()}`,
          toolPattern: tool,
          roles: JSON.stringify([role]),
          quorum: p.quorum,
          ttlSeconds: TTL_S,
          remindAt: JSON.stringify(p.remindAt ?? []),
          escalateAfterSeconds: p.escalate ? ESCALATE_AFTER_S : null,
          escalateToRoles: JSON.stringify(p.escalate ? [oncall] : []),
        },
      });
      const [a, b, requester, onCall] = await Promise.all([f.makeUser([role]), f.makeUser([role]), f.makeUser([role]), f.makeUser([oncall])]);
      const svc = await f.makeService();
      const { CountersignClient } = await import("@countersign/client");
      const client = new CountersignClient({ baseUrl: appUrl, serviceSlug: svc.slug, webhookSecret: svc.webhook_secret, apiToken: svc.api_token });
      const ask = () =>
        client.requestApproval({
          run_id: `run-${f.uid()}`,
          call_id: "c1",
          tool,
          effects: "write",
          environment: "production",
          requested_by: requester.email,
          summary: "Refund order 1234 to the customer",
          arguments: { account: "ACCT-7741-NEVER", amount: 4321987, note: "card 4111 1111 1111 1111" },
        });
      return { role, oncall, tool, a, b, requester, onCall, svc, ask };
    }

    const mailsAbout = (approvalId: string, subjectStart = ""): ReceivedMail[] =>
      sink.mails.filter((m) => m.text.includes(`/approvals/${approvalId}`) && m.subject.startsWith(subjectStart));
    const eventsAbout = (approvalId: string, type: string) =>
      hook.events.filter((e) => e.event.data.approval_id === approvalId && e.event.type === type);
    const getReviewViewOf = async (id: string, viewerId: string) =>
      (await (await import("@/lib/reviews/get-review-view")).getReviewView(id, viewerId))!;
    const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const noSecrets = (text: string) => {
      for (const value of SECRET_VALUES) expect(text).not.toContain(value);
    };

    async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await settle(100);
      }
    }

    const triggerOf = (approvalId: string, kind: string, seq = 0) => db.notificationTrigger.findFirstOrThrow({ where: { approvalId, kind, seq } });

    /** The test's clock: the trigger falls due now. Returns that moment. */
    async function bringDue(approvalId: string, kind: string, seq = 0): Promise<Date> {
      const now = new Date();
      const { count } = await db.notificationTrigger.updateMany({ where: { approvalId, kind, seq, status: "pending" }, data: { dueAt: now } });
      expect(count).toBe(1);
      return now;
    }

    /** Waits until every trigger of the request was seen, then long enough for a duplicate to arrive. */
    async function allSeen(approvalId: string) {
      await until("every trigger seen", async () => (await db.notificationTrigger.count({ where: { approvalId, status: { not: "done" } } })) === 0);
      await settle(DUPLICATE_WINDOW_MS);
    }

    it("reminds exactly those who have not voted, at the policy's fractions of the TTL, once each", async () => {
      const { a, b, tool, svc, ask } = await setUp({ quorum: 2, remindAt: [0.3, 0.6] });
      const created = await ask();
      const id = created.approval_id;
      await until("the first notices", () => mailsAbout(id, "Review needed").length >= 2);

      // Scheduled at createdAt + f × lifetime.
      const approval = await db.approval.findUniqueOrThrow({ where: { id } });
      expect(approval.remindAt).toBe("[0.3,0.6]");
      const life = approval.expiresAt.getTime() - approval.createdAt.getTime();
      expect(life).toBe(TTL_S * 1000);
      const scheduled = await db.notificationTrigger.findMany({ where: { approvalId: id, kind: "reminder" }, orderBy: { seq: "asc" } });
      expect(scheduled.map((t) => [t.seq, t.dueAt.getTime() - approval.createdAt.getTime(), t.status])).toEqual([
        [1, Math.round(0.3 * life), "pending"],
        [2, Math.round(0.6 * life), "pending"],
      ]);
      // Not before it is due: a few ticks later there is still no reminder.
      await settle(DUPLICATE_WINDOW_MS);
      expect(mailsAbout(id, "Reminder")).toEqual([]);

      // One of two approvals: still pending, and a has now acted.
      await recordReview(a.id, { approvalId: id, decision: "approve", reason: "ok" });
      const dueAt: Date[] = [];
      for (const seq of [1, 2]) {
        dueAt.push(await bringDue(id, "reminder", seq));
        await until(`reminder ${seq}`, () => mailsAbout(id, "Reminder").length >= seq);
      }
      await allSeen(id);

      const reminders = mailsAbout(id, "Reminder");
      expect(reminders.map((m) => m.to)).toEqual([[b.email], [b.email]]);
      for (const m of reminders) {
        expect(m.subject).toBe(`Reminder: review needed: ${tool} from ${svc.slug} (production)`);
        expect(m.text).toContain(`${appUrl}/approvals/${id}`);
        noSecrets(`${m.subject}\n${m.text}\n${m.html}`);
      }
      // Nobody else got anything more: a, b and the first notices only.
      expect(mailsAbout(id).length).toBe(4);

      const triggers = await db.notificationTrigger.findMany({ where: { approvalId: id, kind: "reminder" }, orderBy: { seq: "asc" } });
      expect(triggers.map((t) => [t.seq, t.status])).toEqual([
        [1, "done"],
        [2, "done"],
      ]);
      const rows = await db.notification.findMany({ where: { approvalId: id, kind: "reminder", channel: "email" }, orderBy: { createdAt: "asc" } });
      expect(rows.map((r) => [r.recipient, r.status])).toEqual([
        [b.email, "sent"],
        [b.email, "sent"],
      ]);
      for (const [i, r] of rows.entries()) {
        const late = r.sentAt!.getTime() - dueAt[i]!.getTime();
        expect(late).toBeGreaterThanOrEqual(0);
        expect(late).toBeLessThan(LATE_MS);
      }

      // The on-call webhook: one signed approval.reminder per reminder, no argument values.
      expect(hook.refused).toBe(0);
      const events = eventsAbout(id, "approval.reminder");
      expect(events.map((e) => e.event.data.reminder)).toEqual([1, 2]);
      for (const e of events) {
        expect(e.event.data).toMatchObject({ tool, service: svc.slug, review_url: `${appUrl}/approvals/${id}`, quorum: 2 });
        noSecrets(e.body);
      }
    });

    it("sends no reminder and no escalation once the request is decided", async () => {
      const { a, b, role, ask } = await setUp({ quorum: 1, remindAt: [0.3, 0.6], escalate: true });
      const created = await ask();
      const id = created.approval_id;
      await until("the first notices", () => mailsAbout(id, "Review needed").length >= 2);
      await recordReview(a.id, { approvalId: id, decision: "deny", reason: "not this one" });
      for (const seq of [1, 2]) await bringDue(id, "reminder", seq);
      await bringDue(id, "escalation");
      await allSeen(id);

      expect(
        mailsAbout(id)
          .map((m) => m.to[0])
          .sort(),
      ).toEqual([a.email, b.email].sort());
      expect(eventsAbout(id, "approval.reminder")).toEqual([]);
      expect(eventsAbout(id, "approval.escalated")).toEqual([]);
      const approval = await db.approval.findUniqueOrThrow({ where: { id } });
      expect(approval).toMatchObject({ status: "denied", requiredRoles: JSON.stringify([role]), escalatedAt: null });
      expect(await db.auditEvent.count({ where: { approvalId: id, type: "approval.escalated" } })).toBe(0);
      // Every trigger was seen and made nothing.
      const triggers = await db.notificationTrigger.findMany({ where: { approvalId: id } });
      expect(triggers.map((t) => `${t.kind}:${t.seq}:${t.status}`).sort()).toEqual([
        "escalation:0:done",
        "needs_review:0:done",
        "reminder:1:done",
        "reminder:2:done",
      ]);
      expect(await db.notification.count({ where: { approvalId: id, kind: { in: ["reminder", "escalated"] } } })).toBe(0);
    });

    it("escalates once: adds the roles, tells who may decide now, and the newly eligible can approve", async () => {
      const { a, b, role, oncall, onCall, tool, svc, ask } = await setUp({ quorum: 1, escalate: true });
      const created = await ask();
      const id = created.approval_id;
      await until("the first notices", () => mailsAbout(id, "Review needed").length >= 2);
      expect((await getReviewViewOf(id, a.id)).escalation).toBeNull();
      // Before the escalation the on-call reviewer may not even see it.
      expect(await refusal(recordReview(onCall.id, { approvalId: id, decision: "approve" }))).toBe("not-found");

      // Scheduled escalate_after seconds after it arrived; nothing happens before.
      const arrived = await db.approval.findUniqueOrThrow({ where: { id } });
      const trigger = await triggerOf(id, "escalation");
      expect(trigger.dueAt.getTime() - arrived.createdAt.getTime()).toBe(ESCALATE_AFTER_S * 1000);
      await settle(DUPLICATE_WINDOW_MS);
      expect(mailsAbout(id, "Escalated")).toEqual([]);
      expect((await db.approval.findUniqueOrThrow({ where: { id } })).escalatedAt).toBeNull();

      const dueAt = await bringDue(id, "escalation");
      await until("the escalation mails", () => mailsAbout(id, "Escalated").length >= 3);
      const approval = await db.approval.findUniqueOrThrow({ where: { id } });
      expect(JSON.parse(approval.requiredRoles)).toEqual([role, oncall]);
      expect(approval.escalatedAt!.getTime() - dueAt.getTime()).toBeGreaterThanOrEqual(0);
      expect(approval.escalatedAt!.getTime() - dueAt.getTime()).toBeLessThan(LATE_MS);
      const audit = await db.auditEvent.findMany({ where: { approvalId: id, type: "approval.escalated" } });
      expect(audit).toHaveLength(1);
      expect(audit[0]!.actor).toBe("system");
      expect(JSON.parse(audit[0]!.data)).toEqual({ added_roles: [oncall], required_roles: [role, oncall] });

      await settle(DUPLICATE_WINDOW_MS); // a duplicate (another instance) would arrive by now
      const escalated = mailsAbout(id, "Escalated");
      expect(escalated.flatMap((m) => m.to).sort()).toEqual([a.email, b.email, onCall.email].sort());
      for (const m of escalated) {
        expect(m.subject).toBe(`Escalated: review needed: ${tool} from ${svc.slug} (production)`);
        expect(m.text).toContain(`people with the role ${oncall} may now decide it too`);
        noSecrets(`${m.subject}\n${m.text}\n${m.html}`);
      }
      const events = eventsAbout(id, "approval.escalated");
      expect(events).toHaveLength(1);
      expect(events[0]!.event.data).toMatchObject({ required_roles: [role, oncall], escalated_to_roles: [oncall], quorum: 1 });
      noSecrets(events[0]!.body);

      // The request page and the queue mark it escalated, for the on-call reviewer as for the others.
      const { findQueue } = await import("@/lib/queue/find-queue");
      expect((await getReviewViewOf(id, onCall.id)).escalation).toEqual({ at: approval.escalatedAt, roles: [oncall] });
      const row = (await findQueue(a.id, { q: tool })).canAct!.rows.find((r) => r.id === id);
      expect(row?.escalatedAt).toEqual(approval.escalatedAt);

      // The newly eligible reviewer decides through the normal review.
      expect(await recordReview(onCall.id, { approvalId: id, decision: "approve" })).toMatchObject({ status: "approved", decidedBy: [onCall.email] });
      await allSeen(id);
      expect(mailsAbout(id).length).toBe(5);
      expect(await db.auditEvent.count({ where: { approvalId: id, type: "approval.escalated" } })).toBe(1);
    });
  });
}
