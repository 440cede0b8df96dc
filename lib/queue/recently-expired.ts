// Requests that ran out while a reviewer could have decided them (issue 36:
// expired requests must not drop out of "Needs your review" silently). The
// queue counts those of the last hour, with its filters, and says so above
// the list, linking to them. "Could have decided" is the queue's own rule
// (canActSql: a required role held, not the requester, no vote cast); the
// request expired by its time, whether or not the sweep has marked it yet.
import "server-only";
import { db } from "../db/client";
import { canActSql, sqlViewer } from "../reviews/eligibility-sql";
import { VIEWER_SELECT } from "../reviews/visibility";
import type { QueueQuery } from "./query-params";
import { filtersSql } from "./section-sql";

/** How far back the queue looks. */
export const RECENTLY_EXPIRED_MS = 60 * 60 * 1000;
/** Counting stops here ("50+"). */
export const RECENTLY_EXPIRED_CAP = 50;

export type RecentlyExpired = { count: number; capped: boolean };

export async function countRecentlyExpired(viewerId: string, query: QueueQuery = {}, now = new Date()): Promise<RecentlyExpired> {
  const user = await db().user.findUnique({ where: { id: viewerId }, select: VIEWER_SELECT });
  if (!user) return { count: 0, capped: false };
  let serviceId: string | null = null;
  if (query.service) {
    const service = await db().service.findUnique({ where: { slug: query.service }, select: { id: true } });
    if (!service) return { count: 0, capped: false };
    serviceId = service.id;
  }
  const viewer = sqlViewer(user);
  const since = new Date(now.getTime() - RECENTLY_EXPIRED_MS);
  const rows = await db().$queryRaw<Array<{ n: number | bigint }>>`
    SELECT COUNT(*) AS n FROM (
      SELECT 1 AS x FROM approvals a
      WHERE a.status IN ('pending', 'expired') AND a.expires_at <= ${now} AND a.expires_at > ${since}
        ${filtersSql(query, serviceId, viewer)} AND ${canActSql(viewer)}
      LIMIT ${RECENTLY_EXPIRED_CAP + 1}) t`;
  const n = Number(rows[0]?.n ?? 0);
  return { count: Math.min(n, RECENTLY_EXPIRED_CAP), capped: n > RECENTLY_EXPIRED_CAP };
}
