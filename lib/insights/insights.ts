// Review insights for admins (docs/insights.md): over a period of whole UTC
// days, requests per day by outcome, time to decision (p50/p95) by service,
// tool and channel, expiries per day, and per reviewer their votes, approval
// rate and median time on the page before voting, with reviewers flagged
// whose destructive approvals mostly came faster than
// INSIGHTS_FAST_REVIEW_SECONDS after the page was served. Numbers only:
// nothing here reads a request's arguments.
import "server-only";
import { z } from "zod";
import { can } from "../auth/permissions";
import { db } from "../db/client";
import { env } from "../env";
import { AppError } from "../errors";
import { effectiveStatus } from "../approvals/present";
import { loadViewer, rolesOf } from "../reviews/visibility";

export const MAX_PERIOD_DAYS = 366;
export const DEFAULT_PERIOD_DAYS = 30;
const DAY_MS = 86_400_000;

export const OUTCOMES = ["approved", "denied", "expired", "cancelled", "revised", "pending"] as const;
export type Outcome = (typeof OUTCOMES)[number];
export const CHANNELS = ["browser", "slack", "batch", "revision", "standing"] as const;
export type Channel = (typeof CHANNELS)[number];

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date as YYYY-MM-DD")
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s), "is not a calendar date");

/** ?from=YYYY-MM-DD&to=YYYY-MM-DD (both days included); empty means the default. */
export const periodQuerySchema = z.object({
  from: z.preprocess((v) => (v === "" ? undefined : v), day.optional()),
  to: z.preprocess((v) => (v === "" ? undefined : v), day.optional()),
});

export type Period = { from: Date; to: Date; days: string[] };

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/**
 * The period a query names: whole UTC days from `from` to `to` inclusive (to:
 * today, from: 29 days before `to` by default), at most 366 days. Throws
 * AppError("invalid-request") with a message a person can act on.
 */
export function parsePeriod(query: Record<string, unknown>, now = new Date()): Period {
  const parsed = periodQuerySchema.safeParse(query);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new AppError("invalid-request", `${String(i.path[0] ?? "period")} ${i.message}`);
  }
  const to = parsed.data.to ? new Date(`${parsed.data.to}T00:00:00Z`) : new Date(`${isoDay(now)}T00:00:00Z`);
  const from = parsed.data.from ? new Date(`${parsed.data.from}T00:00:00Z`) : new Date(to.getTime() - (DEFAULT_PERIOD_DAYS - 1) * DAY_MS);
  if (from.getTime() > to.getTime()) throw new AppError("invalid-request", "from must be on or before to");
  const count = Math.round((to.getTime() - from.getTime()) / DAY_MS) + 1;
  if (count > MAX_PERIOD_DAYS) throw new AppError("invalid-request", `the period is ${count} days: at most ${MAX_PERIOD_DAYS}`);
  const days = Array.from({ length: count }, (_, i) => isoDay(new Date(from.getTime() + i * DAY_MS)));
  return { from, to: new Date(to.getTime() + DAY_MS), days };
}

/** Nearest-rank percentile of sorted values (p in (0, 1]): the smallest value with at least p of them at or below it. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

/** The median: the middle value, or the mean of the two middle ones. */
export function median(sorted: readonly number[]): number | null {
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export type DecisionTimeRow = { key: string; decided: number; p50: number | null; p95: number | null };
export type ReviewerRow = {
  reviewer: string;
  votes: number;
  approvals: number;
  /** approvals / votes, 0..1. */
  approvalRate: number;
  /** Median seconds from the page being served to the vote, over votes with a recorded view (null: none). */
  medianSecondsOnPage: number | null;
  destructiveApprovals: number;
  /** Destructive approvals faster than the threshold after the page was served. */
  fastDestructiveApprovals: number;
  flagged: boolean;
};

export type Insights = {
  period: { from: string; to: string; days: number };
  fastReviewSeconds: number;
  requestsPerDay: Array<{ day: string } & Record<Outcome, number>>;
  decisionTime: { byService: DecisionTimeRow[]; byTool: DecisionTimeRow[]; byChannel: DecisionTimeRow[] };
  expiriesPerDay: Array<{ day: string; expired: number }>;
  reviewers: ReviewerRow[];
};

function timeRows(groups: Map<string, number[]>): DecisionTimeRow[] {
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, values]) => {
      const sorted = [...values].sort((x, y) => x - y);
      return { key, decided: sorted.length, p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95) };
    });
}

const push = <K, V>(m: Map<K, V[]>, k: K, v: V) => {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
};

/**
 * Every number of /admin/insights for the period, for an admin (the viewer's
 * roles are read now; anyone else gets AppError("forbidden")).
 */
