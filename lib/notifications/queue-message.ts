// Writing a message into the outbox. The dedupe key makes a message exist
// once however often the fan-out that writes it runs (a lease can run out
// and another instance repeat it); the worker in deliver-notifications.ts
// sends it.
import "server-only";
import type { Sql } from "../db/sql";
import { insertRows } from "../db/rows";
import { newId } from "../ids";

export type Channel = "email" | "push" | "webhook" | "slack";

/** Security notices (a passkey added or removed, lib/passkeys/passkey-notice.ts): sent whatever channels the person chose. */
export const SECURITY_NOTICE_KINDS = ["passkey_registered", "passkey_removed"] as const;
export type SecurityNoticeKind = (typeof SECURITY_NOTICE_KINDS)[number];

/** What a message's body holds, by channel: always a readable `text` for the outbox page. */
export type MessageBody =
  | { channel: "email"; text: string; html: string }
  | { channel: "push"; text: string; payload: string; subscriptionId: string }
  | { channel: "webhook"; text: string; payload: string; signer: "global" | "service" }
  /** A Slack post about the request, built when it is sent (lib/slack/send-slack.ts): to a channel, or to the recipient by direct message. */
  | { channel: "slack"; text: string; post: { to: "channel"; channel: string } | { to: "dm" } }
  /** A posted Slack message brought up to date with its request. */
  | { channel: "slack"; text: string; update: { postId: string } };

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

/**
 * Writes the messages due at `now`, leaving out each whose dedupe key is
 * written already (a repeated fan-out finds its messages there), in as few
 * statements as the batch allows.
 */
export async function writeMessages(sql: Sql, messages: readonly OutboxMessage[], now = new Date()): Promise<void> {
  await insertRows(
    sql,
    "Notification",
    messages.map((m) => {
      const { channel, ...body } = m.body;
      return {
        id: newId("ntf"),
        dedupeKey: m.dedupeKey,
        approvalId: m.approvalId,
        userId: m.userId,
        channel,
        kind: m.kind,
        recipient: m.recipient,
        subject: m.subject,
        body: JSON.stringify(body),
        status: "pending",
        attempts: 0,
        nextAttemptAt: now,
        createdAt: now,
      };
    }),
    { skipDuplicatesOf: "dedupeKey" },
  );
}

/** Writes one message, unless a message with its dedupe key exists. */
export async function queueMessage(sql: Sql, m: OutboxMessage, now = new Date()): Promise<void> {
  await writeMessages(sql, [m], now);
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
