// What every queue section shares: the row it reads, the filters, keyset
// paging on (key, id) and capped counts, where the key is the creation time,
// the expiry (pending, "expiring soonest") or the decision time (recent
// decisions). A page costs the same at row 10 and at row 100,000 because each
// query starts its index range at the cursor and stops after a page.
import "server-only";
import { db, Prisma } from "../db/client";
import { requestedBySql, type SqlViewer } from "../reviews/eligibility-sql";
import { likeLiteral } from "../db/sql";
import { dialect } from "./dialect";
import { encodeCursor, type Cursor, type QueueQuery } from "./query-params";

/** One findQueue() call: who looks, with which filters, at what moment, how many rows. */
export type SectionContext = {
  viewer: SqlViewer;
  query: QueueQuery;
  serviceId: string | null;
  now: Date;
  pageSize: number;
  countCap: number;
};

/** The request columns a queue row needs, as the database returns them. */
export type RawRow = {
  id: string;
  tool: string;
  service_id: string;
  run_id: string;
  effects: string;
  environment: string | null;
  requested_by: string | null;
  requester_key: string | null;
  summary: string | null;
  status: string;
  required_roles: string;
  quorum: number | bigint;
  approve_count: number | bigint;
  created_at: Date | string;
  expires_at: Date | string;
  decided_at: Date | string | null;
  decided_by: string;
  // SQLite answers 0/1, PostgreSQL a boolean.
  quorum_unreachable: boolean | number | bigint;
  escalated_at: Date | string | null;
};

/** One page of a section, before presentation. */
export type SectionPage = { raw: RawRow[]; next: string | null; count: number };

export const ROW_COLUMNS = Prisma.sql`a.id, a.tool, a.service_id, a.run_id, a.effects, a.environment, a.requested_by, a.requester_key, a.summary, a.status,
           a.required_roles, a.quorum, a.approve_count, a.created_at, a.expires_at, a.decided_at, a.decided_by, a.quorum_unreachable,
           a.escalated_at`;

export type Direction = "asc" | "desc";
/** Which time a section is sorted and paged by (then the id). */
export type SortKey = "created" | "expires" | "decided";
export type Order = { key: SortKey; dir: Direction };

/** The column each key is read from in SQL ("decided" rows not yet swept are read by expiry: see decided-section.ts). */
const KEY_COLUMN: Record<SortKey, Prisma.Sql> = {
  created: Prisma.raw("a.created_at"),
  expires: Prisma.raw("a.expires_at"),
  decided: Prisma.raw("a.decided_at"),
};

export const toDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));

/** The pending sections' order, from the query. */
export function pendingOrder(q: QueueQuery): Order {
  if (q.order === "expiring") return { key: "expires", dir: "asc" };
  return { key: "created", dir: q.order === "newest" ? "desc" : "asc" };
}

/**
 * Pending and not yet expired. By creation time the (status, created_at, id)
 * walk must win (dialect.ts); by expiry the (status, expires_at) index is the walk.
 */
export function pendingSql(now: Date, order: Order): Prisma.Sql {
  return order.key === "expires" ? Prisma.sql`a.status = 'pending' AND a.expires_at > ${now}` : dialect().pendingAt(now);
}

/**
 * The view, search, service, run, tool and effects filters, as " AND …" (or
 * nothing). Search is a case-insensitive substring of the tool, requester,
 * run id or request id; the "voted" view reads the viewer's votes by their index.
 */
export function filtersSql(q: QueueQuery, serviceId: string | null, viewer: SqlViewer): Prisma.Sql {
  const parts: Prisma.Sql[] = [];
  if (q.view === "mine") parts.push(requestedBySql(viewer));
  if (q.view === "voted") parts.push(Prisma.sql`a.id IN (SELECT rv.approval_id FROM reviews rv WHERE rv.reviewer_id = ${viewer.id})`);
  if (serviceId) parts.push(Prisma.sql`a.service_id = ${serviceId}`);
  if (q.run) parts.push(Prisma.sql`a.run_id = ${q.run}`);
  if (q.tool) parts.push(Prisma.sql`a.tool = ${q.tool}`);
  if (q.effects) parts.push(Prisma.sql`a.effects = ${q.effects}`);
  if (q.q) {
    const like = `%${likeLiteral(q.q.toLowerCase())}%`;
    const cols = ["a.tool", "a.requested_by", "a.run_id", "a.id"].map((c) => Prisma.sql`LOWER(${Prisma.raw(c)}) LIKE ${like} ESCAPE '!'`);
    parts.push(Prisma.sql`(${Prisma.join(cols, " OR ")})`);
  }
  return parts.length ? Prisma.sql` AND ${Prisma.join(parts, " AND ")}` : Prisma.empty;
}

