// Previous / next request for the decision page: among the requests this
// viewer can act on now (the queue's "Needs your review", by the same SQL
// rule, canActSql), with the queue's filters and in the queue's order (the
// `query` the reviewer came from, lib/queue/query-params: oldest first
// unless it says otherwise, then id). The current request need not be among
// them (already voted on, decided, filtered out): its neighbours are the
// ones just before and after its place in that order.
import "server-only";
import { db, Prisma } from "../db/client";
import type { QueueQuery } from "../queue/query-params";
import { filtersSql, pendingOrder, pendingSql } from "../queue/section-sql";
import { canActSql, sqlViewer } from "./eligibility-sql";
import { loadViewer } from "./visibility";

export type Neighbours = {
  /** The request before this one, or null at the start. */
  prev: string | null;
  /** The request after this one, or null at the end. */
  next: string | null;
  /** Where to go after deciding this one: the next, else the first other one, else null (back to the queue). */
  following: string | null;
};

const NONE: Neighbours = { prev: null, next: null, following: null };

export async function findNeighbours(viewerId: string, approvalId: string, query: QueueQuery = {}, now = new Date()): Promise<Neighbours> {
  const [viewer, current] = await Promise.all([
    loadViewer(viewerId),
    db().approval.findUnique({ where: { id: approvalId }, select: { id: true, createdAt: true, expiresAt: true } }),
  ]);
  if (!viewer || !current) return NONE;
  let serviceId: string | null = null;
  if (query.service) {
    const service = await db().service.findUnique({ where: { slug: query.service }, select: { id: true } });
    if (!service) return NONE;
    serviceId = service.id;
  }
  const sv = sqlViewer(viewer);
  const order = pendingOrder(query);
  const where = Prisma.sql`${pendingSql(now, order)}${filtersSql(query, serviceId, sv)} AND ${canActSql(sv)} AND a.id <> ${approvalId}`;
  const column = Prisma.raw(order.key === "expires" ? "a.expires_at" : "a.created_at");
  const at = order.key === "expires" ? current.expiresAt : current.createdAt;
  const id = current.id;
  // Written like the queue's keyset paging: the index range starts at the current request.
  const lower = Prisma.sql` AND ${column} <= ${at} AND (${column} < ${at} OR a.id < ${id}) ORDER BY ${column} DESC, a.id DESC`;
  const higher = Prisma.sql` AND ${column} >= ${at} AND (${column} > ${at} OR a.id > ${id}) ORDER BY ${column} ASC, a.id ASC`;
  const [before, after] = order.dir === "asc" ? [lower, higher] : [higher, lower];
  const first = Prisma.sql` ORDER BY ${column} ${Prisma.raw(order.dir === "asc" ? "ASC" : "DESC")}, a.id ${Prisma.raw(order.dir === "asc" ? "ASC" : "DESC")}`;
  const one = async (rest: Prisma.Sql) => {
    const rows = await db().$queryRaw<Array<{ id: string }>>`SELECT a.id FROM approvals a WHERE ${where}${rest} LIMIT 1`;
    return rows[0]?.id ?? null;
  };
  const [prev, next] = await Promise.all([one(before), one(after)]);
  const following = next ?? (prev === null ? null : await one(first));
  return { prev, next, following };
}
