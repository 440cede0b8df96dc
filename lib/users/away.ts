// Away (CONTRACT §21): a reviewer says on /settings that they are away until
// a time. Until then they are told nothing (new requests, reminders,
// escalations go to the rest: recipients.ts), and a request that only away
// reviewers could approve is flagged as unreachable when it arrives, like
// one nobody could approve. Away changes no role and no authority: an away
// reviewer who opens a request may still decide it. It ends by itself at
// its time; "I'm back" ends it sooner.
import "server-only";
import { db } from "../db/client";
import { inTransaction } from "../db/transaction";
import { holdAuditHead, recordAudit } from "../audit/append-event";
import { AppError } from "../errors";
import { untilSchema } from "./schemas";

/** The longest one can be away in one go. */
const MAX_AWAY_MS = 366 * 24 * 3600_000;

/** Away at `now`: a time set, and not yet reached. */
export const isAway = (u: { awayUntil: Date | null }, now: Date) => u.awayUntil !== null && u.awayUntil.getTime() > now.getTime();

/** Marks the user away until `until` (ISO 8601; UTC when no offset), which must lie ahead of `now` and within a year. */
export async function setAway(userId: string, until: string, now = new Date()): Promise<{ awayUntil: Date }> {
  const parsed = untilSchema.safeParse(until);
  if (!parsed.success) throw new AppError("invalid-request", `away until: ${parsed.error.issues[0]!.message}`);
  const at = parsed.data;
  if (at.getTime() <= now.getTime()) throw new AppError("invalid-request", "away until: must be in the future");
  if (at.getTime() - now.getTime() > MAX_AWAY_MS) throw new AppError("invalid-request", "away until: must be within a year");
  return inTransaction(async (tx) => {
    await holdAuditHead(tx);
    const user = await tx.user.update({ where: { id: userId }, data: { awayUntil: at }, select: { email: true } });
    recordAudit({ type: "user.away", actor: `user:${user.email}`, data: { user: user.email, until: at.toISOString() } });
    return { awayUntil: at };
  });
}

/** Back before the time set; nothing to do (and nothing recorded) when not away. */
export async function endAway(userId: string, now = new Date()): Promise<{ wasAway: boolean }> {
  return inTransaction(async (tx) => {
    await holdAuditHead(tx);
    const user = await tx.user.findUniqueOrThrow({ where: { id: userId }, select: { email: true, awayUntil: true } });
    if (!isAway(user, now)) return { wasAway: false };
    await tx.user.update({ where: { id: userId }, data: { awayUntil: null } });
    recordAudit({ type: "user.back", actor: `user:${user.email}`, data: { user: user.email } });
    return { wasAway: true };
  });
}

/** Until when the user is away, or null when they are not (a time that has passed counts as back). */
export async function awayUntil(userId: string, now = new Date()): Promise<Date | null> {
  const u = await db().user.findUnique({ where: { id: userId }, select: { awayUntil: true } });
  return u && isAway(u, now) ? u.awayUntil : null;
}
