// The review queue for one viewer (issue "Review"): first the pending
// requests they can act on now, then those waiting on others, then recent
// decisions. Each section is filtered, counted and paged by keyset on
// (created_at, id), so a page costs the same at row 10 and at row 100,000.
//
// "Can act on" is decided inside the query, with the rules of CONTRACT §6 that
// a list can check: pending and not expired, one of the request's required
// roles, not the requester (the stored requester key against the keys of the
// viewer's email and linked identities, computed by lib/identity), no vote
// yet. recordReview stays the authority at the moment of the click; every row
// also carries the verdict of the same eligibility() function
// (lib/reviews/eligibility.ts), which the page shows next to waiting rows.
//
// Every section shows only the requests the viewer may see (CONTRACT §19,
// lib/reviews/visibility.ts; visibleSql() is the same rule in SQL).
//
// Raw SQL because the required roles are a JSON array in a text column, which
// has no portable Prisma filter: the dialect-specific fragments are in `dialect()`.
import "server-only";
import { z } from "zod";
import { db, Prisma } from "../db/client";
import { env } from "../env";
import { EFFECTS } from "../policies/match-policy";
import { can } from "../auth/permissions";
import { personKeys } from "../identity/requester-key";
import { eligibility, requiredRolesOf } from "../reviews/eligibility";
import { VIEWER_SELECT, visibleTo } from "../reviews/visibility";
import { slugSchema } from "../services/schemas";
import { effectiveStatus, parseDecidedBy } from "./present";
import { APPROVAL_STATUSES, MAX_TTL_SECONDS, toolSchema, type ApprovalStatus } from "./schemas";

// ---------------------------------------------------------------- query

/** A position in a section: the (created_at, id) of the last row shown, as "<epoch ms>.<id>". */
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

export const QUEUE_ORDERS = ["oldest", "newest"] as const;

