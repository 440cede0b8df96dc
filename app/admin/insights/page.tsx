// /admin/insights (docs/insights.md): review statistics over a period, as
// server-rendered SVG charts (a viewBox that scales to the screen, text
// labels) each with a table of its numbers and a CSV download. Admins only:
// checked here and again in computeInsights.
import type { Metadata } from "next";
import { requirePermissionPage } from "@/lib/auth/guards";
import { AppError } from "@/lib/errors";
import { humanSeconds } from "@/lib/format/time";
import { computeInsights, OUTCOMES, parsePeriod, type DecisionTimeRow, type Insights } from "@/lib/insights/insights";
import type { Chart } from "@/lib/insights/csv";
import { AdminPage, Section } from "../_components/admin-page";
import { ScrollRegion } from "@/components/scroll-region";
import { firstParam } from "@/lib/http/form-fields";

export const metadata: Metadata = { title: "Insights" };
export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const COLORS: Record<(typeof OUTCOMES)[number], string> = {
  approved: "#15803d",
  denied: "#b91c1c",
  expired: "#64748b",
  cancelled: "#a16207",
  revised: "#7c3aed",
  pending: "#2563eb",
};

const seconds = (s: number | null) => (s === null ? "—" : s < 60 ? `${Math.round(s * 10) / 10} s` : humanSeconds(Math.round(s)));
const percent = (r: number) => `${Math.round(r * 1000) / 10}%`;

function CsvLink({ chart, period }: { chart: Chart; period: Insights["period"] }) {
  const q = new URLSearchParams({ chart, from: period.from, to: period.to });
  return (
    <a href={`/admin/insights/csv?${q}`} className="text-sm underline" data-testid={`csv-${chart}`} download>
      Download CSV
    </a>
  );
}

