// Approved calls that were consumed (so the executor was told to run them)
// and whose run was never reported, once EXECUTION_REPORT_GRACE_SECONDS have
// passed since the consume (docs/executions.md). For admins only
// (/admin/executions): the permission is checked here too, so no other caller
// can list them by mistake. Newest consume first, bounded.
import "server-only";
import { db } from "../db/client";
import { env } from "../env";
import { can } from "../auth/permissions";
import { AppError } from "../errors";
import { humanDuration } from "../format/time";

/** The most rows a page lists. */
export const UNREPORTED_LIMIT = 200;

export type UnreportedExecution = {
  approvalId: string;
  service: string;
  tool: string;
  runId: string;
  callId: string;
  consumedAt: Date;
  /** How long since the consume, worded ("2 h 5 min"), as of `now`. */
  since: string;
};

export type UnreportedExecutions = {
  graceSeconds: number;
  /** Newest consume first, at most `limit`. */
  items: UnreportedExecution[];
  /** More than `limit` matched: only the newest are listed. */
  more: boolean;
};

export async function findUnreportedExecutions(
  viewer: { roles: readonly string[] },
  options: { now?: Date; graceSeconds?: number; limit?: number } = {},
): Promise<UnreportedExecutions> {
  if (!can(viewer, "admin:executions")) throw new AppError("forbidden");
  const now = options.now ?? new Date();
  const graceSeconds = options.graceSeconds ?? env().EXECUTION_REPORT_GRACE_SECONDS;
  const limit = Math.max(1, Math.min(options.limit ?? UNREPORTED_LIMIT, UNREPORTED_LIMIT));
  const rows = await db().approval.findMany({
    where: {
      // Only an approved consume tells the executor to run the call; a denied,
      // expired or revised one has nothing to report.
      status: "approved",
      reportedAt: null,
      consumedAt: { not: null, lte: new Date(now.getTime() - graceSeconds * 1000) },
    },
    orderBy: [{ consumedAt: "desc" }, { id: "desc" }],
    take: limit + 1,
    select: { id: true, tool: true, runId: true, callId: true, consumedAt: true, service: { select: { slug: true } } },
  });
  const items = rows.slice(0, limit).flatMap((r) =>
    r.consumedAt
      ? [
          {
            approvalId: r.id,
            service: r.service.slug,
            tool: r.tool,
            runId: r.runId,
            callId: r.callId,
            consumedAt: r.consumedAt,
            since: humanDuration(now.getTime() - r.consumedAt.getTime()),
          },
        ]
      : [],
  );
  return { graceSeconds, items, more: rows.length > limit };
}
