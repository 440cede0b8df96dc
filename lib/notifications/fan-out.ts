// Due triggers become messages. A trigger is claimed with a lease (one
// instance's conditional update passes); the recipients are worked out as
// they are at that moment; each message's dedupe key makes it exist once even
// if a lease runs out and another instance repeats the fan-out.
import "server-only";
import { db } from "../db/client";
import { inTransaction } from "../db/transaction";
import { env } from "../env";
import { newId } from "../ids";
import { composeMessage } from "./compose-message";
import { emailChannel } from "./mailer";
import { eligibleRecipients } from "./recipients";
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

async function fanOut(triggerId: string): Promise<void> {
  await inTransaction(async (tx) => {
    const trigger = await tx.notificationTrigger.findUniqueOrThrow({
      where: { id: triggerId },
      include: { approval: { include: { service: { select: { slug: true } } } } },
    });
    const a = trigger.approval;
    const channel = emailChannel();
    // A request already decided (or expired) tells nobody.
    const recipients = a.status === "pending" && channel !== "off" ? await eligibleRecipients(tx, a.id) : [];
    const message = composeMessage({
      kind: "needs_review",
      tool: a.tool,
      service: a.service.slug,
      effects: a.effects,
      environment: a.environment,
      expiresAt: a.expiresAt,
      reviewUrl: `${env().appUrl}/approvals/${a.id}`,
      summary: a.summary,
    });
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
          kind: trigger.kind,
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
}
