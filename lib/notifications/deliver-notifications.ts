// Sending the outbox's messages. Each is claimed with a lease (one instance's
// conditional update passes) and sent once per claim. Just before sending,
// the recipient must still be able to act: a decided or expired request, a
// vote cast, a role revoked or an account disabled drops the message unsent.
// A failed attempt backs off and is retried for over 24 hours, so a mail
// server outage delays messages and loses none. A message a channel accepted
// or gave up on is an audit event.
import "server-only";
import { createHash } from "node:crypto";
import { db } from "../db/client";
import { inTransaction } from "../db/transaction";
import { appendAuditEvent } from "../audit/append-event";
import { backoffMs } from "../callbacks/deliver-callbacks";
import { env } from "../env";
import { errorFields, log } from "../log";
import { isShuttingDown } from "../shutdown";
import { postSignedWebhook } from "../callbacks/signed-post";
import { callbackSecretOf } from "../services/service-secrets";
import { newId } from "../ids";
import { emailChannel, sendEmail } from "./mailer";
import { pushChannel, sendWebPush } from "./web-push";
import { mayStillDecide } from "./recipients";
import { NOTIFY_BATCH } from "./batch";
import { WORKER_ID } from "./worker-id";

const LEASE_MS = 60_000; // longer than one attempt can take
const GIVE_UP_AFTER_MS = 25 * 3600 * 1000;

