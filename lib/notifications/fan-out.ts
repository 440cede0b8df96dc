// Due triggers become messages, a batch at a time. A pass claims its
// triggers with one conditional update under a lease owner of its own, then
// writes every message of the batch in one transaction: the recipients are
// worked out as they are at that moment (the review's own rule), each on
// the channels they chose; each message's dedupe key makes it exist once
// even if a lease runs out and another instance repeats the fan-out. An
// escalation trigger first escalates its request (escalate.ts), in the same
// transaction, and then tells whoever may decide it now. Should a batch
// fail, its triggers are retried one by one, so one bad trigger holds up no other.
import "server-only";
import type { Tx } from "../db/client";
import { direct, placeholders } from "../db/sql";
import { columnsOf, readRow, type RowOf } from "../db/rows";
import { inTransaction } from "../db/transaction";
import { env } from "../env";
import { errorFields, log } from "../log";
import { emitLocalChange } from "../approvals/changes";
import { composeMessage, composePush, type MessageFacts, type MessageKind } from "./compose-message";
import { escalateApproval } from "./escalate";
import { reviewEvent } from "./webhook-event";
import { emailChannel } from "./mailer";
import { pushChannel } from "./web-push";
import { slackChannel } from "../slack/slack-client";
import { pushRecipient, writeMessages, type OutboxMessage } from "./queue-message";
import { enabledAdmins, recipientsAmong, type Recipient } from "./recipients";
import { requiredRolesOf } from "../reviews/eligibility";
import { requestWarnings } from "../display/request-display";
import { NOTIFY_TRIGGER_BATCH } from "./batch";
import { claimDue, passOwner } from "../outbox/lease";

type Trigger = RowOf<"NotificationTrigger">;

/** Claims a batch of due triggers and writes their messages; returns how many it claimed (a full batch means more may be due). */
export async function fanOutDueTriggers(now = new Date()): Promise<number> {
  const owner = passOwner();
  const won = await claimDue(direct(), "notification_triggers", now, NOTIFY_TRIGGER_BATCH, owner);
  if (won === 0) return 0;
  const claimed = (
    await direct().all(`SELECT ${columnsOf("NotificationTrigger")} FROM notification_triggers WHERE lease_owner = ? ORDER BY due_at`, [owner])
  ).map((row) => readRow("NotificationTrigger", row));
  try {
    await fanOut(claimed, owner);
  } catch (e) {
    if (claimed.length === 1) throw e;
    log.warn("notification fan-out of a batch failed; retrying its triggers one by one", errorFields(e));
    for (const t of claimed) {
      await fanOut([t], owner).catch((err) => log.warn("notification fan-out failed", { trigger: t.id, ...errorFields(err) }));
    }
  }
  return won;
}

/** The message a trigger makes: reminders and escalations are review notices too. */
const MESSAGE_KIND: Record<string, MessageKind> = {
  needs_review: "needs_review",
  quorum_unreachable: "quorum_unreachable",
  reminder: "reminder",
  escalation: "escalated",
};