/** The queue's GET parameters, one schema per field so one bad value does not drop the others. */
export const queueQueryFields = {
  service: slugSchema,
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

// ---------------------------------------------------------------- results

export type QueueRow = {
  id: string;
  tool: string;
  service: string;
  effects: string;
  environment: string | null;
  requestedBy: string | null;
  summary: string | null;
  /** As of the query: a pending request past its expiry reads "expired". */
  status: ApprovalStatus;
  requiredRoles: string[];
  quorum: number;
  approvals: number;
  createdAt: Date;
  expiresAt: Date;
  decidedAt: Date | null;
  decidedBy: string[];
  /** The viewer's own vote on it, if any. */
  myDecision: "approve" | "deny" | null;
  /** Why the viewer cannot decide it (pending rows only), from eligibility(). */
  whyNot: string | null;
};

export type QueueSection = {
  rows: QueueRow[];
  /** Cursor of the next page, or null on the last page. */
  next: string | null;
  /** Rows in the whole section (all pages), at most `countCap`. */
  count: number;
  /** True when there are more than `count` rows. */
  countCapped: boolean;
};

export type Queue = {
  /** null when the status filter excludes the section. */
  canAct: QueueSection | null;
  waiting: QueueSection | null;
  decided: QueueSection | null;
};

export type FindQueueOptions = {
  pageSize?: number;
  /** Counting stops here; the page says "N+" beyond it. */
  countCap?: number;
  now?: Date;
};

export const DEFAULT_PAGE_SIZE = 25;
export const DEFAULT_COUNT_CAP = 1000;

const DECIDED_STATUSES = ["approved", "denied", "expired", "cancelled"] as const;

// ---------------------------------------------------------------- SQL

type Dialect = {
  /** True when the JSON array column holds any of `roles` (never NULL). */
  holdsAnyRole(roles: readonly string[]): Prisma.Sql;
  /** Pending and not yet expired, phrased so the planner walks (status, created_at, id) in order. */
  pendingAt(now: Date): Prisma.Sql;
};

/**
 * A cheap substring test that lets most non-matching rows skip the JSON
 * parse. Only for role names that every JSON writer spells the same way
 * (roleSchema allows no others); the JSON test after it decides exactly.
 */
function substringPrefilter(roles: readonly string[], fn: "instr" | "strpos"): Prisma.Sql | null {
  if (!roles.every((r) => /^[A-Za-z0-9_.:-]+$/.test(r))) return null;
  const tests = roles.map((r) => Prisma.sql`${Prisma.raw(fn)}(a.required_roles, ${JSON.stringify(r)}) > 0`);
  return Prisma.sql`(${Prisma.join(tests, " OR ")})`;
}

function dialect(): Dialect {
  if (env().databaseProvider === "postgresql") {
    return {
      holdsAnyRole(roles) {
        const exact = Prisma.sql`(a.required_roles::jsonb ?| ARRAY[${Prisma.join(roles)}]::text[])`;
        const pre = substringPrefilter(roles, "strpos");
        return pre ? Prisma.sql`(${pre} AND ${exact})` : exact;
      },
      // The expression keeps the (status, expires_at) index out of it, as on SQLite.
      pendingAt: (now) => Prisma.sql`a.status = 'pending' AND (a.expires_at + interval '0 seconds') > ${now}`,
    };
  }
  return {
    holdsAnyRole(roles) {
      const exact = Prisma.sql`EXISTS (SELECT 1 FROM json_each(a.required_roles) r WHERE r.type = 'text' AND r.value IN (${Prisma.join(roles)}))`;
      const pre = substringPrefilter(roles, "instr");
      return pre ? Prisma.sql`(${pre} AND ${exact})` : exact;
    },
    // Unary + keeps SQLite (which has no statistics unless someone runs
    // ANALYZE) from picking the (status, expires_at) index and then sorting
    // every pending row for a page of 25.
    pendingAt: (now) => Prisma.sql`a.status = 'pending' AND +a.expires_at > ${now}`,
  };
}

type Viewer = {
  id: string;
  email: string;
  disabledAt: Date | null;
  roles: Array<{ role: string }>;
  identities: Array<{ email: string | null; subject: string }>;
  /** personKeys(): the requester keys this viewer is known by (never empty). */
  keys: string[];
};

const viewerRoles = (v: Viewer) => (v.disabledAt ? [] : [...new Set(v.roles.map((r) => r.role))]);
const seesAll = (v: Viewer) => can({ roles: viewerRoles(v) }, "requests:view-all");

/** "a.* was requested by the viewer": its requester key is one of theirs. Never SQL NULL. */
function requestedBySql(v: Viewer): Prisma.Sql {
  return Prisma.sql`(a.requester_key IS NOT NULL AND a.requester_key IN (${Prisma.join(v.keys)}))`;
}

/**
 * "The viewer may see a.*" (lib/reviews/visibility.ts visibleTo(), in SQL):
 * admin or auditor, or one of its required roles, or its requester.
 */
function visibleSql(v: Viewer): Prisma.Sql {
  if (v.disabledAt) return Prisma.sql`(1 = 0)`;
  if (seesAll(v)) return Prisma.sql`(1 = 1)`;
  const roles = viewerRoles(v);
  return roles.length ? Prisma.sql`(${dialect().holdsAnyRole(roles)} OR ${requestedBySql(v)})` : requestedBySql(v);
}

/**
 * "The viewer can act on a.*": holds a required role, is not the requester,
 * has not voted. Every part is a definite true/false (no SQL NULL), so NOT of
 * it is exactly "waiting on others". Requests stored before requester keys
 * existed get theirs at start-up (lib/identity/backfill-requester-keys.ts);
 * recordReview also recomputes the key from requested_by.
 */
function canActSql(v: Viewer): Prisma.Sql {
  const roles = viewerRoles(v);
  if (roles.length === 0) return Prisma.sql`(1 = 0)`;
  return Prisma.sql`(${dialect().holdsAnyRole(roles)}
    AND NOT ${requestedBySql(v)}
    AND NOT EXISTS (SELECT 1 FROM reviews rv WHERE rv.approval_id = a.id AND rv.reviewer_id = ${v.id}))`;
}

function filtersSql(q: QueueQuery, serviceId: string | null): Prisma.Sql {
  const parts: Prisma.Sql[] = [];
  if (serviceId) parts.push(Prisma.sql`a.service_id = ${serviceId}`);
  if (q.tool) parts.push(Prisma.sql`a.tool = ${q.tool}`);
  if (q.effects) parts.push(Prisma.sql`a.effects = ${q.effects}`);
  return parts.length ? Prisma.sql` AND ${Prisma.join(parts, " AND ")}` : Prisma.empty;
}

/** Rows strictly after the cursor in the given direction; written so the index range starts at the cursor. */
function keysetSql(cursor: Cursor | undefined, dir: "asc" | "desc"): Prisma.Sql {
  if (!cursor) return Prisma.empty;
  return dir === "asc"
    ? Prisma.sql` AND a.created_at >= ${cursor.createdAt} AND (a.created_at > ${cursor.createdAt} OR a.id > ${cursor.id})`
    : Prisma.sql` AND a.created_at <= ${cursor.createdAt} AND (a.created_at < ${cursor.createdAt} OR a.id < ${cursor.id})`;
}

const ORDER_SQL = {
  asc: Prisma.sql` ORDER BY a.created_at ASC, a.id ASC`,
  desc: Prisma.sql` ORDER BY a.created_at DESC, a.id DESC`,
};

type RawRow = {
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

const ROW_COLUMNS = Prisma.sql`a.id, a.tool, a.service_id, a.effects, a.environment, a.requested_by, a.requester_key, a.summary, a.status,
           a.required_roles, a.quorum, a.approve_count, a.created_at, a.expires_at, a.decided_at, a.decided_by`;

async function selectRows(where: Prisma.Sql, dir: "asc" | "desc", limit: number): Promise<RawRow[]> {
  return db().$queryRaw<RawRow[]>`
    SELECT ${ROW_COLUMNS}
    FROM approvals a
    WHERE ${where}${ORDER_SQL[dir]}
    LIMIT ${limit}`;
}

async function countRows(where: Prisma.Sql, cap: number): Promise<number> {
  const rows = await db().$queryRaw<Array<{ n: number | bigint }>>`
    SELECT COUNT(*) AS n FROM (SELECT 1 AS x FROM approvals a WHERE ${where} LIMIT ${cap + 1}) t`;
  return Number(rows[0]?.n ?? 0);
}

const toDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));

