// The queue's third section: recent decisions the viewer may see, the most
// recently decided first.
import "server-only";
import { Prisma } from "../db/client";
import { visibleSql } from "../reviews/visibility-sql";
import {
  byKey,
  countRows,
  EXPIRES_COLUMN,
  filtersSql,
  keysetSql,
  paged,
  selectRows,
  type Order,
  sectionSource,
  type SectionContext,
  type SectionPage,
} from "./section-sql";

const DECIDED_STATUSES = ["approved", "denied", "expired", "cancelled", "revised"] as const;
const ORDER: Order = { key: "decided", dir: "desc" };

/**
 * One query per status on (status, decided_at, id) (an IN list would make the
 * database sort every decided row), merged here: at most pageSize + 1 rows
 * each. Pending rows already past their expiry, which the sweeper has not
 * marked yet, count as expired, decided at their expiry (as the sweeper
 * records them), and are read by (status, expires_at).
 */
export async function findDecidedSection(ctx: SectionContext): Promise<SectionPage> {
  const statuses = ctx.query.status && ctx.query.status !== "pending" ? [ctx.query.status] : [...DECIDED_STATUSES];
  const filters = Prisma.sql`${filtersSql(ctx.query, ctx.serviceId, ctx.viewer)} AND ${visibleSql(ctx.viewer)}`;
  const queries = statuses.map((s) => ({ where: Prisma.sql`a.status = ${s}${filters}`, column: undefined as Prisma.Sql | undefined }));
  if (statuses.includes("expired")) {
    queries.push({ where: Prisma.sql`a.status = 'pending' AND a.expires_at <= ${ctx.now}${filters}`, column: EXPIRES_COLUMN });
  }
  const [pages, counts] = await Promise.all([
    Promise.all(
      queries.map(({ where, column }) =>
        selectRows(Prisma.sql`${where}${keysetSql(ctx.query.done, ORDER, column)}`, ORDER, ctx.pageSize + 1, column, sectionSource(ctx)),
      ),
    ),
    Promise.all(queries.map(({ where }) => countRows(where, ctx.countCap, sectionSource(ctx)))),
  ]);
  const merged = pages.flat().sort(byKey(ORDER));
  return paged(
    merged.slice(0, ctx.pageSize + 1),
    ctx.pageSize,
    counts.reduce((a, b) => a + b, 0),
    ORDER.key,
  );
}
