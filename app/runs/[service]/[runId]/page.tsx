import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { AppHeader } from "@/components/app-header";
import { DisplayWarning } from "@/components/display-warning";
import { JsonTree } from "@/components/json-tree";
import { RevealedText } from "@/components/revealed-text";
import { RunBatchForm } from "@/components/run-batch-form";
import { StatusBadge } from "@/components/status-badge";
import { Ago } from "@/components/time";
import { signOutAction } from "@/app/actions/auth";
import { requireUserPage } from "@/lib/auth/guards";
import { requestDisplay, textView } from "@/lib/display/request-display";
import { findRunReview } from "@/lib/runs/run-review";
import { reviewRunAction } from "./actions";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ service: string; runId: string }> };

export const metadata: Metadata = { title: "Run" };

export default async function RunPage({ params }: Params) {
  const { service, runId } = await params;
  const user = await requireUserPage();
  const run = await findRunReview(user.id, service, runId);
  // Someone who may see none of its requests learns nothing about the run, not even that it exists.
  if (!run) notFound();
  const mine = run.requests.filter((r) => r.canDecide);
  const excluded = run.requests.filter((r) => r.status === "pending" && !r.canDecide);

  return (
    <>
      <AppHeader user={user} signOut={signOutAction} />
      <main id="main" className="mx-auto flex max-w-5xl flex-col gap-4 p-4">
        <div>
          <h1 className="break-all text-2xl font-semibold">
            Run <RevealedText value={textView(run.runId)} />
          </h1>
          <p className="text-sm text-slate-600">
            Service <RevealedText value={textView(run.service)} /> · {run.requests.length} request{run.requests.length === 1 ? "" : "s"} you may see
            {run.truncated ? " (the run has more than are shown)" : ""}
          </p>
        </div>
        {/* Rendered even when nothing is left to decide, so the result of a batch stays on screen after it. */}
        <RunBatchForm
          service={run.service}
          runId={run.runId}
          approvalIds={mine.map((r) => r.id)}
          destructive={mine.some((r) => r.effects === "destructive")}
          action={reviewRunAction}
        />
        {excluded.length > 0 && (
          <p role="note" className="rounded border border-amber-300 bg-amber-50 p-3 text-sm" data-testid="run-excluded">
            {excluded.length} pending request{excluded.length === 1 ? " is" : "s are"} left out of Approve all / Deny all: you may not decide{" "}
            {excluded.length === 1 ? "it" : "them"} (the reason is on each below).
          </p>
        )}
        <ul className="flex flex-col gap-3">
          {run.requests.map((r) => {
            const shown = requestDisplay(
              { tool: r.tool, service: run.service, environment: null, runId: run.runId, callId: r.callId, requestedBy: null, summary: null },
              r.redactedArgs,
            );
            return (
              <li key={r.id}>
                <article
                  className="flex flex-col gap-2 rounded border border-slate-200 bg-white p-4"
                  data-approval-id={r.id}
                  data-testid="run-request"
                >
                  <div className="flex flex-wrap items-center gap-2">
                    <Link href={`/approvals/${r.id}`} className="break-all font-mono font-semibold underline">
                      <RevealedText value={shown.fields.tool ?? textView(r.tool)} />
                    </Link>
                    <StatusBadge status={r.status} small />
                    {r.effects === "destructive" && <span className="rounded bg-red-700 px-2 py-0.5 text-xs text-white">destructive</span>}
                    <span className="text-xs text-slate-600">
                      call <RevealedText value={textView(r.callId)} /> · <Ago at={r.createdAt.toISOString()} /> · {r.approvals} of {r.quorum}
                    </span>
                  </div>
                  <DisplayWarning warnings={shown.warnings} />
                  <p className="break-all font-mono text-xs" data-testid="run-digest">
                    {r.argsDigest ?? "digest hidden (redacted values, unsalted)"}
                  </p>
                  <JsonTree approvalId={r.id} root={shown.args} />
                  {r.status === "pending" && !r.canDecide && (
                    <p className="text-sm text-amber-900" data-testid="run-excluded-reason">
                      Not in the batch: {r.whyNot}
                    </p>
                  )}
                </article>
              </li>
            );
          })}
        </ul>
      </main>
    </>
  );
}