/** Bars per day: stacked by series, a label every few days, the total on the y axis. */
function DayBars({
  id,
  title,
  days,
  series,
}: {
  id: string;
  title: string;
  days: string[];
  series: Array<{ name: string; color: string; values: number[] }>;
}) {
  const width = 640;
  const height = 220;
  const left = 36;
  const bottom = 28;
  const totals = days.map((_, i) => series.reduce((n, s) => n + s.values[i]!, 0));
  const max = Math.max(1, ...totals);
  const slot = (width - left - 4) / days.length;
  const y = (v: number) => ((height - bottom - 8) * v) / max;
  const labelEvery = Math.max(1, Math.ceil(days.length / 8));
  return (
    <svg viewBox={`0 0 ${width} ${height}`} className="h-auto w-full" role="img" aria-labelledby={`${id}-t`} data-testid={`${id}-svg`}>
      <title id={`${id}-t`}>{title}</title>
      <line x1={left} y1={height - bottom} x2={width} y2={height - bottom} stroke="#94a3b8" />
      <text x={left - 4} y={12} textAnchor="end" fontSize="11" fill="#334155">
        {max}
      </text>
      <text x={left - 4} y={height - bottom} textAnchor="end" fontSize="11" fill="#334155">
        0
      </text>
      {days.map((d, i) => {
        let base = height - bottom;
        return (
          <g key={d}>
            {series.map((s) => {
              const h = y(s.values[i]!);
              base -= h;
              return h > 0 ? <rect key={s.name} x={left + i * slot + 1} y={base} width={Math.max(1, slot - 2)} height={h} fill={s.color} /> : null;
            })}
            {i % labelEvery === 0 && (
              <text x={left + i * slot + slot / 2} y={height - 10} textAnchor="middle" fontSize="10" fill="#334155">
                {d.slice(5)}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}

/** p50 and p95 as paired horizontal bars, one row per key, labelled with their values. */
function TimeBars({ id, title, rows }: { id: string; title: string; rows: DecisionTimeRow[] }) {
  if (rows.length === 0) return <p className="text-sm text-slate-600">No decisions in this period.</p>;
  const width = 640;
  const row = 34;
  const labelW = 170;
  const max = Math.max(1, ...rows.map((r) => r.p95 ?? 0));
  const w = (v: number | null) => ((width - labelW - 90) * (v ?? 0)) / max;
  const clip = (s: string) => (s.length > 26 ? `${s.slice(0, 25)}…` : s);
  return (
    <svg viewBox={`0 0 ${width} ${rows.length * row + 6}`} className="h-auto w-full" role="img" aria-labelledby={`${id}-t`}>
      <title id={`${id}-t`}>{title}</title>
      {rows.map((r, i) => (
        <g key={r.key} transform={`translate(0 ${i * row + 4})`}>
          <text x={labelW - 6} y={18} textAnchor="end" fontSize="12" fill="#0f172a">
            {clip(r.key)}
          </text>
          <rect x={labelW} y={2} width={w(r.p50)} height={12} fill="#2563eb" />
          <text x={labelW + w(r.p50) + 4} y={12} fontSize="10" fill="#334155">
            p50 {seconds(r.p50)}
          </text>
          <rect x={labelW} y={16} width={w(r.p95)} height={12} fill="#93c5fd" />
          <text x={labelW + w(r.p95) + 4} y={26} fontSize="10" fill="#334155">
            p95 {seconds(r.p95)}
          </text>
        </g>
      ))}
    </svg>
  );
}

function Table({ caption, head, rows, testId }: { caption: string; head: string[]; rows: Array<Array<string | number>>; testId?: string }) {
  return (
    <details className="mt-2 text-sm">
      <summary className="cursor-pointer">The numbers (table)</summary>
      <ScrollRegion label={caption}>
        <table className="mt-1 w-full text-left" data-testid={testId}>
          <caption className="sr-only">{caption}</caption>
          <thead className="text-xs text-slate-600">
            <tr>
              {head.map((h) => (
                <th key={h} scope="col" className="py-1 pr-3 font-medium">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i} className="border-t border-slate-100">
                {r.map((c, j) => (
                  <td key={j} className="break-all py-1 pr-3">
                    {c}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
    </details>
  );
}

const timeTable = (rows: DecisionTimeRow[]) => rows.map((r) => [r.key, r.decided, seconds(r.p50), seconds(r.p95)]);

export default async function InsightsPage({ searchParams }: Props) {
  const me = await requirePermissionPage("admin:insights");
  const sp = await searchParams;
  const query = { from: firstParam(sp.from), to: firstParam(sp.to) };
  let insights: Insights | null = null;
  let problem: string | null = null;
  try {
    insights = await computeInsights(me.id, parsePeriod(query));
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== "invalid-request") throw e;
    problem = e.message;
  }
  return (
    <AdminPage user={me} title="Insights">
      <form method="get" className="flex flex-wrap items-end gap-3 text-sm" aria-label="Period">
        <label className="flex flex-col gap-1 font-medium">
          From
          <input
            type="date"
            name="from"
            defaultValue={insights?.period.from ?? query.from ?? ""}
            className="rounded border border-slate-300 px-2 py-1"
          />
        </label>
        <label className="flex flex-col gap-1 font-medium">
          To
          <input type="date" name="to" defaultValue={insights?.period.to ?? query.to ?? ""} className="rounded border border-slate-300 px-2 py-1" />
        </label>
        <button type="submit" className="rounded border border-slate-400 bg-white px-3 py-1 font-medium hover:bg-slate-100">
          Show
        </button>
        <span className="text-slate-600">Whole days in UTC, both included; at most 366 days. Default: the last 30 days.</span>
      </form>
      {problem && (
        <p role="alert" className="rounded border border-red-300 bg-red-50 p-3 text-sm text-red-900" data-testid="period-problem">
          That period cannot be shown: {problem}.
        </p>
      )}
      {insights && (
        <>
          <Section title={`Requests per day by outcome (${insights.period.from} to ${insights.period.to})`} id="requests-h">
            <DayBars
              id="requests"
              title={`Requests per day, stacked by outcome: ${OUTCOMES.map((o) => `${o} ${insights.requestsPerDay.reduce((n, d) => n + d[o], 0)}`).join(", ")}`}
              days={insights.requestsPerDay.map((d) => d.day)}
              series={OUTCOMES.map((o) => ({ name: o, color: COLORS[o], values: insights.requestsPerDay.map((d) => d[o]) }))}
            />
            <ul className="mt-1 flex flex-wrap gap-3 text-xs" aria-label="Legend">
              {OUTCOMES.map((o) => (
                <li key={o} className="flex items-center gap-1">
                  <span aria-hidden="true" className="inline-block h-3 w-3" style={{ background: COLORS[o] }} />
                  {o}
                </li>
              ))}
            </ul>
            <Table
              caption="Requests per day by outcome"
              head={["Day", ...OUTCOMES]}
              rows={insights.requestsPerDay.filter((d) => OUTCOMES.some((o) => d[o] > 0)).map((d) => [d.day, ...OUTCOMES.map((o) => d[o])])}
            />
            <CsvLink chart="requests" period={insights.period} />
          </Section>

          <Section title="Time to decision (p50, p95)" id="decision-time-h">
            {(
              [
                ["byService", "By service"],
                ["byTool", "By tool"],
                ["byChannel", "By channel (browser, slack, batch, revision, standing)"],
              ] as const
            ).map(([key, label]) => (
              <div key={key} className="mb-3">
                <h3 className="text-sm font-medium">{label}</h3>
                <TimeBars id={`time-${key}`} title={`Time to decision ${label.toLowerCase()}`} rows={insights.decisionTime[key]} />
                <Table
                  caption={`Time to decision ${label.toLowerCase()}`}
                  head={["Key", "Decided", "p50", "p95"]}
                  rows={timeTable(insights.decisionTime[key])}
                />
              </div>
            ))}
            <CsvLink chart="decision-time" period={insights.period} />
          </Section>

          <Section title="Expiries per day" id="expiries-h">
            <DayBars
              id="expiries"
              title={`Requests that expired per day: ${insights.expiriesPerDay.reduce((n, d) => n + d.expired, 0)} in the period`}
              days={insights.expiriesPerDay.map((d) => d.day)}
              series={[{ name: "expired", color: COLORS.expired, values: insights.expiriesPerDay.map((d) => d.expired) }]}
            />
            <Table
              caption="Expiries per day"
              head={["Day", "Expired"]}
              rows={insights.expiriesPerDay.filter((d) => d.expired > 0).map((d) => [d.day, d.expired])}
            />
            <CsvLink chart="expiries" period={insights.period} />
          </Section>

          <Section title="Reviewers" id="reviewers-h">
            <p className="mb-2 text-sm text-slate-700">
              Flagged: more than half of a reviewer&apos;s destructive approvals (and at least 3) came less than {insights.fastReviewSeconds} s after
              the request&apos;s page was served to them (<code>INSIGHTS_FAST_REVIEW_SECONDS</code>).
            </p>
            {insights.reviewers.length === 0 ? (
              <p className="text-sm text-slate-600">No votes in this period.</p>
            ) : (
              <ScrollRegion label="Votes per reviewer">
                <table className="w-full text-left text-sm" data-testid="reviewers">
                  <caption className="sr-only">Votes per reviewer</caption>
                  <thead className="text-xs text-slate-600">
                    <tr>
                      {["Reviewer", "Votes", "Approval rate", "Median time on page", "Fast destructive approvals", "Flag"].map((h) => (
                        <th key={h} scope="col" className="py-1 pr-3 font-medium">
                          {h}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {insights.reviewers.map((r) => (
                      <tr key={r.reviewer} className="border-t border-slate-100" data-flagged={r.flagged}>
                        <td className="break-all py-1 pr-3">{r.reviewer}</td>
                        <td className="py-1 pr-3">{r.votes}</td>
                        <td className="py-1 pr-3">{percent(r.approvalRate)}</td>
                        <td className="py-1 pr-3">{seconds(r.medianSecondsOnPage)}</td>
                        <td className="py-1 pr-3">
                          {r.fastDestructiveApprovals} of {r.destructiveApprovals}
                        </td>
                        <td className="py-1 pr-3">{r.flagged ? <strong className="text-red-700">fast on destructive</strong> : ""}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </ScrollRegion>
            )}
            <CsvLink chart="reviewers" period={insights.period} />
          </Section>
        </>
      )}
    </AdminPage>
  );
}
