// When reviewers are told about a request: trigger rows written in the
// transaction that creates the request, so the notices survive a crash right
// after the webhook's answer. lib/notifications/fan-out.ts turns due triggers
// into messages (and escalates, for an escalation trigger).
import "server-only";
import { type Sql } from "../db/sql";
import { newId } from "../ids";

export type TriggerKind = "needs_review" | "quorum_unreachable" | "reminder" | "escalation";

export type Notice = { kind: TriggerKind; at: Date; seq?: number };

/** Trigger rows for one request, in one statement. */
export async function scheduleNotices(sql: Sql, approvalId: string, notices: readonly Notice[]): Promise<void> {
  if (notices.length === 0) return;
  const now = new Date();
  await sql.run(
    `INSERT INTO notification_triggers (id, approval_id, kind, seq, due_at, status, created_at) VALUES ${notices.map(() => "(?, ?, ?, ?, ?, 'pending', ?)").join(", ")}`,
    notices.flatMap((n) => [newId("ntr"), approvalId, n.kind, n.seq ?? 0, n.at, now]),
  );
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
export function followUpNotices(
  request: { createdAt: Date; expiresAt: Date },
  policy: { remindAt: readonly number[]; escalateAfterSeconds: number | null },
): Notice[] {
  const { reminders, escalation } = followUpTimes(request, policy);
  return [
    ...reminders.map((at, i): Notice => ({ kind: "reminder", at, seq: i + 1 })),
    ...(escalation ? [{ kind: "escalation", at: escalation } as const] : []),
  ];
}
