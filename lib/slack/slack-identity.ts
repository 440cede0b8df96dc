// Who a Slack user is in Countersign: the user with the same email, as
// Slack verified it (users.info: an address Slack reports as confirmed, on a
// real, active account of the configured workspace, SLACK_TEAM_ID), linked
// on first use so later clicks need no lookup. A Slack user with no such
// Countersign user, a disabled one, or one already linked to another Slack
// account acts as nobody. (Every interaction's workspace is checked again in
// interactions.ts, linked users' too.)
import "server-only";
import { db } from "../db/client";
import { inTransaction } from "../db/transaction";
import { env } from "../env";
import { recordAudit } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { AppError } from "../errors";
import { emailSchema } from "../users/schemas";
import { slack } from "./slack-client";

export type SlackActor = { ok: true; userId: string; email: string } | { ok: false; why: string };

const NOT_LINKED =
  "Your Slack account is not linked to a Countersign user: Countersign links it on first use to the user with the same verified email, and there is none. Ask an admin to add you.";

const UNCONFIRMED =
  "Your Slack account is not linked to a Countersign user: Slack does not report its email address as confirmed, so it proves nothing. Confirm it in Slack, then try again.";
const OTHER_WORKSPACE = "Your Slack account is not linked: it is not in the Slack workspace Countersign is set up for.";

export async function slackActor(slackUserId: string, now = new Date()): Promise<SlackActor> {
  const linked = await db().user.findUnique({ where: { slackUserId }, select: { id: true, email: true, disabledAt: true } });
  if (linked)
    return linked.disabledAt ? { ok: false, why: "Your Countersign account is disabled." } : { ok: true, userId: linked.id, email: linked.email };

  let profile: { email?: string; confirmed?: boolean; teamId?: string; usable: boolean };
  try {
    const info = await slack().users.info({ user: slackUserId });
    const u = info.user;
    profile = {
      email: u?.profile?.email,
      confirmed: u?.is_email_confirmed,
      teamId: u?.team_id,
      usable: Boolean(u) && !u?.deleted && !u?.is_bot && !u?.is_restricted && !u?.is_ultra_restricted,
    };
  } catch {
    return { ok: false, why: "Countersign could not look up your Slack account just now. Try again in a moment." };
  }
  // Only an address Slack says it confirmed proves anything; one it does not vouch for (false, or not said) does not.
  if (profile.confirmed !== true) return { ok: false, why: UNCONFIRMED };
  const ours = env().SLACK_TEAM_ID;
  if (ours === undefined || profile.teamId !== ours) return { ok: false, why: OTHER_WORKSPACE };
  const email = emailSchema.safeParse(profile.email ?? "");
  if (!profile.usable || !email.success) return { ok: false, why: NOT_LINKED };

  return inTransaction(async (tx): Promise<SlackActor> => {
    const user = await tx.user.findUnique({ where: { email: email.data }, select: { id: true, email: true, disabledAt: true, slackUserId: true } });
    if (!user) return { ok: false, why: NOT_LINKED };
    if (user.disabledAt) return { ok: false, why: "Your Countersign account is disabled." };
    if (user.slackUserId && user.slackUserId !== slackUserId) {
      return { ok: false, why: "Your Countersign user is linked to another Slack account. Ask an admin to unlink it." };
    }
    await tx.user.update({ where: { id: user.id }, data: { slackUserId, slackLinkedAt: now } });
    recordAudit({ type: "user.slack_linked", actor: `user:${user.email}`, data: { user: user.email, slack_user: slackUserId } });
    return { ok: true, userId: user.id, email: user.email };
  });
}

/**
 * Forgets which Slack user acts as a Countersign user (an admin's decision:
 * a changed Slack account, a mistaken link). The next click from Slack links
 * again by verified email.
 */
export async function unlinkSlackUser(email: unknown, actor: Actor): Promise<{ email: string; slackUserId: string }> {
  const address = emailSchema.parse(email);
  return inTransaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { email: address }, select: { id: true, slackUserId: true } });
    if (!user) throw new AppError("not-found", `No user ${address}.`);
    if (!user.slackUserId) throw new AppError("conflict", `${address} has no linked Slack account.`);
    await tx.user.update({ where: { id: user.id }, data: { slackUserId: null, slackLinkedAt: null } });
    recordAudit({ type: "user.slack_unlinked", actor, data: { user: address, slack_user: user.slackUserId } });
    return { email: address, slackUserId: user.slackUserId };
  });
}
