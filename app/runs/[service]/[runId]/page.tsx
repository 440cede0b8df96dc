import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { z } from "zod";
import { AppHeader } from "@/components/app-header";
import { RevealedText } from "@/components/revealed-text";
import { RunRequest } from "@/components/run-request";
import { RunBatchForm } from "@/components/run-batch-form";
import { signOutAction } from "@/app/actions/auth";
import { requireUserPage } from "@/lib/auth/guards";
import { listedRequestDisplays } from "@/lib/display/listed-request";
import { textView } from "@/lib/display/request-display";
import { findRunReview, RUN_PAGE_SIZE } from "@/lib/runs/run-review";
import { reviewRunAction } from "./actions";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ service: string; runId: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/** `?page=`: a page number; anything else is the first page. */
const pageParam = z.coerce.number().int().min(1).max(1000).catch(1);

export const metadata: Metadata = { title: "Run" };

/** The requests in slices of ten, each rendered on its own turn of the event loop (RunRequestSlice). */
const slices = <T,>(xs: readonly T[]): T[][] => Array.from({ length: Math.ceil(xs.length / 10) }, (_, i) => xs.slice(i * 10, i * 10 + 10));

/**
 * Ten requests of the page. Async, and waiting one turn of the event loop
 * first: a page of a hundred is rendered in ten short stretches, and other
 * requests (another page, the health check) are answered in between.
 */
async function RunRequestSlice({ requests }: { requests: Array<React.ComponentProps<typeof RunRequest>> }) {
  await new Promise((resolve) => setImmediate(resolve));
  return requests.map((p) => (
    <li key={p.request.id}>
      <RunRequest {...p} />
    </li>
  ));
}

export default async function RunPage({ params, searchParams }: Params) {
  const { service, runId } = await params;
  const page = pageParam.parse((await searchParams).page);
  const user = await requireUserPage();
  const run = await findRunReview(user.id, service, runId, page);
  // Someone who may see none of its requests learns nothing about the run, not even that it exists.
  if (!run) notFound();
  const mine = run.requests.filter((r) => r.canDecide);
  const excluded = run.requests.filter((r) => r.status === "pending" && !r.canDecide);
  // Bounded (docs/security.md): each request's fields and arguments are shown in part, within a fixed budget.
  const displays = await listedRequestDisplays(
    run.requests.map((r) => ({
      text: { tool: r.tool, environment: r.environment, runId: run.runId, callId: r.callId, requestedBy: r.requestedBy, summary: r.summary },
      args: { head: r.argsHead, complete: r.argsComplete },
    })),
  );
  const shown = new Map(run.requests.map((r, i) => [r.id, displays[i]!]));
  const flagged = run.requests.filter((r) => shown.get(r.id)!.flagged.length > 0).length;

  return (
    <>
      <AppHeader user={user} signOut={signOutAction} />
      <main id="main" className="mx-auto flex max-w-5xl flex-col gap-4 p-4">
        <div>
          <h1 className="break-all text-2xl font-semibold">
            Run <RevealedText value={textView(run.runId)} />
          </h1>
          <p className="text-sm text-slate-600">
            Service <RevealedText value={textView(run.service)} /> · {run.total} request{run.total === 1 ? "" : "s"} you may see
            {run.truncated ? " (the run has more than are shown)" : ""}
            {run.pages > 1 ? ` · this page: ${run.first}–${run.first + run.requests.length - 1}, pending first` : ""}
          </p>
        </div>
        {flagged > 0 && (
          <section role="alert" className="rounded border-2 border-red-700 bg-red-50 p-4 text-red-950" data-testid="run-display-warning">
            <h2 className="font-semibold">
              Check carefully: {flagged === 1 ? "1 request" : `${flagged} requests`} {run.pages > 1 ? "on this page" : "of this run"}{" "}
              {flagged === 1 ? "contains" : "contain"} hidden, direction-changing or look-alike characters
            </h2>
            <p className="mt-1 text-sm">
              Each is marked below. They are shown as escapes such as <span className="font-mono">⟨U+202E⟩</span> and marked with ⚠. What runs is the
              text with these characters, not what it seems to say. Only the start of each request is shown here: open a request to see all of it,
              with every finding listed.
            </p>
          </section>
        )}
        {mine.length > 0 && (
          <p className="text-sm text-slate-700" data-testid="run-batch-hint">
            {mine.length === 1 ? "The call you may decide is" : `The ${mine.length} calls you may decide are`} listed below;{" "}
            <a href="#run-batch" className="underline">
              Approve all / Deny all
            </a>{" "}
            come after them.
          </p>
        )}
        {excluded.length > 0 && (
          <p role="note" className="rounded border border-amber-300 bg-amber-50 p-3 text-sm" data-testid="run-excluded">
            {excluded.length} pending request{excluded.length === 1 ? " is" : "s are"} left out of Approve all / Deny all: you may not decide{" "}
            {excluded.length === 1 ? "it" : "them"} (the reason is on each below).
          </p>
        )}
        <ul className="flex flex-col gap-3">
          {slices(run.requests).map((slice, i) => (
            <RunRequestSlice key={i} requests={slice.map((r) => ({ request: r, shown: shown.get(r.id)! }))} />
          ))}
        </ul>
        {/* After the calls, so they are read before they are decided together (issue 36). Rendered even when
            nothing is left to decide, so the result of a batch stays on screen after it. */}
        <RunBatchForm
          service={run.service}
          runId={run.runId}
          approvalIds={mine.map((r) => r.id)}
          onePageOf={run.pages > 1 ? run.pages : undefined}
          destructive={mine.some((r) => r.effects === "destructive")}
          action={reviewRunAction}
        />
        {run.pages > 1 && <RunPages service={run.service} runId={run.runId} page={run.page} pages={run.pages} total={run.total} />}
      </main>
    </>
  );
}

/** Previous and next page of the run, with how many requests each holds. */
function RunPages({ service, runId, page, pages, total }: { service: string; runId: string; page: number; pages: number; total: number }) {
  const href = (n: number) => `/runs/${encodeURIComponent(service)}/${encodeURIComponent(runId)}?page=${n}`;
  const onPage = (n: number) => Math.min(RUN_PAGE_SIZE, total - (n - 1) * RUN_PAGE_SIZE);
  const link = "inline-flex h-11 items-center rounded border border-slate-400 px-3 text-sm font-medium hover:bg-slate-100";
  return (
    <nav aria-label="Pages of the run" className="flex flex-wrap items-center gap-3" data-testid="run-pages">
      {page > 1 && (
        <Link href={href(page - 1)} className={link} data-testid="run-page-previous">
          ← Previous {RUN_PAGE_SIZE}
        </Link>
      )}
      <span className="text-sm text-slate-700">
        Page {page} of {pages}
      </span>
      {page < pages && (
        <Link href={href(page + 1)} className={link} data-testid="run-page-next">
          Next {onPage(page + 1)} →
        </Link>
      )}
    </nav>
  );
}
