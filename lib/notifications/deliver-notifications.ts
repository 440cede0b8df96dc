// Sending the outbox's messages. Each is claimed with a lease (one instance's
// conditional update passes) and sent once per claim. Just before sending,
// the recipient must still be able to act: a decided or expired request, a
// vote cast, a role revoked or an account disabled drops the message unsent.
// A failed attempt backs off and is retried for over 24 hours, so a mail
// server outage delays messages and loses none. A message a channel accepted
// or gave up on is an audit event.
import "server-only";
import { db } from "../db/client";
import { inTransaction } from "../db/transaction";
import { appendAuditEvent } from "../audit/append-event";
import { backoffMs } from "../callbacks/deliver-callbacks";
import { env } from "../env";
import { errorFields, log } from "../log";
import { isShuttingDown } from "../shutdown";
import { postSignedWebhook } from "../callbacks/signed-post";
import { emailChannel, sendEmail } from "./mailer";
import { mayStillDecide } from "./recipients";
import { WORKER_ID } from "./worker-id";

const LEASE_MS = 60_000; // longer than one attempt can take
const GIVE_UP_AFTER_MS = 25 * 3600 * 1000;
const BATCH = 20;

/** Claims and sends due messages; returns how many were attempted. */
export async function deliverDueNotifications(now = new Date()): Promise<number> {
  const due = await db().notification.findMany({
    where: { status: "pending", nextAttemptAt: { lte: now }, OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
    orderBy: { nextAttemptAt: "asc" },
    take: BATCH,
    select: { id: true },
  });
  let attempted = 0;
  for (const { id } of due) {
    if (isShuttingDown()) break;
    const claimedAt = new Date();
    const claim = await db().notification.updateMany({
      where: { id, status: "pending", OR: [{ leaseUntil: null }, { leaseUntil: { lt: claimedAt } }] },
      data: { leaseOwner: WORKER_ID, leaseUntil: new Date(claimedAt.getTime() + LEASE_MS) },
    });
    if (claim.count === 0) continue; // another instance has it
    attempted++;
    await attempt(id);
  }
  return attempted;
}

type Outcome = { sent: true; how: string } | { sent: false; dropped: string } | { sent: false; error: string };

async function attempt(id: string): Promise<void> {
  const n = await db().notification.findUniqueOrThrow({ where: { id } });
  let outcome: Outcome;
  try {
    const moot = n.approvalId ? await noLongerConcerns(n) : null;
    if (moot) {
      outcome = { sent: false, dropped: moot };
    } else if (n.channel === "webhook") {
      outcome = await postNotificationWebhook(n);
    } else if (emailChannel() === "local") {
      outcome = { sent: true, how: "kept in the local mailbox (SMTP_URL is not set)" };
    } else if (emailChannel() === "off") {
      outcome = { sent: false, dropped: "email is off (SMTP_URL is not set)" };
    } else {
      const body = JSON.parse(n.body) as { text: string; html: string };
      await sendEmail({ to: n.recipient, subject: n.subject, text: body.text, html: body.html, messageId: n.id });
      outcome = { sent: true, how: "accepted by the SMTP server" };
    }
  } catch (e) {
    // The error's class only: an SMTP answer can quote the message.
    log.warn("notification attempt failed", { notification: id, ...errorFields(e) });
    outcome = { sent: false, error: e instanceof Error ? `${e.name}${"code" in e ? ` ${String(e.code)}` : ""}` : "error" };
  }
  await record(n, outcome);
}

/** Messages that ask a person to decide: first notices, reminders and escalations. */
const REVIEW_NOTICES = new Set(["needs_review", "reminder", "escalated"]);

/**
 * Why a message should no longer go out, or null. A review notice to a person
 * needs someone who may still decide; any other needs the request still pending.
 */
async function noLongerConcerns(n: { kind: string; approvalId: string | null; userId: string | null }): Promise<string | null> {
  if (!n.approvalId) return null;
  if (REVIEW_NOTICES.has(n.kind) && n.userId) {
    return (await mayStillDecide(db(), n.approvalId, n.userId)) ? null : "the recipient can no longer act on the request";
  }
  const a = await db().approval.findUnique({ where: { id: n.approvalId }, select: { status: true, expiresAt: true } });
  return a && a.status === "pending" && a.expiresAt > new Date() ? null : "the request was decided or expired";
}

/** The exact payload written at fan-out, signed; its webhook-id is the message's id, the same on every retry. */
async function postNotificationWebhook(n: { id: string; recipient: string; body: string }): Promise<Outcome> {
  const secret = env().NOTIFY_WEBHOOK_SECRET;
  if (!secret) return { sent: false, dropped: "NOTIFY_WEBHOOK_SECRET is not set" };
  const { payload } = JSON.parse(n.body) as { payload: string };
  const r = await postSignedWebhook(n.recipient, payload, n.id, secret);
  if (r.ok) return { sent: true, how: `HTTP ${r.statusCode}` };
  return { sent: false, error: r.statusCode !== null ? `HTTP ${r.statusCode} (${r.errorClass})` : (r.errorClass ?? "error") };
}

async function record(
  n: { id: string; approvalId: string | null; channel: string; kind: string; recipient: string; attempts: number; createdAt: Date },
  outcome: Outcome,
) {
  const at = new Date();
  const attempts = n.attempts + 1;
  const mine = { id: n.id, leaseOwner: WORKER_ID };
  const released = { leaseOwner: null, leaseUntil: null, attempts };
  const audit = (type: "notification.sent" | "notification.failed", why: string) => ({
    type,
    actor: "system" as const,
    approvalId: n.approvalId,
    data: { notification: n.id, channel: n.channel, kind: n.kind, recipient: n.recipient, outcome: why },
  });
  await inTransaction(async (tx) => {
    if (outcome.sent) {
      const { count } = await tx.notification.updateMany({ where: mine, data: { ...released, status: "sent", sentAt: at, outcome: outcome.how } });
      if (count === 1) await appendAuditEvent(tx, audit("notification.sent", outcome.how));
    } else if ("dropped" in outcome) {
      await tx.notification.updateMany({ where: mine, data: { ...released, status: "dropped", outcome: outcome.dropped } });
    } else if (at.getTime() - n.createdAt.getTime() > GIVE_UP_AFTER_MS) {
      const { count } = await tx.notification.updateMany({ where: mine, data: { ...released, status: "failed", outcome: outcome.error } });
      if (count === 1) await appendAuditEvent(tx, audit("notification.failed", outcome.error));
    } else {
      await tx.notification.updateMany({
        where: mine,
        data: { ...released, outcome: outcome.error, nextAttemptAt: new Date(at.getTime() + backoffMs(attempts, env().NOTIFY_RETRY_BASE_MS)) },
      });
    }
  });
}

/** On shutdown: hand this instance's leases back so another can send at once. */
export async function releaseNotificationLeases(): Promise<void> {
  await db().notification.updateMany({ where: { leaseOwner: WORKER_ID }, data: { leaseOwner: null, leaseUntil: null } });
  await db().notificationTrigger.updateMany({ where: { leaseOwner: WORKER_ID }, data: { leaseOwner: null, leaseUntil: null } });
}