// ---------------------------------------------------------------- sections

type Ctx = { viewer: Viewer; query: QueueQuery; serviceId: string | null; now: Date; pageSize: number; countCap: number };

function pendingWhere(ctx: Ctx, section: "canAct" | "waiting"): Prisma.Sql {
  const act = canActSql(ctx.viewer);
  return Prisma.sql`${dialect().pendingAt(ctx.now)}${filtersSql(ctx.query, ctx.serviceId)} AND ${
    section === "canAct" ? act : Prisma.sql`NOT ${act} AND ${visibleSql(ctx.viewer)}`
  }`;
}

async function pendingSection(ctx: Ctx, section: "canAct" | "waiting"): Promise<{ raw: RawRow[]; next: string | null; count: number }> {
  const where = pendingWhere(ctx, section);
  const dir = ctx.query.order === "newest" ? "desc" : "asc";
  const cursor = section === "canAct" ? ctx.query.act : ctx.query.wait;
  const [page, count] = await Promise.all([
    selectRows(Prisma.sql`${where}${keysetSql(cursor, dir)}`, dir, ctx.pageSize + 1),
    countRows(where, ctx.countCap),
  ]);
  return paged(page, ctx.pageSize, count);
}

// ------------------------------------------------- pending sections, by required-role list

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
const MAX_ROLE_LISTS = 32;
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
async function findMine(ctx: Ctx): Promise<RawRow[]> {
  const where = Prisma.sql`${dialect().pendingAt(ctx.now)}${filtersSql(ctx.query, ctx.serviceId)}`;
  const votedSince = new Date(ctx.now.getTime() - VOTE_WINDOW_MS);
  return db().$queryRaw<RawRow[]>`
    SELECT ${ROW_COLUMNS} FROM approvals a
    WHERE ${where} AND ${requestedBySql(ctx.viewer)}
    UNION
    SELECT ${ROW_COLUMNS} FROM reviews rv CROSS JOIN approvals a
    WHERE rv.reviewer_id = ${ctx.viewer.id} AND rv.created_at >= ${votedSince} AND a.id = rv.approval_id AND ${where}
    LIMIT ${MAX_MINE + 1}`;
}

