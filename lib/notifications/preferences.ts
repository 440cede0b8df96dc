// Which channels a user is told on (/settings). All on by default; the
// outbox reads them when it writes a message and again when it sends one.
import "server-only";
import { z } from "zod";
import { db } from "../db/client";
import { AppError } from "../errors";

export type ChannelPreferences = { notifyEmail: boolean; notifyPush: boolean; notifySlack: boolean };

/** From a form: a checkbox is "on" when ticked and absent otherwise; explicit true/false also accepted. */
const onOff = z
  .union([z.boolean(), z.enum(["on", "true", "1", "off", "false", "0"])])
  .optional()
  .transform((v) => v === true || v === "on" || v === "true" || v === "1");

export const preferencesSchema = z.object({ notifyEmail: onOff, notifyPush: onOff, notifySlack: onOff });

/** The user's channels, and whether a Slack account acts as them (shown on /settings). */
export async function getPreferences(userId: string): Promise<ChannelPreferences & { slackLinked: boolean }> {
  const u = await db().user.findUnique({
    where: { id: userId },
    select: { notifyEmail: true, notifyPush: true, notifySlack: true, slackUserId: true },
  });
  if (!u) throw new AppError("not-found", "No such user.");
  return { notifyEmail: u.notifyEmail, notifyPush: u.notifyPush, notifySlack: u.notifySlack, slackLinked: u.slackUserId !== null };
}

export async function updatePreferences(userId: string, input: unknown): Promise<ChannelPreferences> {
  const p = preferencesSchema.parse(input);
  const { count } = await db().user.updateMany({
    where: { id: userId },
    data: { notifyEmail: p.notifyEmail, notifyPush: p.notifyPush, notifySlack: p.notifySlack },
  });
  if (count === 0) throw new AppError("not-found", "No such user.");
  return p;
}
