// What every queue section shares: the row it reads, the filters, keyset
// paging on (created_at, id) and capped counts. A page costs the same at row
// 10 and at row 100,000 because each query starts its index range at the
// cursor and stops after a page.
import "server-only";
import { db, Prisma } from "../db/client";
import type { SqlViewer } from "../reviews/eligibility-sql";
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
};

/** One page of a section, before presentation. */
export type SectionPage = { raw: RawRow[]; next: string | null; count: number };

export const ROW_COLUMNS = Prisma.sql`a.id, a.tool, a.service_id, a.effects, a.environment, a.requested_by, a.requester_key, a.summary, a.status,
           a.required_roles, a.quorum, a.approve_count, a.created_at, a.expires_at, a.decided_at, a.decided_by`;

export type Direction = "asc" | "desc";

const ORDER_SQL: Record<Direction, Prisma.Sql> = {
  asc: Prisma.sql` ORDER BY a.created_at ASC, a.id ASC`,
  desc: Prisma.sql` ORDER BY a.created_at DESC, a.id DESC`,
};

export const toDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));

/** The pending sections' order, from the query. */
export const pendingDirection = (q: QueueQuery): Direction => (q.order === "newest" ? "desc" : "asc");

/** The service, tool and effects filters, as " AND …" (or nothing). */
export function filtersSql(q: QueueQuery, serviceId: string | null): Prisma.Sql {
  const parts: Prisma.Sql[] = [];
  if (serviceId) parts.push(Prisma.sql`a.service_id = ${serviceId}`);
  if (q.tool) parts.push(Prisma.sql`a.tool = ${q.tool}`);
  if (q.effects) parts.push(Prisma.sql`a.effects = ${q.effects}`);
  return parts.length ? Prisma.sql` AND ${Prisma.join(parts, " AND ")}` : Prisma.empty;
}

/** Rows strictly after the cursor in the given direction; written so the index range starts at the cursor. */
export function keysetSql(cursor: Cursor | undefined, dir: Direction): Prisma.Sql {
  if (!cursor) return Prisma.empty;
  return dir === "asc"
    ? Prisma.sql` AND a.created_at >= ${cursor.createdAt} AND (a.created_at > ${cursor.createdAt} OR a.id > ${cursor.id})`
    : Prisma.sql` AND a.created_at <= ${cursor.createdAt} AND (a.created_at < ${cursor.createdAt} OR a.id < ${cursor.id})`;
}

export async function selectRows(where: Prisma.Sql, dir: Direction, limit: number): Promise<RawRow[]> {
  return db().$queryRaw<RawRow[]>`
    SELECT ${ROW_COLUMNS}
    FROM approvals a
    WHERE ${where}${ORDER_SQL[dir]}
    LIMIT ${limit}`;
}

/** Rows matching `where`, counted up to cap + 1 (so the page can say "N+"). */
export async function countRows(where: Prisma.Sql, cap: number): Promise<number> {
  const rows = await db().$queryRaw<Array<{ n: number | bigint }>>`
    SELECT COUNT(*) AS n FROM (SELECT 1 AS x FROM approvals a WHERE ${where} LIMIT ${cap + 1}) t`;
  return Number(rows[0]?.n ?? 0);
}

type Key = { at: number; id: string };

/** (created_at, id) order, as the SQL orders and pages them. */
function compareKeys(x: Key, y: Key): number {
  return x.at - y.at || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
}
const keyOf = (r: RawRow): Key => ({ at: toDate(r.created_at).getTime(), id: r.id });

/** Sorts rows merged from several queries in the section's order (ORDER_SQL, in JS). */
export function byKey(dir: Direction) {
  const sign = dir === "asc" ? 1 : -1;
  return (x: RawRow, y: RawRow) => sign * compareKeys(keyOf(x), keyOf(y));
}

/** True when the row comes strictly after the cursor in the section's order (keysetSql, in JS). */
export function afterCursor(row: RawRow, cursor: Cursor | undefined, dir: Direction): boolean {
  if (!cursor) return true;
  return (dir === "asc" ? 1 : -1) * compareKeys(keyOf(row), { at: cursor.createdAt.getTime(), id: cursor.id }) > 0;
}

/** Cuts pageSize + 1 rows to a page and the cursor of the next one (null on the last page). */
export function paged(rows: RawRow[], pageSize: number, count: number): SectionPage {
  const more = rows.length > pageSize;
  const raw = rows.slice(0, pageSize);
  const last = raw[raw.length - 1];
  return { raw, next: more && last ? encodeCursor({ createdAt: toDate(last.created_at), id: last.id }) : null, count };
}
