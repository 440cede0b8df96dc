// Writing a message into the outbox. The dedupe key makes a message exist
// once however often the fan-out that writes it runs (a lease can run out
// and another instance repeat it); the worker in deliver-notifications.ts
// sends it.
import "server-only";
import type { Tx } from "../db/client";
import { newId } from "../ids";

export type Channel = "email" | "push" | "webhook";

/** What a message's body holds, by channel: always a readable `text` for the outbox page. */
export type MessageBody =
  | { channel: "email"; text: string; html: string }
  | { channel: "push"; text: string; payload: string; subscriptionId: string }
  | { channel: "webhook"; text: string; payload: string; signer: "global" | "service" };

export type OutboxMessage = {
  dedupeKey: string;
  approvalId: string | null;
  userId: string | null;
  kind: string;
  /** Where it goes, in words an admin may read (never a push endpoint's secret path). */
  recipient: string;
  subject: string;
  body: MessageBody;
};

export async function queueMessage(tx: Tx, m: OutboxMessage, now = new Date()): Promise<void> {
  const { channel, ...body } = m.body;
  await tx.notification.upsert({
    where: { dedupeKey: m.dedupeKey },
    update: {},
    create: {
      id: newId("ntf"),
      dedupeKey: m.dedupeKey,
      approvalId: m.approvalId,
      userId: m.userId,
      channel,
      kind: m.kind,
      recipient: m.recipient,
      subject: m.subject,
      body: JSON.stringify(body),
      nextAttemptAt: now,
    },
  });
}

/** How a push subscription is named to admins: the person and the push service's host, not the endpoint. */
export function pushRecipient(email: string, endpoint: string): string {
  let host = "unknown push service";
  try {
    host = new URL(endpoint).host;
  } catch {
    // a stored endpoint was validated on the way in; keep the words if not
  }
  return `${email} (push via ${host})`;
}
