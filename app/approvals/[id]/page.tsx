import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { AppHeader } from "@/components/app-header";
import { CopyButton } from "@/components/copy-button";
import { DisplayWarning } from "@/components/display-warning";
import { JsonTree } from "@/components/json-tree";
import { RevealedText } from "@/components/revealed-text";
import { DecisionPanel } from "@/components/decision-panel";
import { ExecutionReport } from "@/components/execution-report";
import { KeyboardShortcuts } from "@/components/keyboard-shortcuts";
import { QueueLiveRefresh } from "@/components/queue-live-refresh";
import { RequestStatus } from "@/components/request-status";
import { Ago, Countdown, LocalTime } from "@/components/time";
import { requireUserPage } from "@/lib/auth/guards";
import { signOutAction } from "@/app/actions/auth";
import { proposeChanges, proposeStandingAction, submitReview } from "./actions";
import { ProposeStanding } from "@/components/propose-standing";
import { ProposeChanges } from "@/components/propose-changes";
import { RevisionChanges } from "@/components/revision-changes";
import { runReviewHref } from "@/components/queue-section";
import { humanSeconds } from "@/lib/format/time";
import { getQueueVersion } from "@/lib/queue/live-feed";
import { getReviewView } from "@/lib/reviews/get-review-view";
import { findNeighbours } from "@/lib/reviews/neighbours";
import { requestDisplay, type TextView } from "@/lib/display/request-display";
import { isTruncated } from "@/lib/display/bounded-tree";
import { paceNote, recordPageServed } from "@/lib/reviews/review-views";
import { standingOutline } from "@/lib/standing/shape";
import { argumentGlance } from "@/lib/display/argument-glance";
import type { Json } from "@/lib/display/bounded-tree";
import { approvalProgress } from "@/lib/reviews/progress";
import { parseCarried } from "@/lib/queue/query-params";
import { RequestGlance } from "@/components/request-glance";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ id: string }> };
type SearchParams = Record<string, string | string[] | undefined>;

/** The queue's filters and order the page was opened with (lib/queue/query-params), as query and as link text. */
async function carriedFrom(searchParams: Promise<SearchParams>) {
  const given = new URLSearchParams();
  for (const [k, v] of Object.entries(await searchParams)) if (typeof v === "string") given.set(k, v);
  return parseCarried(given.toString());
}

/** The signed-in viewer and the request as they may see it (null: 404), read once per render. */
const load = cache(async (id: string) => {
  const user = await requireUserPage();
  return { user, v: await getReviewView(id, user.id) };
});

// Agent-written text in the tab title: no control or invisible formatting characters.
const plain = (s: string) => s.replace(/[\p{Cc}\p{Cf}]/gu, "");

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { v } = await load((await params).id);
  return { title: v ? `${plain(v.tool)} · ${plain(v.service)}` : "Request" };
}

const approvalHref = (id: string | null, carried = "") => (id ? `/approvals/${id}${carried}` : null);

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="flex flex-col sm:flex-row sm:gap-2">
      <dt className="w-32 shrink-0 text-sm text-slate-500">{label}</dt>
      <dd className="break-all">{children}</dd>
    </div>
  );
}

/** A field a service wrote: revealed, isolated, flagged (lib/display). */
const Shown = ({ value }: { value: TextView | null }) => (value ? <RevealedText value={value} /> : <>—</>);

