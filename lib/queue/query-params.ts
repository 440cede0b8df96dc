// The queue page's URL: its search parameters (view, search, filters, order,
// one cursor per section) parsed with zod, and the keyset cursor's text form.
import { z } from "zod";
import { EFFECTS } from "../policies/match-policy";
import { slugSchema } from "../services/schemas";
import { APPROVAL_STATUSES, idSchema, toolSchema } from "../approvals/schemas";

/**
 * A position in a section: the sort key (created, expiry or decision time,
 * per the section's order) and id of the last row shown, as "<epoch ms>.<id>".
 */
export const cursorSchema = z
  .string()
  .regex(/^\d{1,15}\.[A-Za-z0-9_-]{1,100}$/, "must be a cursor from a previous page")
  .transform((s) => {
    const dot = s.indexOf(".");
    return { createdAt: new Date(Number(s.slice(0, dot))), id: s.slice(dot + 1) };
  });

export type Cursor = z.output<typeof cursorSchema>;

export function encodeCursor(row: { createdAt: Date; id: string }): string {
  return `${row.createdAt.getTime()}.${row.id}`;
}

/** Orders of the pending sections; recent decisions are always newest decision first. */
export const QUEUE_ORDERS = ["oldest", "newest", "expiring"] as const;
/** Whose requests: the viewer's own ("My requests") or those they voted on ("Decided by me"). */
export const QUEUE_VIEWS = ["mine", "voted"] as const;
export type QueueView = (typeof QUEUE_VIEWS)[number];
export const SEARCH_MAX_LENGTH = 100;

/** Search text: trimmed, printable, bounded. Matched as a literal substring. */
export const searchSchema = z
  .string()
  .trim()
  .min(1)
  .max(SEARCH_MAX_LENGTH)
  .regex(/^[^\p{C}]+$/u, "must contain only printable characters");

/** The queue's GET parameters, one schema per field so one bad value does not drop the others. */
export const queueQueryFields = {
  view: z.enum(QUEUE_VIEWS),
  q: searchSchema,
  service: slugSchema,
  run: idSchema,
  tool: toolSchema,
  effects: z.enum(EFFECTS),
  status: z.enum(APPROVAL_STATUSES),
  order: z.enum(QUEUE_ORDERS),
  act: cursorSchema,
  wait: cursorSchema,
  done: cursorSchema,
} as const;

type Fields = typeof queueQueryFields;
export type QueueQuery = { [K in keyof Fields]?: z.output<Fields[K]> };
export type QueueQueryParam = keyof Fields;

/**
 * Parses URL search parameters (first value of each; empty means absent).
 * Returns the valid fields, their raw text (for links that keep them) and
 * the names of the fields that were invalid and are ignored.
 */
export function parseQueueQuery(params: Record<string, string | string[] | undefined>): {
  query: QueueQuery;
  raw: Partial<Record<QueueQueryParam, string>>;
  invalid: QueueQueryParam[];
} {
  const query: Record<string, unknown> = {};
  const raw: Partial<Record<QueueQueryParam, string>> = {};
  const invalid: QueueQueryParam[] = [];
  for (const key of Object.keys(queueQueryFields) as QueueQueryParam[]) {
    const given = params[key];
    const value = Array.isArray(given) ? given[0] : given;
    if (value === undefined || value === "") continue;
    const parsed = queueQueryFields[key].safeParse(value);
    if (parsed.success) {
      query[key] = parsed.data;
      raw[key] = value;
    } else invalid.push(key);
  }
  return { query: query as QueueQuery, raw, invalid };
}

/**
 * The part of the queue's query a request's page carries (issue 36): its
 * filters and order, so that Previous, Next and "Approve & next" walk the
 * list the reviewer came from. Not the view (a view's requests are not the
 * viewer's to decide), the status or the page cursors.
 */
export const CARRIED_PARAMS = ["q", "service", "run", "tool", "effects", "order"] as const satisfies readonly QueueQueryParam[];

/** The carried fields of a parsed query. */
export function carriedQuery(query: QueueQuery): QueueQuery {
  const out: QueueQuery = {};
  for (const k of CARRIED_PARAMS) if (query[k] !== undefined) (out as Record<string, unknown>)[k] = query[k];
  return out;
}

/** "?effects=write&order=expiring" (or ""), from the raw text of valid fields: what a link to a request's page appends. */
export function carriedSearch(raw: Partial<Record<QueueQueryParam, string>>): string {
  const params = new URLSearchParams();
  for (const k of CARRIED_PARAMS) if (raw[k]) params.set(k, raw[k]);
  const qs = params.toString();
  return qs ? `?${qs}` : "";
}

/** The carried query back from its text form (a link's search, or the decision form's field); invalid fields are dropped. */
export function parseCarried(search: string): { query: QueueQuery; search: string } {
  const params = new URLSearchParams(search.length > 2_000 ? "" : search);
  const given: Record<string, string> = {};
  for (const k of CARRIED_PARAMS) {
    const v = params.get(k);
    if (v !== null) given[k] = v;
  }
  const { query, raw } = parseQueueQuery(given);
  return { query: carriedQuery(query), search: carriedSearch(raw) };
}