type Paged = { raw: RawRow[]; next: string | null; count: number };

/** (created_at, id) order, as the SQL orders and pages them. */
function compareKeys(x: { at: number; id: string }, y: { at: number; id: string }): number {
  return x.at - y.at || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
}
const keyOf = (r: RawRow) => ({ at: toDate(r.created_at).getTime(), id: r.id });

function byKey(dir: "asc" | "desc") {
  const sign = dir === "asc" ? 1 : -1;
  return (x: RawRow, y: RawRow) => sign * compareKeys(keyOf(x), keyOf(y));
}

/** True when the row comes strictly after the cursor in the section's order (keysetSql, in JS). */
function afterCursor(row: RawRow, cursor: Cursor | undefined, dir: "asc" | "desc"): boolean {
  if (!cursor) return true;
  return (dir === "asc" ? 1 : -1) * compareKeys(keyOf(row), { at: cursor.createdAt.getTime(), id: cursor.id }) > 0;
}

/** Both pending sections, or null when the partition does not apply (then the one-query form runs). */
async function pendingByRoleList(ctx: Ctx): Promise<{ canAct: Paged; waiting: Paged } | null> {
  const [lists, mine] = await Promise.all([pendingRoleLists(), findMine(ctx)]);
  if (lists.length > MAX_ROLE_LISTS || mine.length > MAX_MINE) return null;

  const roles = new Set(viewerRoles(ctx.viewer));
  const held = lists.filter((l) => requiredRolesOf(l).some((r) => roles.has(r)));
  // Lists the viewer holds no role of are visible only to admins and auditors;
  // to anyone else only their own requests in them are (and those are "mine").
  const all = seesAll(ctx.viewer);
  const other = new Set(lists.filter((l) => !held.includes(l)));
  const walked = all ? [...other] : [];
  const dir = ctx.query.order === "newest" ? "desc" : "asc";
  const base = Prisma.sql`${dialect().pendingAt(ctx.now)}${filtersSql(ctx.query, ctx.serviceId)}`;
  const notMine = mine.length ? Prisma.sql` AND a.id NOT IN (${Prisma.join(mine.map((m) => m.id))})` : Prisma.empty;
  const inLists = (ls: readonly string[]) => Prisma.sql` AND a.required_roles IN (${Prisma.join(ls)})`;
  const walk = (list: string, cursor: Cursor | undefined, extra: Prisma.Sql) =>
    selectRows(Prisma.sql`${base} AND a.required_roles = ${list}${extra}${keysetSql(cursor, dir)}`, dir, ctx.pageSize + 1);

  // "Mine" rows of walked lists are walked with them; the rest, if visible, join the waiting section here.
  const mineExtra = mine.filter((m) => !walked.includes(m.required_roles) && visibleTo(ctx.viewer, rowFacts(m)));
  const [actPages, waitPages, actCount, waitCount] = await Promise.all([
    Promise.all(held.map((l) => walk(l, ctx.query.act, notMine))),
    Promise.all(walked.map((l) => walk(l, ctx.query.wait, Prisma.empty))),
    held.length ? countRows(Prisma.sql`${base}${inLists(held)}${notMine}`, ctx.countCap) : 0,
    walked.length ? countRows(Prisma.sql`${base}${inLists(walked)}`, ctx.countCap) : 0,
  ]);
  const merge = (pages: RawRow[][]) => pages.flat().sort(byKey(dir)).slice(0, ctx.pageSize + 1);
  const waitingExtra = mineExtra.filter((m) => afterCursor(m, ctx.query.wait, dir));
  return {
    canAct: paged(merge(actPages), ctx.pageSize, actCount),
    waiting: paged(merge([...waitPages, waitingExtra]), ctx.pageSize, waitCount + mineExtra.length),
  };
}

/**
 * Newest first. One indexed query per status (an IN list would make the
 * database sort every decided row), merged here: at most pageSize + 1 rows
 * each. Pending rows already past their expiry, which the sweeper has not
 * marked yet, count as expired.
 */