export default async function ApprovalPage({ params, searchParams }: Params & { searchParams: Promise<SearchParams> }) {
  const { id } = await params;
  const carried = await carriedFrom(searchParams);
  // Version first: a change landing while the page renders is then reported by the live stream.
  const version = await getQueueVersion();
  const { user, v } = await load(id);
  if (!v) notFound();
  const near = await findNeighbours(user.id, v.id, carried.query);
  const [prevHref, nextHref] = [approvalHref(near.prev, carried.search), approvalHref(near.next, carried.search)];
  const queueHref = `/approvals${carried.search}`;
  // Bounded (docs/security.md): the first render holds a fixed number of nodes; the warning covers everything.
  const shown = requestDisplay(v, v.redactedArgs);
  // When this page was first served to this reviewer, and whether it left arguments out (docs/insights.md):
  // a policy's min_review_seconds and require_full_view count from here.
  const truncated = isTruncated(shown.args);
  const view = v.status === "pending" ? await recordPageServed({ approvalId: v.id, userId: user.id, truncated }) : null;
  const pace = v.canReview ? paceNote(v, view) : null;
  // The top of the page (a phone's first screen): the arguments' first lines and the four-eyes progress.
  const glance = argumentGlance(v.redactedArgs as Json);
  const progress = approvalProgress({ status: v.status, approvals: v.approvals, quorum: v.policy.quorum, canReview: v.canReview && !v.outcome });

  return (
    <>
      <AppHeader user={user} signOut={signOutAction} />
      {/* Below lg the form is a bar fixed to the bottom: the page leaves room for it. */}
      <main
        id="main"
        className={`mx-auto grid max-w-6xl grid-cols-1 gap-5 p-4 lg:grid-cols-[minmax(0,1fr)_22rem] lg:items-start ${v.canReview ? "max-lg:pb-[calc(var(--decision-bar-h,20rem)+1rem)]" : ""}`}
      >
        <div className="flex flex-col gap-3 lg:col-start-1">
          <DisplayWarning warnings={shown.warnings} />
          {v.status === "pending" && v.quorumUnreachable && (
            // A standing fact about the request, not news: a note, so it is not announced as an alert.
            <p role="note" className="rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950" data-testid="quorum-unreachable">
              Quorum unreachable: this request needs {v.policy.quorum} approval{v.policy.quorum === 1 ? "" : "s"}, but when it arrived fewer people
              could approve it (the requester never can). It can only be denied or expire unless an admin grants the role {v.policy.roles.join(", ")}{" "}
              to more people.
            </p>
          )}
          {v.status === "pending" && v.escalation && (
            <p role="note" className="rounded border border-orange-300 bg-orange-50 p-3 text-sm text-orange-950" data-testid="escalated">
              Escalated <Ago at={v.escalation.at.toISOString()} />: nobody decided it in time, so its policy let people with the role{" "}
              {v.escalation.roles.join(", ")} decide it too.
            </p>
          )}
          {v.revises && !v.revises.match && (
            <p role="note" className="rounded border border-red-300 bg-red-50 p-3 text-sm text-red-950" data-testid="revision-differs">
              This revision differs from the changes {v.revises.by} proposed on{" "}
              <Link href={`/approvals/${v.revises.id}`} className="underline">
                the original request
              </Link>
              {v.revises.differs?.tool ? ": it is for another tool" : ""}
              {v.revises.differs?.call.length
                ? `${v.revises.differs.tool ? "; " : ": "}its ${v.revises.differs.call.join(", ")} ${v.revises.differs.call.length === 1 ? "is" : "are"} not the original's`
                : ""}
              {v.revises.differs?.paths.length ? (
                <>
                  {v.revises.differs.tool || v.revises.differs.call.length ? ", and it differs at " : ": it differs at "}
                  {v.revises.differs.paths.map((p, i) => (
                    <span key={i}>
                      {i > 0 && ", "}
                      <code>
                        <RevealedText value={p} />
                      </code>
                    </span>
                  ))}
                </>
              ) : null}
              . Nothing was carried over from the proposal: review it as a new request.
            </p>
          )}
          {v.revises?.match && (
            <p role="note" className="rounded border border-green-300 bg-green-50 p-3 text-sm text-green-950" data-testid="revision-matches">
              Revision of{" "}
              <Link href={`/approvals/${v.revises.id}`} className="underline">
                the original request
              </Link>
              : its arguments are the original&apos;s with the changes {v.revises.by} proposed, and nothing else (redacted values compared by keyed
              digest).{" "}
              {v.revises.carried
                ? `${v.revises.by}'s approval counts toward it.`
                : `${v.revises.by}'s approval was not carried over: the original request had expired, or ${v.revises.by} may no longer decide it.`}
            </p>
          )}
          <div className="flex flex-wrap items-center gap-3">
            <h1 className="break-all font-mono text-2xl font-semibold">
              <Shown value={shown.fields.tool} />
            </h1>
            <RequestStatus status={v.status} expiresAt={v.expiresAt.toISOString()} />
            {v.effects === "destructive" && <span className="rounded bg-red-700 px-2 py-0.5 text-sm text-white">destructive</span>}
          </div>
          <RequestGlance summary={shown.fields.summary} glance={glance} progress={progress} expiresAt={v.expiresAt.toISOString()} />
        </div>

        {/* Early in the page (and in the Tab order), beside the details on wide screens. */}
        <aside
          id="decision"
          aria-label="Your decision"
          className="flex flex-col gap-3 lg:sticky lg:top-4 lg:col-start-2 lg:row-span-2 lg:row-start-1"
        >
          <div
            className={
              v.canReview
                ? "max-lg:contents lg:rounded lg:border lg:border-slate-200 lg:bg-white lg:p-4"
                : "rounded border border-slate-200 bg-white p-4"
            }
          >
            <DecisionPanel
              key={v.id}
              approvalId={v.id}
              destructive={v.effects === "destructive"}
              requirePasskey={v.requirePasskey}
              canReview={v.canReview}
              whyNot={v.whyNot}
              outcome={v.outcome}
              expiresAt={v.expiresAt.toISOString()}
              nextHref={approvalHref(near.following, carried.search)}
              queueHref={queueHref}
              carried={carried.search}
              progress={progress}
              submitReview={submitReview}
            />
            {pace && (
              <p role="note" className="mt-2 text-sm text-slate-700" data-testid="review-pace">
                {v.minReviewSeconds > 0 && (
                  <>
                    This request&apos;s policy asks for at least {humanSeconds(v.minReviewSeconds)} on this page before a vote: you can vote from{" "}
                    <LocalTime at={pace.voteFrom.toISOString()} />.{" "}
                  </>
                )}
                {pace.needsFullView && <>Its arguments are not all shown: open Raw JSON under them to see them in full before you vote.</>}
              </p>
            )}
          </div>
          <nav aria-label="Requests needing your review" className="flex flex-wrap items-center gap-2 text-sm">
            {prevHref ? (
              <Link href={prevHref} rel="prev" className="rounded border border-slate-300 bg-white px-3 py-1 hover:bg-slate-100">
                ← Previous
              </Link>
            ) : (
              <span className="rounded border border-slate-200 px-3 py-1 text-slate-500">No previous</span>
            )}
            {nextHref ? (
              <Link href={nextHref} rel="next" className="rounded border border-slate-300 bg-white px-3 py-1 hover:bg-slate-100">
                Next →
              </Link>
            ) : (
              <span className="rounded border border-slate-200 px-3 py-1 text-slate-500">No next</span>
            )}
            <Link href={queueHref} className="rounded border border-slate-300 bg-white px-3 py-1 hover:bg-slate-100">
              Queue
            </Link>
            <KeyboardShortcuts mode="decision" prevHref={prevHref} nextHref={nextHref} />
            <QueueLiveRefresh version={version} watch={v.id} />
          </nav>
        </aside>

        <div className="flex min-w-0 flex-col gap-5 lg:col-start-1">
          <dl className="flex flex-col gap-1 rounded border border-slate-200 bg-white p-4">
            <Field label="Service">
              <Shown value={shown.fields.service} />
            </Field>
            <Field label="Environment">
              <Shown value={shown.fields.environment} />
            </Field>
            <Field label="Effects">{v.effects}</Field>
            <Field label="Run">
              <Shown value={shown.fields.runId} />{" "}
              <Link href={runReviewHref(v.service, v.runId)} className="text-sm underline" data-testid="run-review-link">
                review the run
              </Link>
            </Field>
            <Field label="Call">
              <Shown value={shown.fields.callId} />
            </Field>
            <Field label="Requested by">
              <Shown value={shown.fields.requestedBy} />
            </Field>
            <Field label="Requested">
              <Ago at={v.createdAt.toISOString()} />
            </Field>
            <Field label={v.status === "pending" ? "Expires" : "Expiry"}>
              {v.status === "pending" ? <Countdown until={v.expiresAt.toISOString()} /> : <LocalTime at={v.expiresAt.toISOString()} />}
            </Field>
            {v.decidedAt && (
              <Field label="Decided">
                <Ago at={v.decidedAt.toISOString()} />
                {v.standingApprovalId && (
                  <>
                    {" "}
                    by{" "}
                    <Link href="/standing" className="underline" data-testid="decided-by-standing">
                      standing approval {v.standingApprovalId}
                    </Link>
                  </>
                )}
              </Field>
            )}
          </dl>

          {v.execution && <ExecutionReport execution={v.execution} />}

          {shown.fields.summary && (
            // Agent-written: boxed, labelled and scrolled inside its own box, so
            // no line of it can pass for the page's own text.
            <section aria-labelledby="summary-h" className="rounded border-2 border-dashed border-amber-500 bg-amber-50 p-4" data-testid="summary">
              <h2 id="summary-h" className="mb-1 text-sm font-semibold">
                Summary written by the agent (untrusted: not checked by Countersign)
              </h2>
              <div className="max-h-60 overflow-auto whitespace-pre-wrap break-words border-l-4 border-amber-400 bg-white/60 pl-3 font-serif italic">
                <RevealedText value={shown.fields.summary} />
              </div>
            </section>
          )}

          <section aria-labelledby="digest-h" className="rounded border border-slate-200 bg-white p-4">
            <div className="mb-1 flex items-center justify-between">
              <h2 id="digest-h" className="text-sm font-semibold">
                Argument digest
              </h2>
              {v.argsDigest && <CopyButton text={v.argsDigest} label="Copy digest" />}
            </div>
            {v.argsDigest ? (
              <p className="break-all font-mono text-sm" data-testid="args-digest">
                {v.argsDigest}
              </p>
            ) : (
              <p className="text-sm text-slate-600" data-testid="args-digest-hidden">
                Hidden: these arguments hold redacted values and were not salted, so their digest could reveal them. Only reviewers who may decide
                this request, and admins, see it.
              </p>
            )}
          </section>

          <section id="arguments" aria-labelledby="args-h" className="rounded border border-slate-200 bg-white p-4" data-arguments-view="">
            <h2 id="args-h" className="mb-2 text-sm font-semibold">
              Arguments (secrets and personal data redacted)
            </h2>
            {v.argsPurgedAt ? (
              <p className="text-sm text-slate-700" data-testid="args-purged">
                Purged <LocalTime at={v.argsPurgedAt.toISOString()} />: this request was decided longer ago than the retention period
                (RETENTION_DAYS), so its arguments are no longer kept. Its digest, decision and reviews remain.
              </p>
            ) : (
              <JsonTree approvalId={v.id} root={shown.args} />
            )}
          </section>

          {v.revises && (
            <section aria-labelledby="changes-h" className="rounded border border-slate-200 bg-white p-4">
              <h2 id="changes-h" className="mb-1 text-sm font-semibold">
                Changes from the original
              </h2>
              <p className="mb-2 text-sm text-slate-700">
                Proposed by {v.revises.by}: “{v.revises.reason}”
              </p>
              <RevisionChanges changes={v.revises.changes} testId="revision-diff" />
            </section>
          )}

          {v.proposal && (
            <section aria-labelledby="proposal-h" className="rounded border border-amber-300 bg-amber-50 p-4" data-testid="proposal">
              <h2 id="proposal-h" className="mb-1 text-sm font-semibold">
                Changes proposed by {v.proposal.by}
              </h2>
              <p className="mb-2 whitespace-pre-wrap break-words text-sm">“{v.proposal.reason}”</p>
              <RevisionChanges changes={v.proposal.changes} testId="proposal-changes" />
              <p className="mt-2 text-sm" data-testid="revised-as">
                {v.revisedAs ? (
                  <>
                    The agent sent the changed call:{" "}
                    <Link href={`/approvals/${v.revisedAs.id}`} className="underline">
                      open the revision
                    </Link>{" "}
                    ({v.revisedAs.status}).
                  </>
                ) : (
                  "Waiting for the agent to send the changed call."
                )}
              </p>
            </section>
          )}

          {v.editablePaths && v.canReview && <ProposeChanges approvalId={v.id} paths={v.editablePaths} action={proposeChanges} />}

          {v.standing && (
            <ProposeStanding
              approvalId={v.id}
              paths={v.standing.paths}
              outline={standingOutline(v.redactedArgs)}
              maxTtlSeconds={v.standing.maxTtlSeconds}
              action={proposeStandingAction}
            />
          )}

          <section aria-labelledby="policy-h" className="rounded border border-slate-200 bg-white p-4">
            <h2 id="policy-h" className="mb-1 text-sm font-semibold">
              Policy: {v.policy.name}
            </h2>
            <p className="text-sm">
              Needs {v.policy.quorum} approval{v.policy.quorum > 1 ? "s" : ""} from: {v.policy.roles.join(", ")} · lives{" "}
              {humanSeconds(v.policy.ttlSeconds)} · {v.approvals} of {v.policy.quorum} so far
            </p>
            {v.waitingOn.length > 0 && <WaitingOnList waitingOn={v.waitingOn} />}
          </section>

          <section aria-labelledby="reviews-h" className="rounded border border-slate-200 bg-white p-4">
            <h2 id="reviews-h" className="mb-2 text-sm font-semibold">
              Reviews
            </h2>
            {v.reviews.length === 0 ? (
              <p className="text-sm text-slate-600">No reviews yet.</p>
            ) : (
              <ul className="flex flex-col gap-2 text-sm">
                {v.reviews.map((r) => (
                  <li key={r.email}>
                    <span className="font-medium">{r.email}</span>
                    {r.mine && " (you)"} {r.decision === "approve" ? "approved" : "denied"} <Ago at={r.at.toISOString()} />
                    {r.reason && <p className="whitespace-pre-wrap break-words text-slate-700">“{r.reason}”</p>}
                  </li>
                ))}
              </ul>
            )}
            {v.decidedBy.length > 0 && (
              <p className="mt-2 text-sm" data-testid="decided-by">
                Decided by: {v.decidedBy.join(", ")}
              </p>
            )}
          </section>
        </div>
      </main>
    </>
  );
}

