// Previous / next request for the decision page: among the requests this
// viewer can act on now (the queue's "Needs your review", by the same SQL
// rule, canActSql), in the queue's default order (oldest first, then id).
// The current request need not be among them (already voted on, decided):
// its neighbours are the ones just before and after its place in that order.
import "server-only";
import { db, Prisma } from "../db/client";
import { dialect } from "../queue/dialect";
import { canActSql, sqlViewer } from "./eligibility-sql";
import { loadViewer } from "./visibility";

export type Neighbours = {
  /** The request before this one, or null at the start. */
  prev: string | null;
  /** The request after this one, or null at the end. */
  next: string | null;
  /** Where to go after deciding this one: the next, else the oldest other one, else null (back to the queue). */
  following: string | null;
};

const NONE: Neighbours = { prev: null, next: null, following: null };

export async function findNeighbours(viewerId: string, approvalId: string, now = new Date()): Promise<Neighbours> {
  const [viewer, current] = await Promise.all([
    loadViewer(viewerId),
    db().approval.findUnique({ where: { id: approvalId }, select: { id: true, createdAt: true } }),
  ]);
  if (!viewer || !current) return NONE;
  const where = Prisma.sql`${dialect().pendingAt(now)} AND ${canActSql(sqlViewer(viewer))} AND a.id <> ${approvalId}`;
  const { createdAt: at, id } = current;
  // Written like the queue's keyset paging: the index range starts at the current request.
  const before = Prisma.sql` AND a.created_at <= ${at} AND (a.created_at < ${at} OR a.id < ${id}) ORDER BY a.created_at DESC, a.id DESC`;
  const after = Prisma.sql` AND a.created_at >= ${at} AND (a.created_at > ${at} OR a.id > ${id}) ORDER BY a.created_at ASC, a.id ASC`;
  const oldest = Prisma.sql` ORDER BY a.created_at ASC, a.id ASC`;
  const one = async (rest: Prisma.Sql) => {
    const rows = await db().$queryRaw<Array<{ id: string }>>`SELECT a.id FROM approvals a WHERE ${where}${rest} LIMIT 1`;
    return rows[0]?.id ?? null;
  };
  const [prev, next] = await Promise.all([one(before), one(after)]);
  const following = next ?? (prev === null ? null : await one(oldest));
  return { prev, next, following };
}
