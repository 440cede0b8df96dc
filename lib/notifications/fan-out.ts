// Due triggers become messages. A trigger is claimed with a lease (one
// instance's conditional update passes); the recipients are worked out as
// they are at that moment, each on the channels they chose; each message's
// dedupe key makes it exist once even if a lease runs out and another
// instance repeats the fan-out. An
// escalation trigger first escalates the request (escalate.ts), in the same
// transaction, and then tells whoever may decide it now.
import "server-only";
import { db, type Tx } from "../db/client";
import { inTransaction } from "../db/transaction";
import { env } from "../env";
import { emitLocalChange } from "../approvals/changes";
import { composeMessage, composePush, type MessageFacts, type MessageKind } from "./compose-message";
import { escalateApproval } from "./escalate";
import { reviewEvent } from "./webhook-event";
import { emailChannel } from "./mailer";
import { pushChannel } from "./web-push";
import { queueMessage, pushRecipient, type OutboxMessage } from "./queue-message";
import { eligibleRecipients, enabledAdmins, type Recipient } from "./recipients";
import { requiredRolesOf } from "../reviews/eligibility";
import { NOTIFY_BATCH } from "./batch";
import { WORKER_ID } from "./worker-id";

const LEASE_MS = 60_000;

export async function fanOutDueTriggers(now = new Date()): Promise<number> {
  const due = await db().notificationTrigger.findMany({
    where: { status: "pending", dueAt: { lte: now }, OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
    orderBy: { dueAt: "asc" },
    take: NOTIFY_BATCH,
    select: { id: true },
  });
  let done = 0;
  for (const { id } of due) {
    const claimedAt = new Date();
    const claim = await db().notificationTrigger.updateMany({
      where: { id, status: "pending", OR: [{ leaseUntil: null }, { leaseUntil: { lt: claimedAt } }] },
      data: { leaseOwner: WORKER_ID, leaseUntil: new Date(claimedAt.getTime() + LEASE_MS) },
    });
    if (claim.count === 0) continue; // another instance has it
    await fanOut(id);
    done++;
  }
  return done;
}

/** The message a trigger makes: reminders and escalations are review notices too. */
const MESSAGE_KIND: Record<string, MessageKind> = {
  needs_review: "needs_review",
  quorum_unreachable: "quorum_unreachable",
  reminder: "reminder",
  escalation: "escalated",
};

async function fanOut(triggerId: string): Promise<void> {
  let escalated: string | null = null;
  await inTransaction(async (tx) => {
    const trigger = await tx.notificationTrigger.findUniqueOrThrow({ where: { id: triggerId } });
    const kind = MESSAGE_KIND[trigger.kind] ?? "needs_review";
    // Escalate before reading the request, so the recipients are those who may decide after it.
    if (kind === "escalated" && (await escalateApproval(tx, trigger.approvalId))) escalated = trigger.approvalId;
    const a = await tx.approval.findUniqueOrThrow({
      where: { id: trigger.approvalId },
      include: { service: { select: { slug: true, notifyWebhookUrl: true } } },
    });
    // A request already decided (or expired) tells nobody; nor does an
    // escalation that did not happen (a repeat finds it done: its messages exist).
    const pending = a.status === "pending" && a.expiresAt > new Date() && (kind !== "escalated" || a.escalatedAt !== null);
    if (pending) {
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
      };
      const key = `${a.id}:${trigger.kind}:${trigger.seq}`;
      const people = kind === "quorum_unreachable" ? await enabledAdmins(tx) : await eligibleRecipients(tx, a.id);
      for (const m of await messagesToPeople(tx, key, facts, people)) await queueMessage(tx, m);
      // One event per notice for on-call tools; it carries the quorum warning itself.
      if (kind !== "quorum_unreachable") {
        const event = reviewEvent(kind, { ...facts, quorumUnreachable: a.quorumUnreachable, reminder: trigger.seq });
        const hooks: Array<[string | undefined | null, "global" | "service"]> = [
          [env().NOTIFY_WEBHOOK_URL, "global"],
          [a.service.notifyWebhookUrl, "service"],
        ];
        for (const [url, signer] of hooks) {
          if (!url) continue;
          await queueMessage(tx, {
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
    await tx.notificationTrigger.updateMany({
      where: { id: triggerId, leaseOwner: WORKER_ID },
      data: { status: "done", processedAt: new Date(), leaseOwner: null, leaseUntil: null },
    });
  });
  // Live queue pages on this instance: the newly eligible see the request now.
  if (escalated) emitLocalChange(escalated);
}

/**
 * Each person's messages on the channels they chose: an email, and a push to
 * each browser they turned notifications on in. A channel the deployment
 * has not set up sends nothing.
 */
async function messagesToPeople(tx: Tx, key: string, facts: MessageFacts & { approvalId: string }, people: Recipient[]): Promise<OutboxMessage[]> {
  const email = composeMessage(facts);
  const push = JSON.stringify(composePush(facts));
  const pushTo = pushChannel() === "on" ? people.filter((p) => p.notifyPush).map((p) => p.id) : [];
  const subscriptions = pushTo.length
    ? await tx.pushSubscription.findMany({ where: { userId: { in: pushTo } }, select: { id: true, userId: true, endpoint: true } })
    : [];
  const out: OutboxMessage[] = [];
  for (const p of people) {
    const base = { approvalId: facts.approvalId, userId: p.id, kind: facts.kind, subject: email.subject };
    if (p.notifyEmail && emailChannel() !== "off") {
      out.push({ ...base, dedupeKey: `${key}:${p.id}:email`, recipient: p.email, body: { channel: "email", text: email.text, html: email.html } });
    }
    for (const s of subscriptions.filter((s) => s.userId === p.id)) {
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
