// The notification outbox as admins see it (/admin/outbox): the newest
// messages with their status, attempts and outcome, and each message's own
// attempt log. Bodies hold no argument values (compose-message.ts), so the
// local mailbox can show them whole; an attempt's detail is words without values.
import "server-only";
import { db } from "../db/client";
import { emailChannel, KEPT_LOCALLY, type EmailChannel } from "./mailer";

/** Attempts shown per message: a message retried for a day has about 35. */
export const ATTEMPTS_SHOWN = 20;

export type OutboxAttempt = { at: Date; result: string; detail: string; durationMs: number };

export type OutboxMessage = {
  id: string;
  approvalId: string | null;
  channel: string;
  kind: string;
  recipient: string;
  subject: string;
  text: string;
  status: string;
  /** What the page's badge says: "kept locally" for an email the local mailbox kept (its status is "sent", but nothing went out). */
  shownStatus: string;
  outcome: string | null;
  attempts: number;
  createdAt: Date;
  sentAt: Date | null;
  nextAttemptAt: Date;
  /** The latest attempts, newest first, at most ATTEMPTS_SHOWN. */
  log: OutboxAttempt[];
};

/** The body's readable text; every channel's body carries one (queue-message.ts). */
function readableText(body: string): string {
  try {
    const parsed = JSON.parse(body) as { text?: unknown };
    return typeof parsed.text === "string" ? parsed.text : "";
  } catch {
    return "";
  }
}

/** A message's status as the outbox page words it: an email kept in the local mailbox was not sent anywhere. */
export function shownStatus(m: { channel: string; status: string; outcome: string | null }): string {
  return m.channel === "email" && m.status === "sent" && m.outcome === KEPT_LOCALLY ? "kept locally" : m.status;
}

export async function listOutbox(limit = 100): Promise<{ channel: EmailChannel; messages: OutboxMessage[] }> {
  // The attempts come in the same call, only for the messages on the page.
  const rows = await db().notification.findMany({
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    select: {
      id: true,
      approvalId: true,
      channel: true,
      kind: true,
      recipient: true,
      subject: true,
      body: true,
      status: true,
      outcome: true,
      attempts: true,
      createdAt: true,
      sentAt: true,
      nextAttemptAt: true,
      attemptsLog: {
        orderBy: [{ at: "desc" }, { id: "desc" }],
        take: ATTEMPTS_SHOWN,
        select: { at: true, result: true, detail: true, durationMs: true },
      },
    },
  });
  const messages = rows.map(({ body, attemptsLog, ...r }) => ({ ...r, shownStatus: shownStatus(r), text: readableText(body), log: attemptsLog }));
  return { channel: emailChannel(), messages };
}
