// The two pending sections of a viewer's queue: the requests they can act on
// now, and those waiting on others (visible to them, not theirs to decide:
// their own, already voted on, or of a role they do not hold). "Can act on"
// is eligibility() (lib/reviews/eligibility.ts) in SQL: canActSql() in
// lib/reviews/eligibility-sql.ts.
import "server-only";
import { db, Prisma } from "../db/client";
import { MAX_TTL_SECONDS } from "../policies/schemas";
import { canActSql, heldRoles, requestedBySql } from "../reviews/eligibility-sql";
import { visibleSql } from "../reviews/visibility-sql";
import { requiredRolesOf } from "../reviews/eligibility";
import { seesEveryRequest, visibleTo } from "../reviews/visibility";
import type { Cursor } from "./query-params";
import { rowFacts } from "./queue-row";
import {
  afterCursor,
  byKey,
  countRows,
  filtersSql,
  keysetSql,
  paged,
  pendingOrder,
  pendingSql,
  ROW_COLUMNS,
  selectRows,
  type Order,
  type RawRow,
  sectionSource,
  type SectionContext,
  type SectionPage,
} from "./section-sql";

export type PendingPages = { canAct: SectionPage; waiting: SectionPage };

/**
 * Both pending sections: by required-role list when that applies, else in
 * one query each. "Expiring soonest" always takes the one-query form: it
 * walks the (status, expires_at) index in order.
 */
export async function findPendingSections(ctx: SectionContext): Promise<PendingPages> {
  const partitioned = pendingOrder(ctx.query).key === "created" || ctx.query.view ? await pendingByRoleList(ctx) : null;
  return (
    partitioned ?? {
      canAct: await pendingSection(ctx, "canAct"),
      waiting: await pendingSection(ctx, "waiting"),
    }
  );
}

// ------------------------------------------------- the one-query form

function pendingWhere(ctx: SectionContext, section: keyof PendingPages): Prisma.Sql {
  const act = canActSql(ctx.viewer);
  return Prisma.sql`${pendingSql(ctx.now, pendingOrder(ctx.query))}${filtersSql(ctx.query, ctx.serviceId, ctx.viewer)} AND ${
    section === "canAct" ? act : Prisma.sql`NOT ${act} AND ${visibleSql(ctx.viewer)}`
  }`;
}

async function pendingSection(ctx: SectionContext, section: keyof PendingPages): Promise<SectionPage> {
  const where = pendingWhere(ctx, section);
  const order = pendingOrder(ctx.query);
  const cursor = section === "canAct" ? ctx.query.act : ctx.query.wait;
  const [page, count] = await Promise.all([
    selectRows(Prisma.sql`${where}${keysetSql(cursor, order)}`, order, ctx.pageSize + 1, undefined, sectionSource(ctx)),
    countRows(where, ctx.countCap, sectionSource(ctx)),
  ]);
  return paged(page, ctx.pageSize, count, order.key);
}

// ------------------------------------------------- by required-role list

/*
 * The one-query form above checks every rule on every row, so a section with
 * few matching rows (nothing waiting, or a rare role) walks the whole pending
 * set: with 100,000 realistic requests that took seconds (issue: benchmark).
 * Instead, pending requests are split by their required-role list (the
 * snapshot of the policy that matched: a handful of distinct lists). For one
 * viewer a list is either held (one of its roles is the viewer's) or not:
 *
 *   can act on = rows of held lists, minus "mine"
 *   waiting    = rows of the other lists, plus "mine"
 *
 * where "mine" is the viewer's own requests and the ones they voted on, found
 * through their own indexes. Each list's rows are walked in (created_at, id)
 * order on (status, required_roles, created_at, id, expires_at) and the walks
 * merged here, so every query reads about a page of rows however long the
 * queue is. Too many lists, or too many "mine" rows, fall back to the
 * one-query form: slower, same answer.
 */
export const MAX_ROLE_LISTS = 32;
const MAX_MINE = 500;
// A vote can only be on a request created within the longest TTL, so only
// that window of the viewer's votes can be on a pending request (plus a day
// for clock differences between instances).
const VOTE_WINDOW_MS = (MAX_TTL_SECONDS + 24 * 3600) * 1000;

/** The distinct required-role lists of pending requests, by index seeks (a loose index scan). */
async function pendingRoleLists(): Promise<string[]> {
  const rows = await db().$queryRaw<Array<{ roles: string }>>`
    WITH RECURSIVE lists(roles) AS (
      SELECT MIN(required_roles) FROM approvals WHERE status = 'pending'
      UNION ALL
      SELECT (SELECT MIN(a.required_roles) FROM approvals a WHERE a.status = 'pending' AND a.required_roles > l.roles)
      FROM lists l WHERE l.roles IS NOT NULL
    )
    SELECT roles FROM lists WHERE roles IS NOT NULL LIMIT ${MAX_ROLE_LISTS + 1}`;
  return rows.map((r) => r.roles);
}

