// One request in the queue: what it is (tool, effects and environment as
// badges, one or two argument values), who asked and in which run (a link to
// the run's other calls), what the agent says about it (a quote, never the
// row's description), and where it stands. Every service-written value is
// revealed and flagged like on the request's page (lib/display).
import Link from "next/link";
import { QueueExpiry } from "@/components/queue-expiry";
import { ClippedText, RevealedText } from "@/components/revealed-text";
import { StatusBadge } from "@/components/status-badge";
import { Ago } from "@/components/time";
import { rowDisplay } from "@/lib/display/request-display";
import type { QueueRow as Row } from "@/lib/queue/find-queue";

export type SectionKind = "canAct" | "waiting" | "decided";

const EFFECT_STYLE: Record<string, string> = {
  read: "bg-slate-100 text-slate-800",
  write: "bg-blue-100 text-blue-900",
  destructive: "bg-red-700 text-white",
};
const badge = "inline-flex items-center rounded px-1.5 py-0.5 text-xs font-medium";

/** The queue filtered to one run of one service (run ids are the service's own). */
export const runHref = (service: string, runId: string) => `/approvals?${new URLSearchParams({ service, run: runId })}`;

/** `carried`: the queue's filters and order ("?effects=write", or ""), so the request's page walks the same list (lib/queue/query-params). */
export function QueueRow({ kind, row, carried = "" }: { kind: SectionKind; row: Row; carried?: string }) {
  const metaId = `row-${kind}-${row.id}`;
  const pending = row.status === "pending";
  const shown = rowDisplay(row);
  return (
    <article
      className="flex flex-col gap-1.5 border-l-4 border-transparent p-3 has-[[data-urgency=soon]]:border-amber-400 has-[[data-urgency=very-soon]]:border-red-600"
      data-approval-id={row.id}
    >
      <div className="flex flex-wrap items-center gap-2">
        <Link
          href={`/approvals/${row.id}${carried}`}
          aria-describedby={metaId}
          data-testid="row-tool"
          className="break-all font-mono font-semibold text-blue-800 underline-offset-2 hover:underline"
        >
          <ClippedText value={shown.fields.tool} />
        </Link>
        <span className={`${badge} ${EFFECT_STYLE[row.effects] ?? EFFECT_STYLE.read}`} data-testid="row-effects">
          <span className="sr-only">Effects: </span>
          {row.effects}
        </span>
        {shown.fields.environment && (
          <span className={`${badge} border border-slate-300 bg-white text-slate-800`} data-testid="row-environment">
            <span className="sr-only">Environment: </span>
            <ClippedText value={shown.fields.environment} />
          </span>
        )}
        {!pending && <StatusBadge status={row.status} />}
        {pending && row.quorumUnreachable && (
          <span className={`${badge} bg-amber-100 text-amber-900`} data-testid="row-quorum-unreachable">
            Quorum unreachable when filed
          </span>
        )}
        {pending && row.escalatedAt && (
          <span className={`${badge} bg-orange-100 text-orange-900`} data-testid="row-escalated">
            Escalated
          </span>
        )}
        {shown.flagged && (
          <span className={`${badge} bg-red-700 text-white`} data-testid="row-suspicious">
            Hidden or look-alike characters
          </span>
        )}
      </div>
      <p id={metaId} className="text-sm text-slate-700">
        <RevealedText value={shown.fields.service} /> · requested by{" "}
        {shown.fields.requestedBy ? <ClippedText value={shown.fields.requestedBy} /> : "—"}
      </p>
      {shown.keyArgs.length > 0 && (
        <dl className="flex min-w-0 flex-wrap gap-x-4 gap-y-0.5 text-sm" aria-label="Key arguments" data-testid="row-args">
          {shown.keyArgs.map((a, i) => (
            <div key={i} className="flex min-w-0 max-w-full gap-1">
              <dt className="shrink-0 font-mono text-slate-600">
                <ClippedText value={a.key} />:
              </dt>
              <dd className="truncate font-mono text-slate-900">
                <ClippedText value={a.value} />
              </dd>
            </div>
          ))}
        </dl>
      )}
      {shown.fields.summary && (
        // Agent-written and untrusted: labelled, quoted, revealed and clipped.
        <figure className="text-sm" data-testid="row-agent-says">
          <figcaption className="text-xs font-medium text-slate-600">Agent says</figcaption>
          <blockquote className="line-clamp-2 break-words border-l-2 border-amber-400 pl-2 italic text-slate-700">
            <ClippedText value={shown.fields.summary} />
          </blockquote>
        </figure>
      )}
      {pending ? (
        <p className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
          <span>
            {row.approvals} of {row.quorum} approval{row.quorum > 1 ? "s" : ""}
          </span>
          <QueueExpiry createdAt={row.createdAt.toISOString()} expiresAt={row.expiresAt.toISOString()} />
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
      {kind === "canAct" && row.whyNot && <p className="text-sm text-amber-800">{sentence(row.whyNot)}</p>}
      <p className="flex flex-wrap gap-x-3 text-xs text-slate-600">
        <span>
          Requested <Ago at={row.createdAt.toISOString()} />
        </span>
        <span className="min-w-0 break-all">
          Run{" "}
          <Link
            href={runHref(row.service, row.runId)}
            className="font-mono text-blue-800 underline underline-offset-2"
            title="This run's other calls"
            data-testid="row-run"
          >
            <ClippedText value={shown.fields.runId} />
          </Link>
        </span>
      </p>
    </article>
  );
}

const sentence = (s: string) => s.charAt(0).toUpperCase() + s.slice(1) + (/[.!?]$/.test(s) ? "" : ".");

function waitingReason(row: Row): string {
  if (row.myDecision === "approve") {
    const left = Math.max(row.quorum - row.approvals, 0);
    return `You approved; waiting for ${left} more approval${left === 1 ? "" : "s"}.`;
  }
  if (row.myDecision === "deny") return "You denied this request.";
  if (!row.whyNot) return "Waiting for another reviewer.";
  return sentence(row.whyNot);
}