async function decidedSection(ctx: Ctx): Promise<{ raw: RawRow[]; next: string | null; count: number }> {
  const statuses = ctx.query.status && ctx.query.status !== "pending" ? [ctx.query.status] : [...DECIDED_STATUSES];
  const filters = Prisma.sql`${filtersSql(ctx.query, ctx.serviceId)} AND ${visibleSql(ctx.viewer)}`;
  const wheres = statuses.map((s) => Prisma.sql`a.status = ${s}${filters}`);
  if (statuses.includes("expired")) wheres.push(Prisma.sql`a.status = 'pending' AND a.expires_at <= ${ctx.now}${filters}`);
  const keyset = keysetSql(ctx.query.done, "desc");
  const [pages, counts] = await Promise.all([
    Promise.all(wheres.map((w) => selectRows(Prisma.sql`${w}${keyset}`, "desc", ctx.pageSize + 1))),
    Promise.all(wheres.map((w) => countRows(w, ctx.countCap))),
  ]);
  const merged = pages
    .flat()
    .sort((x, y) => toDate(y.created_at).getTime() - toDate(x.created_at).getTime() || (y.id < x.id ? -1 : y.id > x.id ? 1 : 0));
  return paged(merged.slice(0, ctx.pageSize + 1), ctx.pageSize, counts.reduce((a, b) => a + b, 0));
}

function paged(rows: RawRow[], pageSize: number, count: number) {
  const more = rows.length > pageSize;
  const raw = rows.slice(0, pageSize);
  const last = raw[raw.length - 1];
  return { raw, next: more && last ? encodeCursor({ createdAt: toDate(last.created_at), id: last.id }) : null, count };
}

// ---------------------------------------------------------------- entry point

/**
 * The queue as `viewerId` sees it now. The viewer's email, roles, identities
 * and disabled flag are read here, from the database, like recordReview does.
 */
export async function findQueue(viewerId: string, query: QueueQuery = {}, options: FindQueueOptions = {}): Promise<Queue> {
  const pageSize = Math.min(Math.max(options.pageSize ?? DEFAULT_PAGE_SIZE, 1), 100);
  const countCap = Math.max(options.countCap ?? DEFAULT_COUNT_CAP, 1);
  const now = options.now ?? new Date();
  const user = await db().user.findUnique({ where: { id: viewerId }, select: VIEWER_SELECT });
  if (!user) throw new Error("findQueue: no such viewer");
  const viewer: Viewer = { ...user, keys: personKeys(user) };

  const empty = (): QueueSection => ({ rows: [], next: null, count: 0, countCapped: false });
  let serviceId: string | null = null;
  if (query.service) {
    const service = await db().service.findUnique({ where: { slug: query.service }, select: { id: true } });
    if (!service) {
      const pendingShown = !query.status || query.status === "pending";
      const decidedShown = query.status !== "pending";
      return { canAct: pendingShown ? empty() : null, waiting: pendingShown ? empty() : null, decided: decidedShown ? empty() : null };
    }
    serviceId = service.id;
  }

  const ctx: Ctx = { viewer, query, serviceId, now, pageSize, countCap };
  const pendingShown = !query.status || query.status === "pending";
  const decidedShown = query.status !== "pending";
  const [pending, decided] = await Promise.all([
    pendingShown ? pendingByRoleList(ctx).then(async (p) => p ?? { canAct: await pendingSection(ctx, "canAct"), waiting: await pendingSection(ctx, "waiting") }) : null,
    decidedShown ? decidedSection(ctx) : null,
  ]);
  const canAct = pending?.canAct ?? null;
  const waiting = pending?.waiting ?? null;

  // The viewer's own votes on the rows shown (one query), for the labels.
  const ids = [canAct, waiting, decided].flatMap((s) => s?.raw.map((r) => r.id) ?? []);
  const mine = ids.length
    ? await db().review.findMany({ where: { reviewerId: viewer.id, approvalId: { in: ids } }, select: { approvalId: true, reviewerId: true, decision: true } })
    : [];
  const myVote = new Map(mine.map((r) => [r.approvalId, r]));
  // Service slugs apart from the page query: a join there tempts PostgreSQL
  // into walking every service's rows and sorting them.
  const serviceIds = [...new Set([canAct, waiting, decided].flatMap((s) => s?.raw.map((r) => r.service_id) ?? []))];
  const services = serviceIds.length
    ? await db().service.findMany({ where: { id: { in: serviceIds } }, select: { id: true, slug: true } })
    : [];
  const slugOf = new Map(services.map((s) => [s.id, s.slug]));

  const present = (s: { raw: RawRow[]; next: string | null; count: number } | null): QueueSection | null => {
    if (!s) return null;
    return {
      rows: s.raw.map((r) => toRow(r, slugOf.get(r.service_id) ?? "?", viewer, myVote.get(r.id), now)),
      next: s.next,
      count: Math.min(s.count, countCap),
      countCapped: s.count > countCap,
    };
  };
  return { canAct: present(canAct), waiting: present(waiting), decided: present(decided) };
}