/** Rows strictly after the cursor in the given order; written so the index range starts at the cursor. */
export function keysetSql(cursor: Cursor | undefined, order: Order, column: Prisma.Sql = KEY_COLUMN[order.key]): Prisma.Sql {
  if (!cursor) return Prisma.empty;
  return order.dir === "asc"
    ? Prisma.sql` AND ${column} >= ${cursor.createdAt} AND (${column} > ${cursor.createdAt} OR a.id > ${cursor.id})`
    : Prisma.sql` AND ${column} <= ${cursor.createdAt} AND (${column} < ${cursor.createdAt} OR a.id < ${cursor.id})`;
}

/**
 * What a section's queries read: every request, or, when the queue is
 * filtered to one run of one service, that run's requests first, found
 * through the (service_id, run_id, call_id) unique index and joined to their
 * rows. CROSS JOIN makes SQLite start from the run (PostgreSQL plans it as
 * any join): started from the pending index, it checked the run of every
 * pending request (650 ms with 100,000 pending; issue: benchmark).
 */
export function sectionSource(ctx: Pick<SectionContext, "serviceId" | "query">): Source {
  if (!ctx.serviceId || !ctx.query.run) return ALL_REQUESTS;
  return {
    from: Prisma.sql`(SELECT id AS run_member FROM approvals WHERE service_id = ${ctx.serviceId} AND run_id = ${ctx.query.run}) rm CROSS JOIN approvals a`,
    join: Prisma.sql`a.id = rm.run_member AND `,
  };
}

/** Where a query's rows come from (`from`, the row as `a`) and how they join to it (`join`, "… AND" or nothing). */
export type Source = { from: Prisma.Sql; join: Prisma.Sql };
const ALL_REQUESTS: Source = { from: Prisma.sql`approvals a`, join: Prisma.empty };

export async function selectRows(
  where: Prisma.Sql,
  order: Order,
  limit: number,
  column: Prisma.Sql = KEY_COLUMN[order.key],
  source: Source = ALL_REQUESTS,
): Promise<RawRow[]> {
  const dir = Prisma.raw(order.dir === "asc" ? "ASC" : "DESC");
  return db().$queryRaw<RawRow[]>`
    SELECT ${ROW_COLUMNS}
    FROM ${source.from}
    WHERE ${source.join}${where} ORDER BY ${column} ${dir}, a.id ${dir}
    LIMIT ${limit}`;
}

/** The expiry column, for queries that read rows of the "decided" key by it. */
export const EXPIRES_COLUMN = KEY_COLUMN.expires;

/** Rows matching `where`, counted up to cap + 1 (so the page can say "N+"). */
export async function countRows(where: Prisma.Sql, cap: number, source: Source = ALL_REQUESTS): Promise<number> {
  const rows = await db().$queryRaw<Array<{ n: number | bigint }>>`
    SELECT COUNT(*) AS n FROM (SELECT 1 AS x FROM ${source.from} WHERE ${source.join}${where} LIMIT ${cap + 1}) t`;
  return Number(rows[0]?.n ?? 0);
}

type Key = { at: number; id: string };

/** (key, id) order, as the SQL orders and pages them. */
function compareKeys(x: Key, y: Key): number {
  return x.at - y.at || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
}
function keyTime(r: RawRow, key: SortKey): Date {
  if (key === "created") return toDate(r.created_at);
  if (key === "decided" && r.decided_at !== null) return toDate(r.decided_at);
  return toDate(r.expires_at);
}
const keyOf = (r: RawRow, key: SortKey): Key => ({ at: keyTime(r, key).getTime(), id: r.id });

/** Sorts rows merged from several queries in the section's order (selectRows' ORDER BY, in JS). */
export function byKey(order: Order) {
  const sign = order.dir === "asc" ? 1 : -1;
  return (x: RawRow, y: RawRow) => sign * compareKeys(keyOf(x, order.key), keyOf(y, order.key));
}

/** True when the row comes strictly after the cursor in the section's order (keysetSql, in JS). */
export function afterCursor(row: RawRow, cursor: Cursor | undefined, order: Order): boolean {
  if (!cursor) return true;
  return (order.dir === "asc" ? 1 : -1) * compareKeys(keyOf(row, order.key), { at: cursor.createdAt.getTime(), id: cursor.id }) > 0;
}

/** Cuts pageSize + 1 rows to a page and the cursor of the next one (null on the last page). */
export function paged(rows: RawRow[], pageSize: number, count: number, key: SortKey): SectionPage {
  const more = rows.length > pageSize;
  const raw = rows.slice(0, pageSize);
  const last = raw[raw.length - 1];
  return { raw, next: more && last ? encodeCursor({ createdAt: keyTime(last, key), id: last.id }) : null, count };
}
