// Email notifications end to end: the built app (two instances on
// PostgreSQL) sends through a real SMTP server started here. Exactly the
// people who may decide are told, once each, with no argument value in any
// part of the message; a mail server outage delays messages and loses none;
// what a vote or a decision made meanwhile no longer concerns is dropped.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PG_TEST_URL, type Provider } from "../helpers/databases";
import { useNotifyingApps, type NotifyingApps } from "../helpers/notifying-apps";
import { freePort } from "../helpers/ports";
import { smtpSink, type ReceivedMail, type SmtpSink } from "../helpers/smtp-sink";
import { webhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

const SECRET_VALUES = ["ACCT-7741-NEVER", "4321987", "4111 1111 1111 1111", "4111111111111111"];

export function emailNotificationSuite(provider: Provider) {
  describe.runIf(provider === "sqlite" || PG_TEST_URL)(`email notifications (${provider})`, () => {
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
    const apps = useNotifyingApps(provider, {
      name: "notify",
      env: () => ({
        SMTP_URL: sink.url,
        SMTP_FROM: "Countersign <countersign@test.invalid>",
        NOTIFY_WEBHOOK_URL: hook.url,
        NOTIFY_WEBHOOK_SECRET: hookSecret,
      }),
      // queueTestMessage (run here) writes email only where the deployment sends it.
      processEnv: () => ({ SMTP_URL: sink.url }),
    });
    let f: NotifyingApps["f"];
    let db: NotifyingApps["db"];
    let recordReview: NotifyingApps["recordReview"];
    let appUrl = "";
    beforeAll(() => ({ f, db, recordReview, appUrl } = apps));

    /** A policy on a tool and role of its own, so other tests' users are not recipients. */
    async function setUp(quorum = 2) {
      const role = `approver-${f.uid()}`;
      const tool = `payments.refund_${f.uid()}`;
      await f.makePolicy({ tool, roles: [role], quorum });
      const [a, b, requester, disabled, other] = await Promise.all([
        f.makeUser([role]),
        f.makeUser([role]),
        f.makeUser([role]),
        f.makeUser([role]),
        f.makeUser(["reviewer"]),
      ]);
      await db.user.update({ where: { id: disabled.id }, data: { disabledAt: new Date() } });
      const svc = await f.makeService();
      const { CountersignClient } = await import("@countersign/client");
      const client = new CountersignClient({ baseUrl: appUrl, serviceSlug: svc.slug, webhookSecret: svc.webhook_secret, apiToken: svc.api_token });
      const ask = (callId: string, spoof: { summary?: string; environment?: string; arguments?: Record<string, unknown> } = {}) =>
        client.requestApproval({
          run_id: `run-${f.uid()}`,
          call_id: callId,
          tool,
          effects: "write",
          environment: "production",
          requested_by: requester.email,
          summary: "Refund order 1234 to the customer",
          arguments: { account: "ACCT-7741-NEVER", amount: 4321987, note: "card 4111 1111 1111 1111" },
          ...spoof,
        });
      return { a, b, requester, disabled, other, svc, tool, ask };
    }

    const mailsAbout = (approvalId: string): ReceivedMail[] => sink.mails.filter((m) => m.text.includes(`/approvals/${approvalId}`));
    const eventsAbout = (approvalId: string) => hook.events.filter((e) => e.event.data.approval_id === approvalId);
    const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

    async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await settle(150);
      }
    }

    // A delivery pass reads who may receive a message after it leases the
    // message, and holds the lease until it records the outcome. Once every
    // message is unleased after a change, no pass that read the state from
    // before the change can still send; the next one reads the new state.
    async function noAttemptInFlight(where: { approvalId: { in: string[] } }) {
      await until("no attempt in flight", async () => (await db.notification.count({ where: { ...where, leaseOwner: { not: null } } })) === 0);
    }

    it("tells exactly the reviewers who may decide, once each, without any argument value", async () => {
      const { a, b, tool, svc, ask } = await setUp();
      const created = await ask("c1");
      expect(created.warnings).toBeUndefined();
      await until("two messages", async () => mailsAbout(created.approval_id).length >= 2);
      await settle(2500); // a third message (a duplicate, another instance) would arrive by now

      const mails = mailsAbout(created.approval_id);
      expect(
        mails
          .map((m) => m.to)
          .flat()
          .sort(),
      ).toEqual([a.email, b.email].sort());
      for (const m of mails) {
        expect(m.from).toBe("countersign@test.invalid");
        expect(m.subject).toBe(`Review needed: ${tool} from ${svc.slug} (production)`);
        expect(m.text).toContain(`${appUrl}/approvals/${created.approval_id}`);
        expect(m.text).toContain('The agent\'s summary (written by the agent, not checked): "Refund order 1234 to the customer"');
        expect(m.html).toContain(`href="${appUrl}/approvals/${created.approval_id}"`);
        for (const value of SECRET_VALUES) expect(`${m.subject}\n${m.text}\n${m.html}`).not.toContain(value);
      }

      // The on-call webhook: one signed approval.needs_review, no argument values.
      expect(hook.refused).toBe(0);
      const events = eventsAbout(created.approval_id);
      expect(events).toHaveLength(1);
      expect(events[0]!.event).toMatchObject({
        type: "approval.needs_review",
        data: {
          service: svc.slug,
          tool,
          effects: "write",
          environment: "production",
          review_url: `${appUrl}/approvals/${created.approval_id}`,
          agent_summary: "Refund order 1234 to the customer",
          quorum: 2,
          warnings: [],
        },
      });
      for (const value of SECRET_VALUES) expect(events[0]!.body).not.toContain(value);

      const rows = await db.notification.findMany({ where: { approvalId: created.approval_id, channel: "email" } });
      expect(rows.map((r) => [r.recipient, r.status]).sort()).toEqual(
        [
          [a.email, "sent"],
          [b.email, "sent"],
        ].sort(),
      );
      for (const r of rows) for (const value of SECRET_VALUES) expect(r.body).not.toContain(value);
      const audited = await db.auditEvent.findMany({ where: { approvalId: created.approval_id, type: "notification.sent" } });
      expect(audited.map((e) => (JSON.parse(e.data) as { recipient: string }).recipient).sort()).toEqual([a.email, b.email, hook.url].sort());
    });

    it("shows a spoofing request's hidden and look-alike characters as the page does, with its warning, in email and the webhook", async () => {
      const { a, b, ask } = await setUp();
      const created = await ask("c-spoof", {
        summary: "Refund AC-\u202E9876\u202C to the customer",
        environment: "pr\u043Eduction", // a Cyrillic о
        arguments: { ["account\u200B"]: "ACCT-7741-NEVER", amount: 4321987 },
      });
      await until("two messages", async () => mailsAbout(created.approval_id).length >= 2);
      await until("the webhook", async () => eventsAbout(created.approval_id).length >= 1);
      // What must never reach a message raw; line feeds are the message's own.
      const RAW_HIDDEN = /[\p{Cf}\x00-\x09\x0B-\x1F\x7F-\x9F\p{Zl}\p{Zp}\u00A0\u2000-\u200A\u3000]/u;
      const mails = mailsAbout(created.approval_id);
      expect(mails.flatMap((m) => m.to).sort()).toEqual([a.email, b.email].sort());
      for (const m of mails) {
        for (const part of [m.subject, m.text, m.html]) {
          expect(part).not.toMatch(RAW_HIDDEN);
          expect(part).not.toContain("account");
          for (const value of SECRET_VALUES) expect(part).not.toContain(value);
        }
        expect(m.subject).toMatch(/^⚠ Check carefully: Review needed: .* \(pr⟨о⟩duction\)$/);
        expect(m.text.split("\n")[0]).toBe("⚠ Check carefully: this request contains hidden, direction-changing or look-alike characters.");
        expect(m.text).toContain("- Summary: direction-changing character right-to-left override (U+202E)");
        expect(m.text).toContain("- the arguments: invisible character zero width space (U+200B)");
        expect(m.text).toContain('"Refund AC-⟨U+202E⟩9876⟨U+202C⟩ to the customer" ⚠ direction-changing character');
        expect(m.text).toMatch(/Environment: pr⟨о⟩duction ⚠ mixes scripts in one word: Latin \+ Cyrillic/);
        expect(m.html).toContain("Check carefully: this request contains hidden, direction-changing or look-alike characters");
        expect(m.html).toContain(">⟨U+202E⟩</span>");
        expect(m.html).toMatch(/pr<mark [^>]*>о<\/mark>duction/);
      }

      expect(hook.refused).toBe(0);
      const [event] = eventsAbout(created.approval_id);
      expect(event!.body).not.toMatch(RAW_HIDDEN);
      expect(event!.body).not.toContain("account");
      for (const value of SECRET_VALUES) expect(event!.body).not.toContain(value);
      expect(event!.event.data).toMatchObject({
        environment: "pr⟨о⟩duction",
        agent_summary: "Refund AC-⟨U+202E⟩9876⟨U+202C⟩ to the customer",
        warnings: ["display-warning"],
        display_warning: {
          title: "Check carefully: this request contains hidden, direction-changing or look-alike characters",
          items: expect.arrayContaining([
            { where: "Summary", what: "direction-changing character right-to-left override (U+202E)" },
            { where: "the arguments", what: "invisible character zero width space (U+200B)" },
          ]),
        },
      });
    });

    it("flags a request nobody could approve: a warning in the webhook answer, the admins told, the reviewers too", async () => {
      const admin = await f.makeUser(["admin"]);
      // Three approvals needed; a and b could approve; the requester and the disabled user cannot.
      const { a, b, tool, ask } = await setUp(3);
      const created = await ask("c1");
      expect(created.warnings).toEqual(["quorum-unreachable"]);
      await until("three messages", async () => mailsAbout(created.approval_id).length >= 3);
      await settle(1500);
      const mails = mailsAbout(created.approval_id);
      const toAdmin = mails.filter((m) => m.to.includes(admin.email));
      expect(toAdmin).toHaveLength(1);
      expect(toAdmin[0]!.subject).toMatch(new RegExp(`^Nobody can approve: ${tool.replace(/[.]/g, "\\.")} from `));
      expect(toAdmin[0]!.text).toContain("needs 3 approvals");
      for (const value of SECRET_VALUES) expect(toAdmin[0]!.text + toAdmin[0]!.html).not.toContain(value);
      expect(
        mails
          .filter((m) => !m.to.includes(admin.email))
          .flatMap((m) => m.to)
          .sort(),
      ).toEqual([a.email, b.email].sort());
      const event = await db.auditEvent.findFirstOrThrow({ where: { approvalId: created.approval_id, type: "approval.requested" } });
      expect(JSON.parse(event.data)).toMatchObject({ quorum_unreachable: true, possible_approvers: 2 });
      expect(eventsAbout(created.approval_id).map((e) => e.event.data.warnings)).toEqual([["quorum-unreachable"]]);
      // A repeat of the webhook answers the same, warning included.
      expect((await ask("c1")).warnings).toEqual(["quorum-unreachable"]);
    });

    it("keeps messages through an SMTP outage, and drops what a vote or a decision made meanwhile no longer concerns", async () => {
      const { a, b, ask } = await setUp();
      await sink.stop();
      const waiting = await ask("c2");
      const decided = await ask("c3");
      const ids = [waiting.approval_id, decided.approval_id];
      await until("failed attempts", async () => {
        const rows = await db.notification.findMany({ where: { approvalId: { in: ids }, channel: "email" } });
        return rows.length === 4 && rows.every((r) => r.attempts >= 1 && r.status === "pending");
      });
      // Meanwhile: a approves the first (one of two votes: still pending), and denies the second (decided).
      await recordReview(a.id, { approvalId: waiting.approval_id, decision: "approve", reason: "ok" });
      await recordReview(a.id, { approvalId: decided.approval_id, decision: "deny", reason: "no" });
      await noAttemptInFlight({ approvalId: { in: ids } });
      await sink.start();

      await until("the message to b", async () => mailsAbout(waiting.approval_id).length >= 1);
      await until("every message settled", async () => {
        const rows = await db.notification.findMany({ where: { approvalId: { in: ids }, channel: "email" } });
        return rows.every((r) => r.status !== "pending");
      });
      await settle(1000);
      expect(
        mailsAbout(waiting.approval_id)
          .map((m) => m.to)
          .flat(),
      ).toEqual([b.email]);
      expect(mailsAbout(decided.approval_id)).toEqual([]);
      const rows = await db.notification.findMany({ where: { approvalId: { in: ids }, channel: "email" }, orderBy: { recipient: "asc" } });
      const byKey = Object.fromEntries(
        rows.map((r) => [`${r.approvalId === waiting.approval_id ? "waiting" : "decided"}:${r.recipient === a.email ? "a" : "b"}`, r.status]),
      );
      expect(byKey).toEqual({ "waiting:a": "dropped", "waiting:b": "sent", "decided:a": "dropped", "decided:b": "dropped" });

      // Every try is on record for the admins: refused while the server was down, then the outcome.
      for (const r of rows) {
        const tries = await db.notificationAttempt.findMany({ where: { notificationId: r.id }, orderBy: { at: "asc" } });
        expect(tries.length).toBe(r.attempts);
        expect(tries.slice(0, -1).every((t) => t.result === "error")).toBe(true);
        expect(tries[0]!.result).toBe("error");
        expect(tries.at(-1)!.result).toBe(r.status === "sent" ? "sent" : "dropped");
        for (const t of tries) for (const value of SECRET_VALUES) expect(t.detail).not.toContain(value);
      }
    });

    it("uses the channels each person chose, and a service's own notification webhook signed with its callback secret", async () => {
      const { a, b, svc, ask } = await setUp();
      const { generateWebhookSecret, verifyReviewNotice } = await import("@countersign/client");
      const serviceHook = await webhookReceiver(svc.callback_secret);
      try {
        await db.service.update({ where: { slug: svc.slug }, data: { notifyWebhookUrl: serviceHook.url } });
        await db.user.update({ where: { id: a.id }, data: { notifyEmail: false } });
        const created = await ask("c1");
        await until("b's message", async () => mailsAbout(created.approval_id).length >= 1);
        await until("both webhooks", async () => serviceHook.events.length >= 1 && eventsAbout(created.approval_id).length >= 1);
        await settle(2000);
        expect(mailsAbout(created.approval_id).flatMap((m) => m.to)).toEqual([b.email]);

        // The service's receiver checks the signature with the callback secret (and only that secret).
        expect(serviceHook.refused).toBe(0);
        expect(serviceHook.events).toHaveLength(1);
        const got = serviceHook.events[0]!;
        const notice = verifyReviewNotice({ secret: svc.callback_secret, headers: got.headers, rawBody: Buffer.from(got.body) });
        expect(notice).toMatchObject({ type: "approval.needs_review", data: { approval_id: created.approval_id, service: svc.slug } });
        expect(() => verifyReviewNotice({ secret: generateWebhookSecret(), headers: got.headers, rawBody: Buffer.from(got.body) })).toThrow();
        for (const value of SECRET_VALUES) expect(got.body).not.toContain(value);
        // The global URL hears of it as well, once.
        expect(eventsAbout(created.approval_id)).toHaveLength(1);
      } finally {
        await serviceHook.close();
      }
    });

    it("drops a message whose recipient turned the channel off before it went out", async () => {
      const { a, b, ask } = await setUp();
      await sink.stop();
      try {
        const created = await ask("c4");
        await until(
          "the messages are written",
          async () => (await db.notification.count({ where: { approvalId: created.approval_id, channel: "email" } })) === 2,
        );
        await db.user.update({ where: { id: a.id }, data: { notifyEmail: false } });
        await noAttemptInFlight({ approvalId: { in: [created.approval_id] } });
      } finally {
        await sink.start();
      }
      await until("settled", async () => {
        const rows = await db.notification.findMany({ where: { userId: { in: [a.id, b.id] }, channel: "email", kind: "needs_review" } });
        return rows.length === 2 && rows.every((r) => r.status !== "pending");
      });
      const rows = await db.notification.findMany({ where: { userId: { in: [a.id, b.id] }, channel: "email" } });
      expect(Object.fromEntries(rows.map((r) => [r.userId === a.id ? "a" : "b", [r.status, r.outcome]]))).toEqual({
        a: ["dropped", "the recipient turned email off"],
        b: ["sent", "accepted by the SMTP server"],
      });
    });

    it("sends a test message on the user's own channels, a few per hour at most", async () => {
      const { queueTestMessage, TEST_MESSAGES_PER_HOUR } = await import("@/lib/notifications/test-message");
      const user = await f.makeUser(["reviewer"]);
      expect(await queueTestMessage(user.id)).toEqual({ ok: true, queued: 1, channels: ["email"] });
      await until("the test mail", async () => sink.mails.some((m) => m.to.includes(user.email)));
      const mail = sink.mails.find((m) => m.to.includes(user.email))!;
      expect(mail.subject).toBe("Countersign test message");
      expect(mail.text).toContain(`${appUrl}/settings`);
      for (let i = 1; i < TEST_MESSAGES_PER_HOUR; i++) expect(await queueTestMessage(user.id)).toMatchObject({ ok: true });
      expect(await queueTestMessage(user.id)).toMatchObject({ ok: false, reason: "rate-limited" });
      const quiet = await f.makeUser(["reviewer"]);
      await db.user.update({ where: { id: quiet.id }, data: { notifyEmail: false } });
      expect(await queueTestMessage(quiet.id)).toEqual({ ok: false, reason: "no-channel" });
    });
  });
}
