// GET /admin/insights/csv?chart=requests|decision-time|expiries|reviewers[&from=YYYY-MM-DD&to=YYYY-MM-DD]:
// the numbers behind one /admin/insights chart as CSV (docs/insights.md).
// Admins only: withSession checks the session's current state, and
// computeInsights checks the role again.
import { z } from "zod";
import { withSession } from "@/lib/auth/guards";
import type { CurrentUser } from "@/lib/auth/current-user";
import { AppError } from "@/lib/errors";
import { CHARTS, chartCsv } from "@/lib/insights/csv";
import { computeInsights, parsePeriod } from "@/lib/insights/insights";
import { loggedRoute } from "@/lib/http/logged-route";

export const dynamic = "force-dynamic";

const chartSchema = z.enum(CHARTS);

async function insightsCsv(req: Request, user: CurrentUser): Promise<Response> {
  const params = Object.fromEntries(new URL(req.url).searchParams);
  const chart = chartSchema.safeParse(params.chart);
  if (!chart.success) throw new AppError("invalid-request", `chart must be one of ${CHARTS.join(", ")}`);
  const period = parsePeriod({ from: params.from, to: params.to });
  const insights = await computeInsights(user.id, period);
  return new Response(chartCsv(insights, chart.data), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="countersign-${chart.data}-${insights.period.from}-${insights.period.to}.csv"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}

export const GET = loggedRoute("insights.csv", withSession("admin:insights", insightsCsv));
