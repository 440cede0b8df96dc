// One section of the queue: its heading with the count, its rows, and
// keyset paging links ("Next page" carries the last row's cursor).
import Link from "next/link";
import { StatusBadge } from "@/components/status-badge";
import { RevealedText } from "@/components/revealed-text";
import { rowDisplay } from "@/lib/display/request-display";
import { Ago, Countdown } from "@/components/time";
import type { QueueRow, QueueSection as Section } from "@/lib/queue/find-queue";

export type SectionKind = "canAct" | "waiting" | "decided";

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
  nextHref,
  firstHref,
}: {
  kind: SectionKind;
  title: string;
  hint: string;
  section: Section;
  /** Link to the next page, when there is one. */
  nextHref: string | null;
  /** Link back to the first page, when this is not it. */
  firstHref: string | null;
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
        <p className="rounded border border-dashed border-slate-300 p-3 text-sm text-slate-600">{EMPTY[kind]}</p>
      ) : (
        <ul className="divide-y divide-slate-200 rounded border border-slate-200 bg-white">
          {section.rows.map((row) => (
            <li key={row.id}>
              <QueueItem kind={kind} row={row} />
            </li>
          ))}
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

function QueueItem({ kind, row }: { kind: SectionKind; row: QueueRow }) {
  const metaId = `row-${kind}-${row.id}`;
  const pending = row.status === "pending";
  // Service-written text, revealed like on the request's page (CONTRACT §19).
  const shown = rowDisplay(row);
  return (
    <article className="flex flex-col gap-1 p-3" data-approval-id={row.id}>
      <div className="flex flex-wrap items-center gap-2">
        <Link
          href={`/approvals/${row.id}`}
          aria-describedby={metaId}
          className="break-all font-mono font-semibold text-blue-800 underline-offset-2 hover:underline"
        >
          <RevealedText value={shown.fields.tool} />
        </Link>
        {row.effects === "destructive" && <span className="rounded bg-red-700 px-1.5 py-0.5 text-xs text-white">destructive</span>}
        {!pending && <StatusBadge status={row.status} />}
        {shown.flagged && (
          <span className="rounded bg-red-700 px-1.5 py-0.5 text-xs text-white" data-testid="row-suspicious">
            hidden or look-alike characters
          </span>
        )}
      </div>
      <p id={metaId} className="text-sm text-slate-700">
        <RevealedText value={shown.fields.service} /> · {row.effects}
        {shown.fields.environment && (
          <>
            {" · "}
            <RevealedText value={shown.fields.environment} />
          </>
        )}{" "}
        · requested by {shown.fields.requestedBy ? <RevealedText value={shown.fields.requestedBy} /> : "—"}
      </p>
      {shown.fields.summary && (
        // Agent-written and untrusted: revealed, quoted and clipped.
        <p
          className="line-clamp-2 break-words border-l-2 border-amber-400 pl-2 text-sm italic text-slate-600"
          title="Summary written by the agent (untrusted)"
        >
          <RevealedText value={shown.fields.summary} />
        </p>
      )}
      {pending ? (
        <p className="flex flex-wrap gap-x-3 text-sm">
          <span>
            {row.approvals} of {row.quorum} approval{row.quorum > 1 ? "s" : ""}
          </span>
          <Countdown until={row.expiresAt.toISOString()} />
        </p>
      ) : (
        <p className="text-sm">
          {row.decidedBy.length > 0
            ? `Decided by ${row.decidedBy.join(", ")}`
            : row.status === "expired"
              ? "Expired unreviewed"
              : "Withdrawn by the service"}
          {row.decidedAt && (
            <>
              {" · "}
              <Ago at={row.decidedAt.toISOString()} />
            </>
          )}
        </p>
      )}
      {kind === "waiting" && <p className="text-sm text-slate-600">{waitingReason(row)}</p>}
      {kind === "canAct" && row.whyNot && <p className="text-sm text-amber-800">{row.whyNot}</p>}
      <p className="text-xs text-slate-500">
        Requested <Ago at={row.createdAt.toISOString()} />
      </p>
    </article>
  );
}

function waitingReason(row: QueueRow): string {
  if (row.myDecision === "approve") {
    const left = Math.max(row.quorum - row.approvals, 0);
    return `You approved; waiting for ${left} more approval${left === 1 ? "" : "s"}.`;
  }
  if (row.myDecision === "deny") return "You denied this request.";
  if (!row.whyNot) return "Waiting for another reviewer.";
  return row.whyNot.charAt(0).toUpperCase() + row.whyNot.slice(1) + ".";
}
