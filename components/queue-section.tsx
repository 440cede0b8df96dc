// One section of the queue: its heading with the count, its rows, and
// keyset paging links ("Next page" carries the last row's cursor).
import Link from "next/link";
import { QueueRow, type SectionKind } from "@/components/queue-row";
import type { QueueSection as Section } from "@/lib/queue/find-queue";
import { groupRuns, isRunGroup } from "@/lib/queue/group-runs";
import { ClippedText, RevealedText } from "@/components/revealed-text";
import { clippedTextView, FIELD_CLIPS } from "@/lib/display/listed-request";
import { textView } from "@/lib/display/request-display";

export const runReviewHref = (service: string, runId: string) => `/runs/${encodeURIComponent(service)}/${encodeURIComponent(runId)}`;

export type { SectionKind };

const EMPTY: Record<SectionKind, string> = {
  canAct: "Nothing needs your review right now.",
  waiting: "Nothing is waiting on others.",
  decided: "No decisions yet.",
};

export function QueueSection({
  kind,
  title,
  hint,
  section,
  empty,
  nextHref,
  firstHref,
  carried = "",
}: {
  kind: SectionKind;
  title: string;
  hint: string;
  section: Section;
  /** Shown instead of the default when the section is empty (e.g. under a search). */
  empty?: string;
  /** Link to the next page, when there is one. */
  nextHref: string | null;
  /** Link back to the first page, when this is not it. */
  firstHref: string | null;
  /** The queue's filters and order, carried to each request's page ("?…" or ""). */
  carried?: string;
}) {
  const headingId = `queue-${kind}`;
  const count = `${section.count}${section.countCapped ? "+" : ""}`;
  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-2" data-testid={`queue-${kind}`}>
      <div className="flex flex-wrap items-baseline justify-between gap-x-3">
        <h2 id={headingId} className="text-lg font-semibold">
          {title} <span className="text-base font-normal text-slate-600">({count})</span>
        </h2>
        <p className="text-xs text-slate-600">{hint}</p>
      </div>
      {section.rows.length === 0 ? (
        <p className="rounded border border-dashed border-slate-300 p-3 text-sm text-slate-600">{empty ?? EMPTY[kind]}</p>
      ) : (
        <ul className="divide-y divide-slate-200 rounded border border-slate-200 bg-white">
          {groupRuns(section.rows).map((item) =>
            isRunGroup(item) ? (
              <li key={`run:${item.rows[0]!.id}`} data-testid="run-group" className="bg-slate-50">
                <div className="flex flex-wrap items-baseline justify-between gap-2 px-3 pt-2 text-xs text-slate-700">
                  <span>
                    {item.rows.length} calls of run{" "}
                    <span className="font-mono">
                      <ClippedText value={clippedTextView(item.runId, FIELD_CLIPS.runId)} />
                    </span>{" "}
                    (<RevealedText value={textView(item.service)} />)
                  </span>
                  <Link href={runReviewHref(item.service, item.runId)} className="font-medium underline">
                    Review the run together
                  </Link>
                </div>
                <ul className="divide-y divide-slate-200">
                  {item.rows.map((row) => (
                    <li key={row.id}>
                      <QueueRow kind={kind} row={row} carried={carried} />
                    </li>
                  ))}
                </ul>
              </li>
            ) : (
              <li key={item.id}>
                <QueueRow kind={kind} row={item} carried={carried} />
              </li>
            ),
          )}
        </ul>
      )}
      {(nextHref || firstHref) && (
        <nav aria-label={`${title} pages`} className="flex flex-wrap gap-3 text-sm">
          {firstHref && (
            <Link href={firstHref} className="rounded border border-slate-300 px-3 py-2 hover:bg-slate-100">
              First page
            </Link>
          )}
          {nextHref && (
            <Link href={nextHref} rel="next" className="rounded border border-slate-300 px-3 py-2 hover:bg-slate-100">
              Next page
            </Link>
          )}
        </nav>
      )}
    </section>
  );
}
