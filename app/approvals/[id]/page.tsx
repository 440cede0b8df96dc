import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { AppHeader } from "@/components/app-header";
import { CopyButton } from "@/components/copy-button";
import { JsonTree } from "@/components/json-tree";
import { ReviewForm } from "@/components/review-form";
import { StatusBadge } from "@/components/status-badge";
import { Ago, Countdown } from "@/components/time";
import { requireUserPage } from "@/lib/auth/guards";
import { getReviewView } from "@/lib/reviews/get-review-view";

export const metadata: Metadata = { title: "Request" };
export const dynamic = "force-dynamic";

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="flex flex-col sm:flex-row sm:gap-2">
      <dt className="w-32 shrink-0 text-sm text-slate-500">{label}</dt>
      <dd className="break-all">{children}</dd>
    </div>
  );
}

export default async function ApprovalPage({ params }: { params: Promise<{ id: string }> }) {
  const user = await requireUserPage();
  const { id } = await params;
  const v = await getReviewView(id, user.id);
  if (!v) notFound();

  return (
    <>
      <AppHeader user={user} />
      <main className="mx-auto flex max-w-3xl flex-col gap-5 p-4">
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="break-all font-mono text-2xl font-semibold">{v.tool}</h1>
          <StatusBadge status={v.status} />
          {v.effects === "destructive" && <span className="rounded bg-red-700 px-2 py-0.5 text-sm text-white">destructive</span>}
        </div>

        <dl className="flex flex-col gap-1 rounded border border-slate-200 bg-white p-4">
          <Field label="Service">{v.service}</Field>
          <Field label="Environment">{v.environment ?? "—"}</Field>
          <Field label="Effects">{v.effects}</Field>
          <Field label="Run">{v.runId}</Field>
          <Field label="Call">{v.callId}</Field>
          <Field label="Requested by">{v.requestedBy ?? "—"}</Field>
          <Field label="Requested"><Ago at={v.createdAt.toISOString()} /></Field>
          <Field label="Expires">{v.status === "pending" ? <Countdown until={v.expiresAt.toISOString()} /> : v.expiresAt.toISOString()}</Field>
        </dl>

        {v.summary && (
          <section aria-labelledby="summary-h" className="rounded border border-amber-300 bg-amber-50 p-4">
            <h2 id="summary-h" className="mb-1 text-sm font-semibold">Summary written by the agent (untrusted)</h2>
            <p className="whitespace-pre-wrap break-words">{v.summary}</p>
          </section>
        )}

        <section aria-labelledby="digest-h" className="rounded border border-slate-200 bg-white p-4">
          <div className="mb-1 flex items-center justify-between">
            <h2 id="digest-h" className="text-sm font-semibold">Argument digest</h2>
            <CopyButton text={v.argsDigest} label="Copy digest" />
          </div>
          <p className="break-all font-mono text-sm" data-testid="args-digest">{v.argsDigest}</p>
        </section>

        <section aria-labelledby="args-h" className="rounded border border-slate-200 bg-white p-4">
          <h2 id="args-h" className="mb-2 text-sm font-semibold">Arguments (secrets and personal data redacted)</h2>
          <JsonTree value={v.redactedArgs} />
        </section>

        <section aria-labelledby="policy-h" className="rounded border border-slate-200 bg-white p-4">
          <h2 id="policy-h" className="mb-1 text-sm font-semibold">Policy: {v.policy.name}</h2>
          <p className="text-sm">
            Needs {v.policy.quorum} approval{v.policy.quorum > 1 ? "s" : ""} from: {v.policy.roles.join(", ")} · lives {Math.round(v.policy.ttlSeconds / 60)} min ·{" "}
            {v.approvals} of {v.policy.quorum} so far
          </p>
        </section>

        <section aria-labelledby="reviews-h" className="rounded border border-slate-200 bg-white p-4">
          <h2 id="reviews-h" className="mb-2 text-sm font-semibold">Reviews</h2>
          {v.reviews.length === 0 ? (
            <p className="text-sm text-slate-600">No reviews yet.</p>
          ) : (
            <ul className="flex flex-col gap-2 text-sm">
              {v.reviews.map((r) => (
                <li key={r.email}>
                  <span className="font-medium">{r.email}</span> {r.decision === "approve" ? "approved" : "denied"} <Ago at={r.at.toISOString()} />
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

        <section aria-label="Your decision" className="rounded border border-slate-200 bg-white p-4">
          {v.canReview ? (
            <ReviewForm approvalId={v.id} destructive={v.effects === "destructive"} />
          ) : (
            <p className="text-sm text-slate-700" data-testid="why-not">{v.whyNot}</p>
          )}
        </section>
      </main>
    </>
  );
}
