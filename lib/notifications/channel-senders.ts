// One sender per channel (email, Web Push, Slack, webhooks) for the outbox's
// messages, and the two checks made just before sending: does the message
// still concern its recipient, and is its channel still on for them. The
// batch around them (claiming, the facts read once, recording) is
// deliver-notifications.ts.
import "server-only";
import { createHash } from "node:crypto";
import { db } from "../db/client";
import { env } from "../env";
import { postSignedWebhook } from "../callbacks/signed-post";
import { callbackSecretsOf } from "../services/service-secrets";
import { eligibility } from "../reviews/eligibility";
import { emailChannel, KEPT_LOCALLY, sendEmail } from "./mailer";
import { pushChannel, sendWebPush } from "./web-push";
import { slackChannel } from "../slack/slack-client";
import { postToSlack, slackFactsOf, slackOutcomeOf, slackUserFor, updateSlackPost } from "../slack/send-slack";
import { SECURITY_NOTICE_KINDS } from "./queue-message";
import type { Facts, Message } from "./deliver-notifications";
import { isAway } from "../users/away";

/** `giveUp`: a failure that trying again cannot mend (a push endpoint the push-target rule refuses): failed at once. */
export type Outcome =
  { sent: true; how: string } | { sent: false; dropped: string } | { sent: false; error: string; retryAfterMs?: number; giveUp?: true };
export type PushBody = { payload: string; subscriptionId: string };
export type SlackBody = { post?: { to: "channel"; channel: string } | { to: "dm" }; update?: { postId: string } };

export function send(n: Message, facts: Facts): Promise<Outcome> {
  if (n.channel === "webhook") return postNotificationWebhook(n, facts);
  if (n.channel === "push") return pushToBrowser(n, facts);
  if (n.channel === "slack") return toSlack(n, facts);
  return emailTo(n);
}

/** Messages that ask a person to decide: first notices, reminders and escalations. */
const REVIEW_NOTICES = new Set(["needs_review", "reminder", "escalated"]);

/**
 * Why a message should no longer go out, or null. A review notice to a person
 * needs someone who may still decide (the review's own rule); any other
 * needs the request still pending.
 */
export function noLongerConcerns(n: Message, facts: Facts): string | null {
  if (!n.approvalId || n.kind === "slack_update") return null;
  const a = facts.approvals.get(n.approvalId);
  if (REVIEW_NOTICES.has(n.kind) && n.userId) {
    const user = facts.users.get(n.userId) ?? null;
    return a && eligibility(a, user, a.reviews, new Date()).ok ? null : "the recipient can no longer act on the request";
  }
  return a && a.status === "pending" && a.expiresAt > new Date() ? null : "the request was decided or expired";
}

const SECURITY_NOTICES: ReadonlySet<string> = new Set(SECURITY_NOTICE_KINDS);

/**
 * A person who turned a channel off on /settings after the message was
 * written gets nothing on it, nor does one who went away since; a security
 * notice (a passkey added or removed) is emailed whatever they chose.
 */
export function channelTurnedOff(n: Message, facts: Facts): string | null {
  if (!n.userId || n.channel === "webhook") return null;
  const u = facts.users.get(n.userId);
  if (!u || u.disabledAt) return "the recipient's account is disabled or gone";
  if (isAway(u, new Date()) && !SECURITY_NOTICES.has(n.kind)) return "the recipient is away";
  if (n.channel === "email" && !u.notifyEmail && !SECURITY_NOTICES.has(n.kind)) return "the recipient turned email off";
  if (n.channel === "push" && !u.notifyPush) return "the recipient turned push off";
  if (n.channel === "slack" && !u.notifySlack) return "the recipient turned Slack off";
  return null;
}

async function emailTo(n: Message): Promise<Outcome> {
  const channel = emailChannel();
  if (channel === "local") return { sent: true, how: KEPT_LOCALLY };
  if (channel === "off") return { sent: false, dropped: "email is off (SMTP_URL is not set)" };
  const body = JSON.parse(n.body) as { text: string; html: string };
  await sendEmail({ to: n.recipient, subject: n.subject, text: body.text, html: body.html, messageId: n.id });
  return { sent: true, how: "accepted by the SMTP server" };
}

