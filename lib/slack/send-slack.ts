// Slack messages from the outbox (lib/notifications/deliver-notifications.ts
// calls these): a post about a request to a channel or a person, and the
// update of a posted message once its request is decided. The message is
// built when it is sent, from the request as it is then; a post is
// remembered (slack_posts) so the update can find it. A person is reached
// by direct message as their linked Slack user, or the Slack user with
// their email. Failures are Slack's error codes, never message content;
// a rate limit carries Slack's Retry-After.
import "server-only";
import { env } from "../env";
import { decidedMessage, pendingMessage, type SlackOutcome, type SlackRequestFacts } from "./blocks";
import { slack, slackFailure } from "./slack-client";
import { holdsRedactedValues } from "../reviews/visibility";

export type SlackSendOutcome =
  | { sent: true; how: string; post?: { channel: string; ts: string } }
  | { sent: false; dropped: string }
  | { sent: false; error: string; retryAfterMs?: number };

/**
 * The request's facts for a Slack message, from its row. `forReviewer`: the
 * message goes to one person who may decide it (a direct message), who may
 * see the digest; a channel's members may not all be such people.
 */
export function slackFactsOf(
  a: {
    id: string;
    tool: string;
    effects: string;
    environment: string | null;
    runId: string;
    callId: string;
    requestedBy: string | null;
    expiresAt: Date;
    argsDigest: string;
    summary: string | null;
    redactedArgs: string;
    quorum: number;
    approveCount: number;
    argsSalt: string | null;
    service: { slug: string };
  },
  forReviewer: boolean,
): SlackRequestFacts {
  return {
    approvalId: a.id,
    tool: a.tool,
    service: a.service.slug,
    effects: a.effects,
    environment: a.environment,
    runId: a.runId,
    callId: a.callId,
    requestedBy: a.requestedBy,
    expiresAt: a.expiresAt,
    argsDigest: a.argsDigest,
    digestShown: forReviewer || a.argsSalt !== null || !holdsRedactedValues(a.redactedArgs),
    summary: a.summary,
    redactedArgs: a.redactedArgs,
    reviewUrl: `${env().appUrl}/approvals/${a.id}`,
    quorum: a.quorum,
    approveCount: a.approveCount,
  };
}

export const slackApprovalSelect = {
  id: true,
  tool: true,
  effects: true,
  environment: true,
  runId: true,
  callId: true,
  requestedBy: true,
  expiresAt: true,
  argsDigest: true,
  argsSalt: true,
  summary: true,
  redactedArgs: true,
  quorum: true,
  approveCount: true,
  status: true,
  decidedAt: true,
  decidedBy: true,
  service: { select: { slug: true } },
  reviews: { select: { decision: true, reason: true }, where: { decision: "deny" } },
} as const;

/** Posts the request's message to a channel, or to a person (their Slack user id). */
export async function postToSlack(to: string, facts: SlackRequestFacts): Promise<SlackSendOutcome> {
  const message = pendingMessage(facts);
  try {
    const r = await slack().chat.postMessage({
      channel: to,
      text: message.text,
      blocks: message.blocks as never,
      unfurl_links: false,
      unfurl_media: false,
    });
    if (!r.channel || !r.ts) return { sent: false, error: "Slack answered without the message's place" };
    return { sent: true, how: "posted by Slack", post: { channel: r.channel, ts: r.ts } };
  } catch (e) {
    return failed(e, {
      channel_not_found: "Slack has no such channel (or the app is not in it)",
      not_in_channel: "the Slack app is not a member of the channel",
      is_archived: "the Slack channel is archived",
    });
  }
}

/**
 * The Slack user a person is reached as: the one linked to them, or the one
 * with their email, when it is one the link would accept (the email
 * confirmed, in the configured workspace): a direct message names the call.
 */
export async function slackUserFor(user: { email: string; slackUserId: string | null }): Promise<{ id: string } | SlackSendOutcome> {
  if (user.slackUserId) return { id: user.slackUserId };
  try {
    const r = await slack().users.lookupByEmail({ email: user.email });
    if (!r.user?.id) return { sent: false, dropped: "no Slack user has the recipient's email" };
    if (r.user.is_email_confirmed !== true || r.user.team_id !== env().SLACK_TEAM_ID) {
      return { sent: false, dropped: "the Slack user with the recipient's email is not confirmed in the configured workspace" };
    }
    return { id: r.user.id };
  } catch (e) {
    return failed(e, { users_not_found: "no Slack user has the recipient's email" });
  }
}

/** Brings a posted message up to date with its decided request: who decided, no buttons. */
export async function updateSlackPost(
  post: { channel: string; ts: string },
  facts: SlackRequestFacts,
  outcome: SlackOutcome,
): Promise<SlackSendOutcome> {
  const message = decidedMessage(facts, outcome);
  try {
    await slack().chat.update({ channel: post.channel, ts: post.ts, text: message.text, blocks: message.blocks as never });
    return { sent: true, how: "updated by Slack" };
  } catch (e) {
    return failed(e, {
      message_not_found: "the Slack message was deleted",
      channel_not_found: "the Slack channel is gone",
      cant_update_message: "Slack refused the update",
    });
  }
}

/** The outcome a Slack message shows, from the request's row. */
export function slackOutcomeOf(a: {
  status: string;
  decidedAt: Date | null;
  decidedBy: string;
  reviews: Array<{ decision: string; reason: string | null }>;
}): SlackOutcome | null {
  if (a.status !== "approved" && a.status !== "denied" && a.status !== "expired" && a.status !== "cancelled" && a.status !== "revised") return null;
  let decidedBy: string[] = [];
  try {
    decidedBy = (JSON.parse(a.decidedBy) as unknown[]).filter((x): x is string => typeof x === "string");
  } catch {
    // shown without names
  }
  return { status: a.status, decidedBy, decidedAt: a.decidedAt, reason: a.reviews.find((r) => r.decision === "deny")?.reason ?? null };
}

/**
 * Slack's answer as an outcome: an error code that will not change on a
 * retry (named in `permanent`) drops the message; anything else is retried.
 */
function failed(e: unknown, permanent: Record<string, string>): SlackSendOutcome {
  const f = slackFailure(e);
  const code = (e as { data?: { error?: string } })?.data?.error;
  if (code && permanent[code]) return { sent: false, dropped: permanent[code] };
  if (code === "invalid_auth" || code === "not_authed" || code === "account_inactive" || code === "token_revoked") {
    return { sent: false, error: `Slack refused the bot token (${code})` };
  }
  return { sent: false, error: f.error, ...(f.retryAfterMs ? { retryAfterMs: f.retryAfterMs } : {}) };
}