async function fanOut(triggers: Trigger[], owner: string): Promise<void> {
  const escalated: string[] = [];
  await inTransaction(async (tx) => {
    // Escalate before reading the requests, so the recipients are those who may decide after it.
    for (const t of triggers) {
      if (t.kind === "escalation" && (await escalateApproval(tx, t.approvalId))) escalated.push(t.approvalId);
    }
    const approvals = new Map(
      (
        await tx.approval.findMany({
          where: { id: { in: [...new Set(triggers.map((t) => t.approvalId))] } },
          include: { service: { select: { slug: true, notifyWebhookUrl: true } }, reviews: { select: { reviewerId: true } } },
        })
      ).map((a) => [a.id, a]),
    );
    const now = new Date();
    const live = triggers.flatMap((t) => {
      const a = approvals.get(t.approvalId);
      const kind = MESSAGE_KIND[t.kind] ?? "needs_review";
      // A request already decided (or expired) tells nobody; nor does an
      // escalation that did not happen (a repeat finds it done: its messages exist).
      const pending = a && a.status === "pending" && a.expiresAt > now && (kind !== "escalated" || a.escalatedAt !== null);
      return pending ? [{ t, a, kind }] : [];
    });
    const roles = [...new Set(live.flatMap(({ a }) => requiredRolesOf(a.requiredRoles)))];
    const [holders, admins] = await Promise.all([
      recipientsAmong(tx, roles),
      live.some((l) => l.kind === "quorum_unreachable") ? enabledAdmins(tx) : Promise.resolve([]),
    ]);
    const messages: OutboxMessage[] = [];
    const peopleOf = live.map(({ t, a, kind }) => ({
      t,
      a,
      kind,
      people: kind === "quorum_unreachable" ? admins : holders.eligibleFor(a, now),
    }));
    const subscriptions = await pushSubscriptionsOf(
      tx,
      peopleOf.flatMap((x) => x.people),
    );
    for (const { t, a, kind, people } of peopleOf) {
      const facts = {
        kind,
        approvalId: a.id,
        tool: a.tool,
        service: a.service.slug,
        effects: a.effects,
        environment: a.environment,
        expiresAt: a.expiresAt,
        reviewUrl: `${env().appUrl}/approvals/${a.id}`,
        summary: a.summary,
        requiredRoles: requiredRolesOf(a.requiredRoles),
        quorum: a.quorum,
        escalatedToRoles: requiredRolesOf(a.escalateToRoles),
        // The request page's warning, once per request: every channel carries it.
        displayWarnings: requestWarnings(
          {
            tool: a.tool,
            service: a.service.slug,
            environment: a.environment,
            runId: a.runId,
            callId: a.callId,
            requestedBy: a.requestedBy,
            summary: a.summary,
          },
          JSON.parse(a.redactedArgs),
        ),
      };
      const key = `${a.id}:${t.kind}:${t.seq}`;
      messages.push(...messagesToPeople(key, facts, people, subscriptions));
      // The policy's Slack channel hears of each request once, when it arrives.
      if (kind === "needs_review" && a.slackChannel && slackChannel() === "on") {
        messages.push({
          dedupeKey: `${key}:slack:channel`,
          approvalId: a.id,
          userId: null,
          kind,
          recipient: `Slack channel ${a.slackChannel}`,
          subject: composeMessage(facts).subject,
          body: { channel: "slack", text: composeMessage(facts).text, post: { to: "channel", channel: a.slackChannel } },
        });
      }
      // One event per notice for on-call tools; it carries the quorum warning itself.
      if (kind !== "quorum_unreachable") {
        const event = reviewEvent(kind, { ...facts, quorumUnreachable: a.quorumUnreachable, reminder: t.seq });
        const hooks: Array<[string | undefined | null, "global" | "service"]> = [
          [env().NOTIFY_WEBHOOK_URL, "global"],
          [a.service.notifyWebhookUrl, "service"],
        ];
        for (const [url, signer] of hooks) {
          if (!url) continue;
          messages.push({
            dedupeKey: `${key}:${signer}:webhook`,
            approvalId: a.id,
            userId: null,
            kind,
            recipient: url,
            subject: event.type,
            body: { channel: "webhook", text: JSON.stringify(event, null, 2), payload: JSON.stringify(event), signer },
          });
        }
      }
    }
    await writeMessages(tx, messages);
    await tx.run(
      `UPDATE notification_triggers SET status = 'done', processed_at = ?, lease_owner = NULL, lease_until = NULL
       WHERE id IN (${placeholders(triggers.length)}) AND lease_owner = ?`,
      [new Date(), ...triggers.map((t) => t.id), owner],
    );
  });
  // Live queue pages on this instance: the newly eligible see the request now.
  for (const id of escalated) emitLocalChange(id);
}

type Subscription = { id: string; userId: string; endpoint: string };

/** The browsers of the people who chose push, when the deployment sends it. */
async function pushSubscriptionsOf(tx: Tx, people: Recipient[]): Promise<Subscription[]> {
  const ids = pushChannel() === "on" ? [...new Set(people.filter((p) => p.notifyPush).map((p) => p.id))] : [];
  return ids.length ? tx.pushSubscription.findMany({ where: { userId: { in: ids } }, select: { id: true, userId: true, endpoint: true } }) : [];
}

/**
 * Each person's messages on the channels they chose: an email, a Slack
 * direct message, and a push to each browser they turned notifications on
 * in. A channel the deployment has not set up sends nothing.
 */
function messagesToPeople(
  key: string,
  facts: MessageFacts & { approvalId: string },
  people: Recipient[],
  subscriptions: Subscription[],
): OutboxMessage[] {
  const email = composeMessage(facts);
  const push = JSON.stringify(composePush(facts));
  const out: OutboxMessage[] = [];
  for (const p of people) {
    const base = { approvalId: facts.approvalId, userId: p.id, kind: facts.kind, subject: email.subject };
    if (p.notifyEmail && emailChannel() !== "off") {
      out.push({ ...base, dedupeKey: `${key}:${p.id}:email`, recipient: p.email, body: { channel: "email", text: email.text, html: email.html } });
    }
    // A direct message carries the buttons, so only people asked to decide get one.
    if (p.notifySlack && facts.kind !== "quorum_unreachable" && slackChannel() === "on") {
      out.push({
        ...base,
        dedupeKey: `${key}:${p.id}:slack`,
        recipient: `${p.email} (Slack direct message)`,
        body: { channel: "slack", text: email.text, post: { to: "dm" } },
      });
    }
    for (const s of p.notifyPush ? subscriptions.filter((s) => s.userId === p.id) : []) {
      out.push({
        ...base,
        dedupeKey: `${key}:${p.id}:push:${s.id}`,
        recipient: pushRecipient(p.email, s.endpoint),
        body: { channel: "push", text: email.text, payload: push, subscriptionId: s.id },
      });
    }
  }
  return out;
}
