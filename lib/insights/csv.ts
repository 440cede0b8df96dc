// The numbers behind each /admin/insights chart as CSV (RFC 4180, CRLF, a
// header row). Cells hold dates, counts, seconds, rates, service and tool
// names and reviewer emails, never argument data. A text cell that a
// spreadsheet would read as a formula (starting with = + - @, a tab or a
// carriage return) is prefixed with an apostrophe; numbers are written as
// numbers.
import type { Insights } from "./insights";

export const CHARTS = ["requests", "decision-time", "expiries", "reviewers"] as const;
export type Chart = (typeof CHARTS)[number];

type Cell = string | number | boolean | null;

/** One CSV cell: formula-looking text neutralized, quoted when it holds a comma, quote or line break. */
export function csvCell(v: Cell): string {
  if (v === null) return "";
  if (typeof v !== "string") return String(v);
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function toCsv(header: readonly string[], rows: ReadonlyArray<readonly Cell[]>): string {
  return [header, ...rows].map((r) => r.map(csvCell).join(",")).join("\r\n") + "\r\n";
}

const round = (n: number | null, places = 3) => (n === null ? null : Math.round(n * 10 ** places) / 10 ** places);

export function chartCsv(insights: Insights, chart: Chart): string {
  switch (chart) {
    case "requests":
      return toCsv(
        ["day", "approved", "denied", "expired", "cancelled", "revised", "pending"],
        insights.requestsPerDay.map((d) => [d.day, d.approved, d.denied, d.expired, d.cancelled, d.revised, d.pending]),
      );
    case "decision-time":
      return toCsv(
        ["by", "key", "decided", "p50_seconds", "p95_seconds"],
        (["service", "tool", "channel"] as const).flatMap((by) =>
          insights.decisionTime[by === "service" ? "byService" : by === "tool" ? "byTool" : "byChannel"].map((r) => [
            by,
            r.key,
            r.decided,
            round(r.p50),
            round(r.p95),
          ]),
        ),
      );
    case "expiries":
      return toCsv(
        ["day", "expired"],
        insights.expiriesPerDay.map((d) => [d.day, d.expired]),
      );
    case "reviewers":
      return toCsv(
        [
          "reviewer",
          "votes",
          "approvals",
          "approval_rate",
          "median_seconds_on_page",
          "destructive_approvals",
          "fast_destructive_approvals",
          "flagged",
        ],
        insights.reviewers.map((r) => [
          r.reviewer,
          r.votes,
          r.approvals,
          round(r.approvalRate),
          round(r.medianSecondsOnPage),
          r.destructiveApprovals,
          r.fastDestructiveApprovals,
          r.flagged,
        ]),
      );
  }
}
