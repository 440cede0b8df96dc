// The queue's third section: recent decisions the viewer may see, newest first.
import "server-only";
import { Prisma } from "../db/client";
import { visibleSql } from "../reviews/visibility-sql";
import { byKey, countRows, filtersSql, keysetSql, paged, selectRows, type SectionContext, type SectionPage } from "./section-sql";

const DECIDED_STATUSES = ["approved", "denied", "expired", "cancelled"] as const;

/**
 * One indexed query per status (an IN list would make the database sort
 * every decided row), merged here: at most pageSize + 1 rows each. Pending
 * rows already past their expiry, which the sweeper has not marked yet,
 * count as expired.
 */
export async function findDecidedSection(ctx: SectionContext): Promise<SectionPage> {
  const statuses = ctx.query.status && ctx.query.status !== "pending" ? [ctx.query.status] : [...DECIDED_STATUSES];
  const filters = Prisma.sql`${filtersSql(ctx.query, ctx.serviceId)} AND ${visibleSql(ctx.viewer)}`;
  const wheres = statuses.map((s) => Prisma.sql`a.status = ${s}${filters}`);
  if (statuses.includes("expired")) wheres.push(Prisma.sql`a.status = 'pending' AND a.expires_at <= ${ctx.now}${filters}`);
  const keyset = keysetSql(ctx.query.done, "desc");
  const [pages, counts] = await Promise.all([
    Promise.all(wheres.map((w) => selectRows(Prisma.sql`${w}${keyset}`, "desc", ctx.pageSize + 1))),
    Promise.all(wheres.map((w) => countRows(w, ctx.countCap))),
  ]);
  const merged = pages.flat().sort(byKey("desc"));
  return paged(
    merged.slice(0, ctx.pageSize + 1),
    ctx.pageSize,
    counts.reduce((a, b) => a + b, 0),
  );
}