/**
 * The viewer's own pending requests and the pending requests they voted on
 * (within the filters). CROSS JOIN makes SQLite start from the viewer's votes
 * (PostgreSQL plans it as any join); started from approvals, it walked every
 * pending request.
 */
async function findMine(ctx: SectionContext): Promise<RawRow[]> {
  const where = Prisma.sql`${pendingSql(ctx.now, pendingOrder(ctx.query))}${filtersSql(ctx.query, ctx.serviceId, ctx.viewer)}`;
  const votedSince = new Date(ctx.now.getTime() - VOTE_WINDOW_MS);
  return db().$queryRaw<RawRow[]>`
    SELECT ${ROW_COLUMNS} FROM approvals a
    WHERE ${where} AND ${requestedBySql(ctx.viewer)}
    UNION
    SELECT ${ROW_COLUMNS} FROM reviews rv CROSS JOIN approvals a
    WHERE rv.reviewer_id = ${ctx.viewer.id} AND rv.created_at >= ${votedSince} AND a.id = rv.approval_id AND ${where}
    LIMIT ${MAX_MINE + 1}`;
}

/** Both pending sections, or null when the partition does not apply (then the one-query form runs). */
async function pendingByRoleList(ctx: SectionContext): Promise<PendingPages | null> {
  const [lists, mine] = await Promise.all([pendingRoleLists(), findMine(ctx)]);
  if (lists.length > MAX_ROLE_LISTS || mine.length > MAX_MINE) return null;
  const order = pendingOrder(ctx.query);
  if (ctx.query.view) return viewSections(ctx, mine, order);

  const roles = new Set(heldRoles(ctx.viewer));
  const held = lists.filter((l) => requiredRolesOf(l).some((r) => roles.has(r)));
  // Lists the viewer holds no role of are visible only to admins and auditors;
  // to anyone else only their own requests in them are (and those are "mine").
  const other = new Set(lists.filter((l) => !held.includes(l)));
  const walked = seesEveryRequest(ctx.viewer) ? [...other] : [];
  const base = Prisma.sql`${pendingSql(ctx.now, order)}${filtersSql(ctx.query, ctx.serviceId, ctx.viewer)}`;
  const source = sectionSource(ctx);
  const notMine = mine.length ? Prisma.sql` AND a.id NOT IN (${Prisma.join(mine.map((m) => m.id))})` : Prisma.empty;
  const inLists = (ls: readonly string[]) => Prisma.sql` AND a.required_roles IN (${Prisma.join(ls)})`;
  const walk = (list: string, cursor: Cursor | undefined, extra: Prisma.Sql) =>
    selectRows(Prisma.sql`${base} AND a.required_roles = ${list}${extra}${keysetSql(cursor, order)}`, order, ctx.pageSize + 1, undefined, source);

  // "Mine" rows of walked lists are walked with them; the rest, if visible, join the waiting section here.
  const mineExtra = mine.filter((m) => !walked.includes(m.required_roles) && visibleTo(ctx.viewer, rowFacts(m)));
  const [actPages, waitPages, actCount, waitCount] = await Promise.all([
    Promise.all(held.map((l) => walk(l, ctx.query.act, notMine))),
    Promise.all(walked.map((l) => walk(l, ctx.query.wait, Prisma.empty))),
    held.length ? countRows(Prisma.sql`${base}${inLists(held)}${notMine}`, ctx.countCap, source) : 0,
    walked.length ? countRows(Prisma.sql`${base}${inLists(walked)}`, ctx.countCap, source) : 0,
  ]);
  const merge = (pages: RawRow[][]) =>
    pages
      .flat()
      .sort(byKey(order))
      .slice(0, ctx.pageSize + 1);
  const waitingExtra = mineExtra.filter((m) => afterCursor(m, ctx.query.wait, order));
  return {
    canAct: paged(merge(actPages), ctx.pageSize, actCount, order.key),
    waiting: paged(merge([...waitPages, waitingExtra]), ctx.pageSize, waitCount + mineExtra.length, order.key),
  };
}

/**
 * "My requests" and "Decided by me": every pending row of either is "mine"
 * (the viewer's own, or voted on), so none can be acted on, and the visible
 * ones are the whole waiting section.
 */
function viewSections(ctx: SectionContext, mine: RawRow[], order: Order): PendingPages {
  const shown = mine.filter((m) => visibleTo(ctx.viewer, rowFacts(m))).sort(byKey(order));
  const page = shown.filter((m) => afterCursor(m, ctx.query.wait, order)).slice(0, ctx.pageSize + 1);
  return { canAct: paged([], ctx.pageSize, 0, order.key), waiting: paged(page, ctx.pageSize, shown.length, order.key) };
}
