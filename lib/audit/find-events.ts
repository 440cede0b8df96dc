// The audit trail for the admin page: newest first, filtered, paged by a
// keyset on seq (`before`), so a page costs the same however deep it is and
// events appended meanwhile never shift a page.
import "server-only";
import { z } from "zod";
import { db } from "../db/client";
import { AUDIT_EVENT_TYPES } from "./events";

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .optional()
    .transform((v) => (v ? v : undefined));

/** Dates as an ISO string, or a datetime-local value read as UTC. */
const optionalTime = z
  .string()
  .trim()
  .optional()
  .transform((v, ctx) => {
    if (!v) return undefined;
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(v) ? `${v}Z` : v;
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) {
      ctx.addIssue({ code: "custom", message: "must be a date and time" });
      return z.NEVER;
    }
    return d;
  });

export const auditQuerySchema = z.object({
  type: z
    .enum(AUDIT_EVENT_TYPES, "unknown event type")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  actor: optionalText(330),
  approvalId: optionalText(200),
  from: optionalTime,
  to: optionalTime,
  before: z.coerce.number().int().min(1).optional().catch(undefined),
  limit: z.coerce.number().int().min(1).max(200).default(50).catch(50),
});

export type AuditQuery = z.input<typeof auditQuerySchema>;

export type AuditEventView = {
  seq: number;
  id: string;
  at: Date;
  type: string;
  actor: string;
  approvalId: string | null;
  data: Record<string, unknown>;
};

/** The page's filter as a query: the same for the page and its export. */
function filterWhere(q: z.output<typeof auditQuerySchema>) {
  return {
    ...(q.type ? { type: q.type } : {}),
    ...(q.actor ? { actor: { contains: q.actor } } : {}),
    ...(q.approvalId ? { approvalId: q.approvalId } : {}),
    ...(q.from || q.to ? { at: { ...(q.from ? { gte: q.from } : {}), ...(q.to ? { lt: q.to } : {}) } } : {}),
  };
}

/** The filter fields of the page (what its export honours). */
export const AUDIT_FILTERS = ["type", "actor", "approvalId", "from", "to"] as const;

/**
 * Every event the page's filter selects, oldest first, a batch at a time
 * (constant memory), with its chain fields as stored: the page's "download
 * these events". A filtered export leaves events out, so it is not a chain
 * that `audit verify` can check; the whole chain is the unfiltered export.
 */
export async function* filteredEventsInOrder(input: AuditQuery, batch = 1000) {
  const where = filterWhere(auditQuerySchema.parse(input));
  let after = 0;
  for (;;) {
    const rows = await db().auditEvent.findMany({
      where: { ...where, seq: { gt: after } },
      orderBy: { seq: "asc" },
      take: batch,
      select: { seq: true, id: true, at: true, type: true, actor: true, approvalId: true, data: true, prevHash: true, hash: true },
    });
    yield* rows;
    if (rows.length < batch) return;
    after = rows[rows.length - 1]!.seq;
  }
}

export async function findAuditEvents(input: AuditQuery): Promise<{ events: AuditEventView[]; nextBefore: number | null }> {
  const q = auditQuerySchema.parse(input);
  const rows = await db().auditEvent.findMany({
    where: { ...filterWhere(q), ...(q.before ? { seq: { lt: q.before } } : {}) },
    orderBy: { seq: "desc" },
    take: q.limit + 1,
    select: { seq: true, id: true, at: true, type: true, actor: true, approvalId: true, data: true },
  });
  const page = rows.slice(0, q.limit);
  return {
    events: page.map((r) => ({ ...r, data: parseData(r.data) })),
    nextBefore: rows.length > q.limit ? page[page.length - 1]!.seq : null,
  };
}

function parseData(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
  } catch {
    return { unparsable: true };
  }
}
