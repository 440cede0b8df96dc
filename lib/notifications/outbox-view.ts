// The notification outbox as admins see it (/admin/outbox): the newest
// messages with their status, attempts and outcome. Bodies hold no argument
// values (compose-message.ts), so the local mailbox can show them whole.
import "server-only";
import { db } from "../db/client";
import { emailChannel, type EmailChannel } from "./mailer";

export type OutboxMessage = {
  id: string;
  approvalId: string | null;
  channel: string;
  kind: string;
  recipient: string;
  subject: string;
  text: string;
  status: string;
  outcome: string | null;
  attempts: number;
  createdAt: Date;
  sentAt: Date | null;
  nextAttemptAt: Date;
};

export async function listOutbox(limit = 100): Promise<{ channel: EmailChannel; messages: OutboxMessage[] }> {
  const rows = await db().notification.findMany({ orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: limit });
  const messages = rows.map((r) => ({
    id: r.id,
    approvalId: r.approvalId,
    channel: r.channel,
    kind: r.kind,
    recipient: r.recipient,
    subject: r.subject,
    text: (JSON.parse(r.body) as { text: string }).text,
    status: r.status,
    outcome: r.outcome,
    attempts: r.attempts,
    createdAt: r.createdAt,
    sentAt: r.sentAt,
    nextAttemptAt: r.nextAttemptAt,
  }));
  return { channel: emailChannel(), messages };
}
