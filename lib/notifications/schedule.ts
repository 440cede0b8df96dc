// When reviewers are told about a request: trigger rows written in the
// transaction that creates the request, so the notices survive a crash right
// after the webhook's answer. lib/notifications/fan-out.ts turns due triggers
// into messages (and escalates, for an escalation trigger).
import "server-only";
import type { Tx } from "../db/client";
import { newId } from "../ids";

export type TriggerKind = "needs_review" | "quorum_unreachable" | "reminder" | "escalation";

export async function scheduleNotice(tx: Tx, approvalId: string, kind: TriggerKind, at: Date, seq = 0): Promise<void> {
  await tx.notificationTrigger.create({ data: { id: newId("ntr"), approvalId, kind, seq, dueAt: at } });
}

/** When each reminder and the escalation fall due: fractions of this request's own lifetime, and seconds after it arrived. */
export function followUpTimes(
  request: { createdAt: Date; expiresAt: Date },
  policy: { remindAt: readonly number[]; escalateAfterSeconds: number | null },
): { reminders: Date[]; escalation: Date | null } {
  const start = request.createdAt.getTime();
  const life = request.expiresAt.getTime() - start;
  const reminders = policy.remindAt.map((f) => new Date(start + Math.round(f * life)));
  const escalateAt = policy.escalateAfterSeconds === null ? null : start + policy.escalateAfterSeconds * 1000;
  // A request that expires first is never escalated (expires_in can make it shorter than the policy's TTL).
  return { reminders, escalation: escalateAt !== null && escalateAt < request.expiresAt.getTime() ? new Date(escalateAt) : null };
}

/** The policy's reminders (seq 1, 2, …) and its escalation, for a request just created. */
export async function scheduleFollowUps(
  tx: Tx,
  request: { id: string; createdAt: Date; expiresAt: Date },
  policy: { remindAt: readonly number[]; escalateAfterSeconds: number | null },
): Promise<void> {
  const { reminders, escalation } = followUpTimes(request, policy);
  for (const [i, at] of reminders.entries()) await scheduleNotice(tx, request.id, "reminder", at, i + 1);
  if (escalation) await scheduleNotice(tx, request.id, "escalation", escalation);
}
