// One request on its run's page (docs/revisions.md): what it is, who asked
// for it, where it runs, what the agent says, its digest and the start of
// its arguments, each within the budget of a listed request
// (lib/display/listed-request), with links to the request's page for all of
// it; and, when it is pending but not in the batch, why.
import type { ClippedView, ListedRequestDisplay } from "@/lib/display/listed-request";
import type { RunReview } from "@/lib/runs/run-review";
import { ArgumentPreview } from "./argument-preview";
import { ClippedText } from "./revealed-text";
import { StatusBadge } from "./status-badge";
// The time as it is, not "5 min ago": a hundred clocks ticking every second on one page is too many.
import { LocalTime } from "./time";

/** A listed field, or a dash when the service gave none. */
const Shown = ({ value }: { value: ClippedView | null }) => (value ? <ClippedText value={value} /> : <>—</>);

export function RunRequest({ request: r, shown: d }: { request: RunReview["requests"][number]; shown: ListedRequestDisplay }) {
  return (
    <article className="cs-run-request" data-approval-id={r.id} data-testid="run-request">
      <div className="flex flex-wrap items-center gap-2">
        {/* Plain links (a hundred on one page): no client-side router per link. */}
        <a href={`/approvals/${r.id}`} className="break-all font-mono font-semibold underline">
          <Shown value={d.fields.tool} />
        </a>
        <StatusBadge status={r.status} small />
        {r.effects === "destructive" && <span className="rounded bg-red-700 px-2 py-0.5 text-xs text-white">destructive</span>}
        <span className="text-xs text-slate-600">
          call <Shown value={d.fields.callId} /> · <LocalTime at={r.createdAt.toISOString()} /> · {r.approvals} of {r.quorum}
        </span>
      </div>
      {d.flagged.length > 0 && (
        <p className="text-sm font-medium text-red-800" data-testid="run-flagged">
          ⚠ Hidden, direction-changing or look-alike characters in: {d.flagged.join(", ")}
        </p>
      )}
      <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 text-sm">
        <dt className="text-slate-500">Requested by</dt>
        <dd className="break-all" data-testid="run-requested-by">
          <Shown value={d.fields.requestedBy} />
        </dd>
        <dt className="text-slate-500">Environment</dt>
        <dd className="break-all" data-testid="run-environment">
          <Shown value={d.fields.environment} />
        </dd>
      </dl>
      {d.fields.summary && (
        // Agent-written and untrusted: labelled and boxed, as on the request's page.
        <figure className="cs-run-summary" data-testid="run-summary">
          <figcaption className="text-xs font-medium text-slate-700">Summary written by the agent (untrusted)</figcaption>
          <blockquote className="whitespace-pre-wrap break-words font-serif italic">
            <Shown value={d.fields.summary} />
          </blockquote>
        </figure>
      )}
      <p className="break-all font-mono text-xs" data-testid="run-digest">
        {r.argsDigest ?? "digest hidden (redacted values, unsalted)"}
      </p>
      <ArgumentPreview approvalId={r.id} root={d.args.root} cut={d.args.cut} bytes={r.argsBytes} />
      {r.status === "pending" && !r.canDecide && (
        <p className="text-sm text-amber-900" data-testid="run-excluded-reason">
          Not in the batch: {r.whyNot}
        </p>
      )}
    </article>
  );
}
