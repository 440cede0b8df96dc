// The notification outbox as admins see it (/admin/outbox): the messages,
// newest first, a page at a time (all of them, or those of one status or
// whose recipient contains some text), with their status, attempts and
// outcome, and each message's own attempt log. Bodies hold no argument values (compose-message.ts), so the
// local mailbox can show them whole; an attempt's detail is words without values.
import "server-only";
import { z } from "zod";
import { pageNumberSchema } from "../http/form-fields";
import { db } from "../db/client";
import { direct, likeLiteral, type SqlParam } from "../db/sql";
import { emailChannel, KEPT_LOCALLY, type EmailChannel } from "./mailer";

// Each message carries its attempts and its text: 25 a page keep the page
// short on a phone and an accessibility scan of it in seconds (at 100 it
// was the slowest page in the browser tests).
export const OUTBOX_PAGE_SIZE = 25;

export const OUTBOX_STATUSES = ["pending", "sent", "dropped", "failed"] as const;

/** The page's query: `status` (one of OUTBOX_STATUSES), `to` (part of the recipient, any case) and `page` (from 1). */
export const outboxQuerySchema = z.object({
  // The form's "any status" sends an empty value.
  status: z.preprocess((v) => (v === "" ? undefined : v), z.enum(OUTBOX_STATUSES, `status must be one of ${OUTBOX_STATUSES.join(", ")}`).optional()),
  to: z
    .string()
    .trim()
    .max(200, "the recipient search is limited to 200 characters")
    .optional()
    .transform((v) => v || undefined),
  page: pageNumberSchema,
});

export type OutboxQuery = z.infer<typeof outboxQuerySchema>;

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

export type OutboxPage = {
  channel: EmailChannel;
  messages: OutboxMessage[];
  /** Messages matching the query, on every page. */
  total: number;
  page: number;
  pages: number;
  status: OutboxQuery["status"];
  to: string | undefined;
};

/** One page of the messages matching `query`, newest first; past the last page, the last. */
export async function listOutbox(query: Partial<OutboxQuery> = {}, pageSize = OUTBOX_PAGE_SIZE): Promise<OutboxPage> {
  // The page's ids in SQL, for LIKE's escape (Prisma's `contains` would read
  // % and _ as wildcards) and any case: an email's recipient is the address,
  // a push's the address and the push service, a webhook's its URL.
  const clauses: string[] = [];
  const params: SqlParam[] = [];
  if (query.status) {
    clauses.push("status = ?");
    params.push(query.status);
  }
  if (query.to) {
    clauses.push("LOWER(recipient) LIKE ? ESCAPE '!'");
    params.push(`%${likeLiteral(query.to.toLowerCase())}%`);
  }
  const where = clauses.length > 0 ? ` WHERE ${clauses.join(" AND ")}` : "";
  const sql = direct();
  const [count] = await sql.all<{ n: unknown }>(`SELECT COUNT(*) AS n FROM notifications${where}`, params);
  const total = Number(count?.n ?? 0);
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const page = Math.min(query.page ?? 1, pages);
  const ids = await sql.all<{ id: string }>(`SELECT id FROM notifications${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, [
    ...params,
    pageSize,
    (page - 1) * pageSize,
  ]);
  // The attempts come in the same call, only for the messages on the page.
  const rows = await db().notification.findMany({
    where: { id: { in: ids.map((r) => r.id) } },
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
  const byId = new Map(
    rows.map(({ body, attemptsLog, ...r }) => [r.id, { ...r, shownStatus: shownStatus(r), text: readableText(body), log: attemptsLog }]),
  );
  const messages = ids.flatMap(({ id }) => byId.get(id) ?? []);
  return { channel: emailChannel(), messages, total, page, pages, status: query.status, to: query.to };
}