export async function computeInsights(viewerId: string, period: Period, opts: { now?: Date; fastReviewSeconds?: number } = {}): Promise<Insights> {
  const viewer = await loadViewer(viewerId);
  if (!viewer || !can({ roles: rolesOf(viewer) }, "admin:insights")) throw new AppError("forbidden");
  const now = opts.now ?? new Date();
  const fast = opts.fastReviewSeconds ?? env().INSIGHTS_FAST_REVIEW_SECONDS;
  const inPeriod = { gte: period.from, lt: period.to };

  // Requests made in the period: outcomes per day, and time to decision.
  const requests = await db().approval.findMany({
    where: { createdAt: inPeriod },
    select: {
      id: true,
      status: true,
      createdAt: true,
      expiresAt: true,
      decidedAt: true,
      tool: true,
      standingApprovalId: true,
      service: { select: { slug: true } },
      reviews: { select: { decision: true, createdAt: true, via: true, id: true } },
    },
  });
  const perDay = new Map(period.days.map((d) => [d, Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>]));
  const byService = new Map<string, number[]>();
  const byTool = new Map<string, number[]>();
  const byChannel = new Map<string, number[]>();
  for (const a of requests) {
    const status = effectiveStatus(a, now) as Outcome;
    const counts = perDay.get(isoDay(a.createdAt));
    if (counts && status in counts) counts[status] += 1;
    if ((status !== "approved" && status !== "denied") || !a.decidedAt) continue;
    const seconds = (a.decidedAt.getTime() - a.createdAt.getTime()) / 1000;
    // The channel of the vote that decided it: the last vote of its decision (a standing approval decides with none).
    const deciding = a.reviews
      .filter((r) => r.decision === (status === "approved" ? "approve" : "deny"))
      .sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime() || (x.id < y.id ? -1 : 1))
      .at(-1);
    const channel = a.standingApprovalId ? "standing" : (deciding?.via ?? null);
    push(byService, a.service.slug, seconds);
    push(byTool, a.tool, seconds);
    if (channel) push(byChannel, channel, seconds);
  }

  // Expiries by the day they expired, in the period and already past.
  const expiring = await db().approval.findMany({
    where: { status: { in: ["pending", "expired"] }, expiresAt: { gte: period.from, lt: period.to, lte: now } },
    select: { status: true, expiresAt: true },
  });
  const expiries = new Map(period.days.map((d) => [d, 0]));
  for (const a of expiring) {
    const d = isoDay(a.expiresAt);
    if (expiries.has(d)) expiries.set(d, expiries.get(d)! + 1);
  }

  // Votes cast in the period, with the page view of the same reviewer and request.
  const votes = await db().review.findMany({
    where: { createdAt: inPeriod },
    select: { approvalId: true, reviewerId: true, reviewerEmail: true, decision: true, createdAt: true, approval: { select: { effects: true } } },
  });
  const views = votes.length
    ? await db().reviewView.findMany({
        where: { approvalId: { in: [...new Set(votes.map((v) => v.approvalId))] } },
        select: { approvalId: true, userId: true, firstServedAt: true },
      })
    : [];
  const servedAt = new Map(views.map((v) => [`${v.approvalId} ${v.userId}`, v.firstServedAt]));
  type Tally = { votes: number; approvals: number; onPage: number[]; destructive: number; fastDestructive: number };
  const tallies = new Map<string, Tally>();
  for (const v of votes) {
    const t = tallies.get(v.reviewerEmail) ?? { votes: 0, approvals: 0, onPage: [], destructive: 0, fastDestructive: 0 };
    tallies.set(v.reviewerEmail, t);
    t.votes += 1;
    const served = servedAt.get(`${v.approvalId} ${v.reviewerId}`);
    const onPage = served ? (v.createdAt.getTime() - served.getTime()) / 1000 : null;
    if (onPage !== null) t.onPage.push(onPage);
    if (v.decision !== "approve") continue;
    t.approvals += 1;
    if (v.approval.effects === "destructive" && onPage !== null) {
      t.destructive += 1;
      if (onPage < fast) t.fastDestructive += 1;
    }
  }
  const reviewers = [...tallies.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([reviewer, t]) => ({
      reviewer,
      votes: t.votes,
      approvals: t.approvals,
      approvalRate: t.approvals / t.votes,
      medianSecondsOnPage: median([...t.onPage].sort((x, y) => x - y)),
      destructiveApprovals: t.destructive,
      fastDestructiveApprovals: t.fastDestructive,
      // Mostly fast: more than half of their measured destructive approvals, and at least 3 of them.
      flagged: t.fastDestructive >= 3 && t.fastDestructive * 2 > t.destructive,
    }));

  return {
    period: { from: period.days[0]!, to: period.days.at(-1)!, days: period.days.length },
    fastReviewSeconds: fast,
    requestsPerDay: period.days.map((d) => ({ day: d, ...perDay.get(d)! })),
    decisionTime: { byService: timeRows(byService), byTool: timeRows(byTool), byChannel: timeRows(byChannel) },
    expiriesPerDay: period.days.map((d) => ({ day: d, expired: expiries.get(d)! })),
    reviewers,
  };
}