/** Claims and sends due messages; returns how many were attempted. */
export async function deliverDueNotifications(now = new Date()): Promise<number> {
  const due = await db().notification.findMany({
    where: { status: "pending", nextAttemptAt: { lte: now }, OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
    orderBy: { nextAttemptAt: "asc" },
    take: NOTIFY_BATCH,
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
  const started = Date.now();
  let outcome: Outcome;
  try {
    const moot = (await noLongerConcerns(n)) ?? (await channelTurnedOff(n));
    if (moot) outcome = { sent: false, dropped: moot };
    else if (n.channel === "webhook") outcome = await postNotificationWebhook(n);
    else if (n.channel === "push") outcome = await pushToBrowser(n);
    else outcome = await emailTo(n);
  } catch (e) {
    // The error's class only: an SMTP answer can quote the message.
    log.warn("notification attempt failed", { notification: id, ...errorFields(e) });
    outcome = { sent: false, error: e instanceof Error ? `${e.name}${"code" in e ? ` ${String(e.code)}` : ""}` : "error" };
  }
  await record(n, outcome, Date.now() - started);
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

/** A person who turned a channel off on /settings after the message was written gets nothing on it. */
async function channelTurnedOff(n: { channel: string; userId: string | null }): Promise<string | null> {
  if (!n.userId || n.channel === "webhook") return null;
  const u = await db().user.findUnique({ where: { id: n.userId }, select: { notifyEmail: true, notifyPush: true, disabledAt: true } });
  if (!u || u.disabledAt) return "the recipient's account is disabled or gone";
  if (n.channel === "email" && !u.notifyEmail) return "the recipient turned email off";
  if (n.channel === "push" && !u.notifyPush) return "the recipient turned push off";
  return null;
}

async function emailTo(n: { id: string; recipient: string; subject: string; body: string }): Promise<Outcome> {
  const channel = emailChannel();
  if (channel === "local") return { sent: true, how: "kept in the local mailbox (SMTP_URL is not set)" };
  if (channel === "off") return { sent: false, dropped: "email is off (SMTP_URL is not set)" };
  const body = JSON.parse(n.body) as { text: string; html: string };
  await sendEmail({ to: n.recipient, subject: n.subject, text: body.text, html: body.html, messageId: n.id });
  return { sent: true, how: "accepted by the SMTP server" };
}

/**
 * Web Push to one browser. It lives until the request expires (a push
 * service holds it that long for a phone that is offline); a reminder about
 * the same request replaces an undelivered earlier one (same topic). A
 * subscription the push service no longer knows (404, 410) is removed.
 */
async function pushToBrowser(n: { approvalId: string | null; body: string }): Promise<Outcome> {
  if (pushChannel() === "off") return { sent: false, dropped: "Web Push is off (no VAPID keys)" };
  const { payload, subscriptionId } = JSON.parse(n.body) as { payload: string; subscriptionId: string };
  const sub = await db().pushSubscription.findUnique({ where: { id: subscriptionId } });
  if (!sub) return { sent: false, dropped: "the browser's subscription was removed" };
  const expiresAt = n.approvalId ? (await db().approval.findUnique({ where: { id: n.approvalId }, select: { expiresAt: true } }))?.expiresAt : null;
  const ttlSeconds = expiresAt ? Math.max(60, Math.ceil((expiresAt.getTime() - Date.now()) / 1000)) : 3600;
  const r = await sendWebPush(sub, payload, { ttlSeconds, topic: n.approvalId ? pushTopic(n.approvalId) : undefined, urgency: "high" });
  if (r.ok) {
    await db().pushSubscription.updateMany({ where: { id: sub.id }, data: { lastUsedAt: new Date() } });
    return { sent: true, how: `HTTP ${r.statusCode} from the push service` };
  }
  if (r.gone) {
    await db().pushSubscription.deleteMany({ where: { id: sub.id } });
    return { sent: false, dropped: `the push service no longer knows this browser (${r.error}); its subscription was removed` };
  }
  return { sent: false, error: r.error };
}

/** A push Topic is at most 32 URL-safe characters: a digest of the request id. */
function pushTopic(approvalId: string): string {
  return createHash("sha256").update(approvalId).digest("base64url").slice(0, 32);
}

/**
 * The exact payload written at fan-out, signed; its webhook-id is the
 * message's id, the same on every retry. The global URL's events are signed
 * with NOTIFY_WEBHOOK_SECRET, a service's own URL's with its callback secret.
 */
async function postNotificationWebhook(n: { id: string; approvalId: string | null; recipient: string; body: string }): Promise<Outcome> {
  const { payload, signer } = JSON.parse(n.body) as { payload: string; signer?: "global" | "service" };
  let secret: string | undefined;
  if (signer === "service") {
    const a = n.approvalId ? await db().approval.findUnique({ where: { id: n.approvalId }, select: { serviceId: true } }) : null;
    if (!a) return { sent: false, dropped: "the request is gone" };
    secret = await callbackSecretOf(db(), a.serviceId);
  } else {
    secret = env().NOTIFY_WEBHOOK_SECRET;
    if (!secret) return { sent: false, dropped: "NOTIFY_WEBHOOK_SECRET is not set" };
  }
  const r = await postSignedWebhook(n.recipient, payload, n.id, secret);
  if (r.ok) return { sent: true, how: `HTTP ${r.statusCode}` };
  return { sent: false, error: r.statusCode !== null ? `HTTP ${r.statusCode} (${r.errorClass})` : (r.errorClass ?? "error") };
}

async function record(
  n: { id: string; approvalId: string | null; channel: string; kind: string; recipient: string; attempts: number; createdAt: Date },
  outcome: Outcome,
  durationMs: number,
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
  const [result, detail] = outcome.sent ? ["sent", outcome.how] : "dropped" in outcome ? ["dropped", outcome.dropped] : ["error", outcome.error];
  await inTransaction(async (tx) => {
    let count: number;
    if (outcome.sent) {
      ({ count } = await tx.notification.updateMany({ where: mine, data: { ...released, status: "sent", sentAt: at, outcome: outcome.how } }));
      if (count === 1) await appendAuditEvent(tx, audit("notification.sent", outcome.how));
    } else if ("dropped" in outcome) {
      ({ count } = await tx.notification.updateMany({ where: mine, data: { ...released, status: "dropped", outcome: outcome.dropped } }));
    } else if (at.getTime() - n.createdAt.getTime() > GIVE_UP_AFTER_MS) {
      ({ count } = await tx.notification.updateMany({ where: mine, data: { ...released, status: "failed", outcome: outcome.error } }));
      if (count === 1) await appendAuditEvent(tx, audit("notification.failed", outcome.error));
    } else {
      ({ count } = await tx.notification.updateMany({
        where: mine,
        data: { ...released, outcome: outcome.error, nextAttemptAt: new Date(at.getTime() + backoffMs(attempts, env().NOTIFY_RETRY_BASE_MS)) },
      }));
    }
    // Only the lease holder's attempt is recorded: a lease that ran out means another instance owns the message now.
    if (count === 1) {
      await tx.notificationAttempt.create({ data: { id: newId("nta"), notificationId: n.id, at, result, detail, durationMs } });
    }
  });
}

/** On shutdown: hand this instance's leases back so another can send at once. */
export async function releaseNotificationLeases(): Promise<void> {
  await db().notification.updateMany({ where: { leaseOwner: WORKER_ID }, data: { leaseOwner: null, leaseUntil: null } });
  await db().notificationTrigger.updateMany({ where: { leaseOwner: WORKER_ID }, data: { leaseOwner: null, leaseUntil: null } });
}
