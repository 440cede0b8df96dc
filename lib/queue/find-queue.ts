// The review queue for one viewer (issue "Review"): first the pending
// requests they can act on now, then those waiting on others, then recent
// decisions. Each section is filtered, counted and paged by keyset on
// (time, id): creation or expiry time for pending requests, decision time
// for recent ones (section-sql.ts), and shows only the requests the viewer
// may see (docs/security.md). Views ("My requests", "Decided by me"), search and
// the run filter narrow every section alike.
//
// Where each part lives: the URL in query-params.ts; the pending sections in
// pending-sections.ts, with "can act on" and "may see" stated in SQL beside
// their TypeScript rules (lib/reviews/eligibility-sql.ts, visibility-sql.ts);
// recent decisions in decided-section.ts; what differs between SQLite and
// PostgreSQL in dialect.ts; the live page's change feed in live-feed.ts.
// recordReview stays the authority at the moment of the click; every row
// also carries the verdict of eligibility() (queue-row.ts), which the page
// shows next to waiting rows.
import "server-only";
import { db, Prisma } from "../db/client";
import { sqlViewer } from "../reviews/eligibility-sql";
import { VIEWER_SELECT } from "../reviews/visibility";
import { findDecidedSection } from "./decided-section";
import { ARGS_HEAD_CHARS, keyArguments } from "./key-args";
import { findPendingSections } from "./pending-sections";
import type { QueueQuery } from "./query-params";
import { toQueueRow, type QueueRow } from "./queue-row";
import type { SectionContext, SectionPage } from "./section-sql";

export type { QueueRow };

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
  const viewer = sqlViewer(user);
  const pendingShown = !query.status || query.status === "pending";
  const decidedShown = query.status !== "pending";

  let serviceId: string | null = null;
  if (query.service) {
    const service = await db().service.findUnique({ where: { slug: query.service }, select: { id: true } });
    if (!service) {
      const empty = (): QueueSection => ({ rows: [], next: null, count: 0, countCapped: false });
      return { canAct: pendingShown ? empty() : null, waiting: pendingShown ? empty() : null, decided: decidedShown ? empty() : null };
    }
    serviceId = service.id;
  }

  const ctx: SectionContext = { viewer, query, serviceId, now, pageSize, countCap };
  const [pending, decided] = await Promise.all([pendingShown ? findPendingSections(ctx) : null, decidedShown ? findDecidedSection(ctx) : null]);
  const sections = [pending?.canAct ?? null, pending?.waiting ?? null, decided] as const;

  // The viewer's own votes on the rows shown (one query), for the labels,
  // and the start of each row's redacted arguments, for its key values.
  const ids = sections.flatMap((s) => s?.raw.map((r) => r.id) ?? []);
  const [mine, heads] = ids.length
    ? await Promise.all([
        db().review.findMany({
          where: { reviewerId: viewer.id, approvalId: { in: ids } },
          select: { approvalId: true, reviewerId: true, decision: true },
        }),
        db().$queryRaw<Array<{ id: string; head: string }>>`
          SELECT a.id, SUBSTR(a.redacted_args, 1, ${Prisma.raw(String(ARGS_HEAD_CHARS))}) AS head
          FROM approvals a WHERE a.id IN (${Prisma.join(ids)})`,
      ])
    : [[], []];
  const myVote = new Map(mine.map((r) => [r.approvalId, r]));
  const keyArgsOf = new Map(heads.map((h) => [h.id, keyArguments(h.head)]));
  // Service slugs apart from the page query: a join there tempts PostgreSQL
  // into walking every service's rows and sorting them.
  const serviceIds = [...new Set(sections.flatMap((s) => s?.raw.map((r) => r.service_id) ?? []))];
  const services = serviceIds.length ? await db().service.findMany({ where: { id: { in: serviceIds } }, select: { id: true, slug: true } }) : [];
  const slugOf = new Map(services.map((s) => [s.id, s.slug]));

  const present = (s: SectionPage | null): QueueSection | null => {
    if (!s) return null;
    return {
      rows: s.raw.map((r) => toQueueRow(r, slugOf.get(r.service_id) ?? "?", viewer, myVote.get(r.id), now, keyArgsOf.get(r.id))),
      next: s.next,
      count: Math.min(s.count, countCap),
      countCapped: s.count > countCap,
    };
  };
  const [canAct, waiting, decidedPage] = sections;
  return { canAct: present(canAct), waiting: present(waiting), decided: present(decidedPage) };
}

/** Service slugs for the filter (services are few: one per agent fleet). */
export async function listQueueServices(): Promise<string[]> {
  const rows = await db().service.findMany({ select: { slug: true }, orderBy: { slug: "asc" } });
  return rows.map((r) => r.slug);
}
