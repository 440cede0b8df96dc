"use client";
// The decision page's decision: the form while the viewer can decide, then a
// lasting result panel built by the server from the request's current state
// (the page re-renders after a vote and on live changes). It holds the form's
// action state, so it outlives the form: focus moves to the result after a
// vote, "Approve & next" moves on, and at expiry the form disables itself and
// the page is re-read.
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useActionState, useEffect, useRef, useState } from "react";
import { ReviewForm, type ReviewFormState } from "@/components/review-form";
import type { Outcome } from "@/lib/reviews/outcome";

type Props = {
  approvalId: string;
  destructive: boolean;
  /** Votes need the reviewer's passkey (docs/passkeys.md). */
  requirePasskey: boolean;
  canReview: boolean;
  /** Why there is no form (pending, not the viewer's to decide), or null. */
  whyNot: string | null;
  outcome: Outcome | null;
  /** ISO time; the form stops at it. */
  expiresAt: string;
  /** The request to open after this one, or null (back to the queue). */
  nextHref: string | null;
  /** The queue, with the filters and order the page was opened from. */
  queueHref: string;
  /** Those filters and that order ("?…" or ""), sent with a vote so "Approve & next" follows them. */
  carried: string;
  /** "1 of 2 approvals — your approval completes it" (lib/reviews/progress), or null once decided. */
  progress: string | null;
  submitReview: (prev: ReviewFormState, formData: FormData) => Promise<ReviewFormState>;
};

const TONES: Record<Outcome["tone"], string> = {
  pending: "border-blue-300 bg-blue-50",
  approved: "border-green-300 bg-green-50",
  denied: "border-red-300 bg-red-50",
  expired: "border-slate-300 bg-slate-100",
  cancelled: "border-slate-300 bg-slate-100",
  revised: "border-amber-300 bg-amber-50",
};

// setTimeout's longest delay (about 24.8 days); a later expiry is re-armed by the next render.
const MAX_DELAY_MS = 2 ** 31 - 1;

export function DecisionPanel(props: Props) {
  const { approvalId, destructive, requirePasskey, canReview, whyNot, outcome, expiresAt, nextHref, queueHref, carried, progress, submitReview } =
    props;
  const router = useRouter();
  const [state, action, pending] = useActionState<ReviewFormState, FormData>(submitReview, null);
  const [expired, setExpired] = useState(false);
  const resultRef = useRef<HTMLDivElement>(null);
  const showedForm = useRef(false);
  const showForm = canReview && outcome === null;

  // After a vote (or a change while the form was open), the result takes focus: the form it replaced is gone.
  useEffect(() => {
    if (showForm) showedForm.current = true;
    else if (showedForm.current && outcome) {
      showedForm.current = false;
      resultRef.current?.focus();
    }
  }, [showForm, outcome]);

  useEffect(() => {
    if (state?.ok && state.next) router.push(state.next);
  }, [state, router]);

  useEffect(() => {
    if (!canReview) return;
    const left = Date.parse(expiresAt) - Date.now();
    // The page is re-read just after (components/request-status.tsx).
    const stop = setTimeout(() => setExpired(true), Math.min(Math.max(0, left), MAX_DELAY_MS));
    return () => clearTimeout(stop);
  }, [canReview, expiresAt]);

  if (outcome) {
    const next = nextHref ?? queueHref;
    return (
      <div
        ref={resultRef}
        tabIndex={-1}
        role="status"
        className={`flex flex-col gap-2 rounded border p-3 ${TONES[outcome.tone]}`}
        data-testid="decision-result"
        data-mine={outcome.mine}
      >
        <p className="whitespace-pre-wrap break-words font-medium">{outcome.text}</p>
        <Link href={next} className="self-start rounded border border-slate-400 bg-white px-3 py-2 text-sm font-medium hover:bg-slate-100">
          {nextHref ? "Next request" : "Back to the queue"}
        </Link>
      </div>
    );
  }
  if (showForm) {
    return (
      <ReviewForm
        approvalId={approvalId}
        destructive={destructive}
        requirePasskey={requirePasskey}
        action={action}
        pending={pending}
        state={state}
        expired={expired}
        progress={progress}
        expiresAt={expiresAt}
        carried={carried}
        followingHref={nextHref ?? queueHref}
      />
    );
  }
  return (
    <p className="text-sm text-slate-700" data-testid="why-not">
      {whyNot}
    </p>
  );
}