/**
 * Web Push to one browser. It lives until the request expires (a push
 * service holds it that long for a phone that is offline); a reminder about
 * the same request replaces an undelivered earlier one (same topic). A
 * subscription the push service no longer knows (404, 410) is removed; one
 * whose endpoint the push-target rule refuses now is not contacted, and the
 * message fails at once with the reason.
 */
async function pushToBrowser(n: Message, facts: Facts): Promise<Outcome> {
  if (pushChannel() === "off") return { sent: false, dropped: "Web Push is off (no VAPID keys)" };
  const { payload, subscriptionId } = JSON.parse(n.body) as PushBody;
  const sub = facts.subscriptions.get(subscriptionId);
  if (!sub) return { sent: false, dropped: "the browser's subscription was removed" };
  const expiresAt = n.approvalId ? facts.approvals.get(n.approvalId)?.expiresAt : null;
  const ttlSeconds = expiresAt ? Math.max(60, Math.ceil((expiresAt.getTime() - Date.now()) / 1000)) : 3600;
  const r = await sendWebPush(sub, payload, { ttlSeconds, topic: n.approvalId ? pushTopic(n.approvalId) : undefined, urgency: "high" });
  if (r.ok) {
    facts.pushUsed.push(sub.id);
    return { sent: true, how: `HTTP ${r.statusCode} from the push service` };
  }
  if (r.gone) {
    facts.pushGone.push(sub.id);
    return { sent: false, dropped: `the push service no longer knows this browser (${r.error}); its subscription was removed` };
  }
  // Not connected to: the endpoint breaks the push-target rule now, and will on every try.
  if (r.refused) return { sent: false, error: `not sent: ${r.error}`, giveUp: true };
  return { sent: false, error: r.error };
}

/**
 * Slack: a post about the request to its policy's channel or to a person
 * (lib/slack/send-slack.ts), or the update of an earlier post once the
 * request is decided. A post is remembered with the outcomes, so its update
 * can find it.
 */
async function toSlack(n: Message, facts: Facts): Promise<Outcome> {
  if (slackChannel() === "off") return { sent: false, dropped: "Slack is off (no SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET)" };
  const body = JSON.parse(n.body) as SlackBody;
  const a = n.approvalId ? facts.slackApprovals.get(n.approvalId) : undefined;
  if (!a) return { sent: false, dropped: "the request is gone" };
  if (body.update) {
    const post = facts.slackPosts.get(body.update.postId);
    const outcome = slackOutcomeOf(a);
    if (!post || !outcome) return { sent: false, dropped: "nothing to update" };
    return updateSlackPost(post, slackFactsOf(a, post.userId !== null), outcome);
  }
  if (!body.post) return { sent: false, dropped: "not a Slack message Countersign writes" };
  let to: string;
  if (body.post.to === "channel") to = body.post.channel;
  else {
    const user = n.userId ? facts.users.get(n.userId) : undefined;
    if (!user) return { sent: false, dropped: "the recipient's account is gone" };
    const slackUser = await slackUserFor(user);
    if (!("id" in slackUser)) return slackUser;
    to = slackUser.id;
  }
  const r = await postToSlack(to, slackFactsOf(a, body.post.to === "dm"));
  if (r.sent && r.post) facts.posted.push({ notificationId: n.id, approvalId: a.id, ...r.post, userId: n.userId });
  return r.sent ? { sent: true, how: r.how } : r;
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
async function postNotificationWebhook(n: Message, facts: Facts): Promise<Outcome> {
  const { payload, signer } = JSON.parse(n.body) as { payload: string; signer?: "global" | "service" };
  let secret: string | string[] | undefined;
  if (signer === "service") {
    const a = n.approvalId ? facts.approvals.get(n.approvalId) : undefined;
    if (!a) return { sent: false, dropped: "the request is gone" };
    secret = await callbackSecretsOf(db(), a.serviceId);
  } else {
    secret = env().NOTIFY_WEBHOOK_SECRET;
    if (!secret) return { sent: false, dropped: "NOTIFY_WEBHOOK_SECRET is not set" };
  }
  const r = await postSignedWebhook(n.recipient, payload, n.id, secret);
  if (r.ok) return { sent: true, how: `HTTP ${r.statusCode}` };
  return { sent: false, error: r.statusCode !== null ? `HTTP ${r.statusCode} (${r.errorClass})` : (r.errorClass ?? "error") };
}