/** How many names a role shows before "and N more". */
const NAMES_SHOWN = 8;

/** Who may still decide it now, per role: a requester knows whom to ask. */
function WaitingOnList({
  waitingOn,
}: {
  waitingOn: Array<{ role: string; needed: number; eligible: number; people: Array<{ email: string; name: string | null }> }>;
}) {
  const needed = waitingOn[0]!.needed;
  return (
    <div className="mt-3 text-sm" data-testid="waiting-on">
      <h3 className="font-medium">{needed > 0 ? `Waiting on ${needed} more approval${needed > 1 ? "s" : ""}, from:` : "Who can still decide it:"}</h3>
      <ul className="mt-1 flex flex-col gap-1">
        {waitingOn.map((w) => (
          <li key={w.role} data-testid="waiting-on-role">
            <span className="rounded bg-slate-100 px-1.5 py-0.5 font-mono">{w.role}</span>{" "}
            {w.eligible === 0 ? (
              <span className="text-amber-900">nobody can decide it now</span>
            ) : (
              <span>
                {w.eligible} can decide it now:{" "}
                {w.people
                  .slice(0, NAMES_SHOWN)
                  .map((p) => (p.name ? `${p.name} (${p.email})` : p.email))
                  .join(", ")}
                {w.people.length > NAMES_SHOWN && ` and ${w.people.length - NAMES_SHOWN} more`}
              </span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
