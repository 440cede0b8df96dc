// Due triggers become messages. A trigger is claimed with a lease (one
// instance's conditional update passes); the recipients are worked out as
// they are at that moment; each message's dedupe key makes it exist once even
// if a lease runs out and another instance repeats the fan-out. An
// escalation trigger first escalates the request (escalate.ts), in the same
// transaction, and then tells whoever may decide it now.
import "server-only";
import { db } from "../db/client";
import { inTransaction } from "../db/transaction";
import { env } from "../env";
import { newId } from "../ids";
import { emitLocalChange } from "../approvals/changes";
import { composeMessage, type MessageKind } from "./compose-message";
import { escalateApproval } from "./escalate";
import { reviewEvent } from "./webhook-event";
import { emailChannel } from "./mailer";
import { eligibleRecipients, enabledAdmins } from "./recipients";
import { requiredRolesOf } from "../reviews/eligibility";
import { WORKER_ID } from "./worker-id";

const LEASE_MS = 60_000;
const BATCH = 20;

export async function fanOutDueTriggers(now = new Date()): Promise<number> {
  const due = await db().notificationTrigger.findMany({
    where: { status: "pending", dueAt: { lte: now }, OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
    orderBy: { dueAt: "asc" },
    take: BATCH,
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
      include: { service: { select: { slug: true } } },
    });
    // A request already decided (or expired) tells nobody; nor does an
    // escalation that did not happen (a repeat finds it done: its messages exist).
    const pending = a.status === "pending" && a.expiresAt > new Date() && (kind !== "escalated" || a.escalatedAt !== null);
    const emailOn = pending && emailChannel() !== "off";
    const recipients = !emailOn ? [] : kind === "quorum_unreachable" ? await enabledAdmins(tx) : await eligibleRecipients(tx, a.id);
    const facts = {
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
    const message = composeMessage({ kind, ...facts });
    // One event per notice for the on-call tool; it carries the quorum warning itself.
    const hook = env().NOTIFY_WEBHOOK_URL;
    if (pending && hook && kind !== "quorum_unreachable") {
      const event = reviewEvent(kind, { approvalId: a.id, quorumUnreachable: a.quorumUnreachable, reminder: trigger.seq, ...facts });
      const payload = JSON.stringify(event);
      const dedupeKey = `${a.id}:${trigger.kind}:${trigger.seq}:global:webhook`;
      await tx.notification.upsert({
        where: { dedupeKey },
        update: {},
        create: {
          id: newId("ntf"),
          dedupeKey,
          approvalId: a.id,
          channel: "webhook",
          kind,
          recipient: hook,
          subject: event.type,
          body: JSON.stringify({ text: JSON.stringify(event, null, 2), payload }),
          nextAttemptAt: new Date(),
        },
      });
    }
    for (const r of recipients) {
      const dedupeKey = `${a.id}:${trigger.kind}:${trigger.seq}:${r.id}:email`;
      await tx.notification.upsert({
        where: { dedupeKey },
        update: {},
        create: {
          id: newId("ntf"),
          dedupeKey,
          approvalId: a.id,
          userId: r.id,
          channel: "email",
          kind,
          recipient: r.email,
          subject: message.subject,
          body: JSON.stringify({ text: message.text, html: message.html }),
          nextAttemptAt: new Date(),
        },
      });
    }
    await tx.notificationTrigger.updateMany({
      where: { id: triggerId, leaseOwner: WORKER_ID },
      data: { status: "done", processedAt: new Date(), leaseOwner: null, leaseUntil: null },
    });
  });
  // Live queue pages on this instance: the newly eligible see the request now.
  if (escalated) emitLocalChange(escalated);
}
