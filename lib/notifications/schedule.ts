// When reviewers are told about a request: a trigger row written in the
// transaction that creates the request, so the notice survives a crash right
// after the webhook's answer. lib/notifications/fan-out.ts turns due triggers
// into messages.
import "server-only";
import type { Tx } from "../db/client";
import { newId } from "../ids";

export async function scheduleNeedsReview(tx: Tx, approvalId: string, at: Date): Promise<void> {
  await tx.notificationTrigger.create({ data: { id: newId("ntr"), approvalId, kind: "needs_review", seq: 0, dueAt: at } });
}