const rowFacts = (r: RawRow) => ({ requestedBy: r.requested_by, requesterKey: r.requester_key, requiredRoles: r.required_roles });

function toRow(r: RawRow, service: string, viewer: Viewer, vote: { reviewerId: string; decision: string } | undefined, now: Date): QueueRow {
  const createdAt = toDate(r.created_at);
  const expiresAt = toDate(r.expires_at);
  const status = effectiveStatus({ status: r.status, expiresAt }, now);
  let whyNot: string | null = null;
  if (status === "pending") {
    const verdict = eligibility(
      { status: r.status, expiresAt, ...rowFacts(r) },
      viewer,
      vote ? [vote] : [],
      now,
    );
    whyNot = verdict.ok ? null : verdict.message;
  }
  return {
    id: r.id,
    tool: r.tool,
    service,
    effects: r.effects,
    environment: r.environment,
    requestedBy: r.requested_by,
    summary: r.summary,
    status,
    requiredRoles: requiredRolesOf(r.required_roles),
    quorum: Number(r.quorum),
    approvals: Number(r.approve_count),
    createdAt,
    expiresAt,
    decidedAt: r.decided_at === null ? (status === "expired" ? expiresAt : null) : toDate(r.decided_at),
    decidedBy: parseDecidedBy(r.decided_by),
    myDecision: vote?.decision === "approve" || vote?.decision === "deny" ? vote.decision : null,
    whyNot,
  };
}

// ---------------------------------------------------------------- filter options and change tracking

/** Service slugs for the filter (services are few: one per agent fleet). */
export async function listQueueServices(): Promise<string[]> {
  const rows = await db().service.findMany({ select: { slug: true }, orderBy: { slug: "asc" } });
  return rows.map((r) => r.slug);
}

/**
 * The queue's version: the sequence number of the newest audit event. Every
 * change a queue shows (a request arriving, a review, a decision, an expiry,
 * a cancellation, a role change) appends one in the same transaction, on
 * every instance, so a live page can tell "changed since I rendered" with
 * one primary-key read.
 */
export async function getQueueVersion(): Promise<number> {
  const head = await db().auditHead.findUnique({ where: { id: 1 }, select: { seq: true } });
  return head?.seq ?? 0;
}

const QUEUE_EVENT_TYPES = [
  "approval.requested",
  "review.recorded",
  "approval.decided",
  "approval.expired",
  "approval.cancelled",
  "role.granted",
  "role.revoked",
] as const;

/**
 * What changed for queues between two versions: the request ids (at most
 * `limit`; `more` when there were others) and whether someone's roles changed
 * (which can change what they may see), or null if nothing a queue shows.
 * Ids are not filtered here: each viewer's stream keeps only those it may see.
 */
export async function findQueueChanges(
  since: number,
  until: number,
  limit = 50,
): Promise<{ ids: string[]; more: boolean; rolesChanged: boolean } | null> {
  const events = await db().auditEvent.findMany({
    where: { seq: { gt: since, lte: until }, type: { in: [...QUEUE_EVENT_TYPES] } },
    orderBy: { seq: "asc" },
    select: { approvalId: true, type: true },
    take: 500,
  });
  if (events.length === 0) return null;
  const ids = [...new Set(events.flatMap((e) => (e.approvalId ? [e.approvalId] : [])))];
  const rolesChanged = events.some((e) => e.type === "role.granted" || e.type === "role.revoked");
  return { ids: ids.slice(0, limit), more: ids.length > limit || events.length === 500, rolesChanged };
}
