"use client";
// Approve / Deny / Approve & next for an eligible reviewer. The server
// decides everything; this form only asks for a reason before a denial and
// for a second press on destructive calls. The second press lands on the same
// button: its label changes in place and the warning shows below the
// buttons, so nothing moves between the two presses. Below lg the form is a
// bar fixed to the bottom of the viewport, so it is never scrolled away.
import { useRef, useState } from "react";
import { useRouter } from "next/navigation";
import { passkeyVote } from "@/components/passkey-vote";
import { TimeLeft } from "@/components/time";
import { useArgumentsSeen, useBarHeight } from "@/components/use-arguments-seen";

/** What the review action answers (app/approvals/[id]/actions.ts, passed in by the page). */
export type ReviewFormState = { ok: boolean; message: string; status?: string; next?: string } | null;

type Intent = "approve" | "approve-next";

type Props = {
  approvalId: string;
  destructive: boolean;
  /** Votes need the reviewer's passkey: the form signs the vote with it and sends it to the passkey routes (docs/passkeys.md). */
  requirePasskey?: boolean;
  /** The form action from useActionState (components/decision-panel.tsx). */
  action: (formData: FormData) => void;
  pending: boolean;
  state: ReviewFormState;
  /** The request expired while the page was open: nothing can be sent any more. */
  expired: boolean;
  /** "1 of 2 approvals — your approval completes it" (lib/reviews/progress). */
  progress: string | null;
  /** ISO time, for the time left. */
  expiresAt: string;
  /** The queue's filters and order ("?…" or ""): "Approve & next" follows them. */
  carried?: string;
  /** Where "Approve & next" goes when the vote is not the form action's (a passkey vote): the page's next request, or the queue. */
  followingHref?: string;
};

const NOT_SEEN = "Look at the arguments before approving: scroll to them, or open them.";

const BUTTON = "h-11 whitespace-nowrap rounded px-2 font-medium text-white disabled:opacity-50";

export function ReviewForm({
  approvalId,
  destructive,
  requirePasskey = false,
  action,
  pending,
  state,
  expired,
  progress,
  expiresAt,
  carried = "",
  followingHref = "/approvals",
}: Props) {
  const router = useRouter();
  const bar = useRef<HTMLFormElement>(null);
  useBarHeight(bar);
  // Approve waits until the arguments were in view (lib/display/arguments-seen); Deny never waits.
  const looked = useArgumentsSeen(bar);
  const seen = looked === true;
  const [reason, setReason] = useState("");
  const reasonField = useRef<HTMLTextAreaElement>(null);
  // A denial without a reason: the field is marked invalid, described by the decision line, and focused.
  const [reasonMissing, setReasonMissing] = useState(false);
  const [clientError, setClientError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<Intent | null>(null);
  const [signing, setSigning] = useState(false);
  const disabled = pending || expired || signing;

  const line = expired
    ? "This request has expired; it can no longer be decided."
    : (clientError ??
      (state && !state.ok
        ? state.message
        : looked === false
          ? NOT_SEEN
          : confirming
            ? `This call is destructive and cannot be undone. Press ${confirming === "approve" ? "Confirm approve" : "Confirm & next"} to approve it.`
            : destructive
              ? "Destructive call: approving asks you to confirm."
              : ""));
  const alarming = expired || clientError !== null || (state !== null && !state.ok) || confirming !== null;

  return (
    <form
      ref={bar}
      action={action}
      aria-label="Decision"
      className="flex flex-col gap-2 max-lg:fixed max-lg:inset-x-0 max-lg:bottom-0 max-lg:z-20 max-lg:border-t max-lg:border-slate-300 max-lg:bg-white max-lg:px-4 max-lg:py-3 max-lg:shadow-[0_-2px_8px_rgba(0,0,0,0.08)]"
      data-testid="decision-bar"
      data-decision-bar=""
      onSubmit={(e) => {
        const submitter = (e.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
        const decision = submitter?.value;
        if (decision === "deny" && !reason.trim()) {
          e.preventDefault();
          setClientError("A denial needs a reason.");
          setReasonMissing(true);
          reasonField.current?.focus();
          return;
        }
        const intent = decision === "approve" || decision === "approve-next" ? (decision as Intent) : null;
        if (intent && !seen) {
          e.preventDefault();
          return;
        }
        if (intent && destructive && confirming !== intent) {
          e.preventDefault();
          setClientError(null);
          setConfirming(intent);
          return;
        }
        setClientError(null);
        if (requirePasskey && decision) {
          // The vote is signed with the reviewer's passkey and sent to the passkey routes, not the form action.
          e.preventDefault();
          setSigning(true);
          void passkeyVote(approvalId, decision === "deny" ? "deny" : "approve", reason).then((r) => {
            setSigning(false);
            setConfirming(null);
            if (!r.ok) return setClientError(r.message);
            if (decision === "approve-next") router.push(r.next ?? followingHref);
            else router.refresh();
          });
        }
      }}
    >
      <input type="hidden" name="approvalId" value={approvalId} />
      <input type="hidden" name="queue" value={carried} />
      {progress && (
        <p className="text-sm font-medium" data-testid="decision-progress">
          {progress} · <TimeLeft until={expiresAt} testId="decision-time-left" />
        </p>
      )}
      {requirePasskey && (
        <p className="text-sm text-slate-700" data-testid="passkey-note">
          {signing ? "Waiting for your passkey…" : "This request's policy requires your passkey: your browser asks for it when you vote."}
        </p>
      )}
      <label className="flex flex-col gap-1 text-sm font-medium">
        <span className="flex flex-wrap items-baseline justify-between gap-x-2">
          Reason
          <span id="reason-help" className="text-xs font-normal text-slate-600">
            Required to deny; optional to approve.
          </span>
        </span>
        <textarea
          name="reason"
          ref={reasonField}
          value={reason}
          onChange={(e) => {
            setReason(e.target.value);
            if (reasonMissing && e.target.value.trim()) {
              setReasonMissing(false);
              setClientError(null);
            }
          }}
          rows={2}
          maxLength={2000}
          className={`rounded border px-3 py-2 text-base max-lg:h-11 max-lg:resize-none ${reasonMissing ? "border-2 border-red-700" : "border-slate-300"}`}
          aria-invalid={reasonMissing || undefined}
          aria-describedby={reasonMissing ? "reason-help decision-line" : "reason-help"}
        />
      </label>
      <div className="grid grid-cols-2 gap-2">
        <button
          id="decision-approve"
          type="submit"
          name="decision"
          value="approve"
          disabled={disabled}
          aria-disabled={!seen || undefined}
          className={`${BUTTON} bg-green-700 hover:bg-green-800 aria-disabled:opacity-50`}
        >
          {confirming === "approve" ? "Confirm approve" : "Approve"}
        </button>
        <button id="decision-deny" type="submit" name="decision" value="deny" disabled={disabled} className={`${BUTTON} bg-red-700 hover:bg-red-800`}>
          Deny
        </button>
        <button
          id="decision-approve-next"
          type="submit"
          name="decision"
          value="approve-next"
          disabled={disabled}
          aria-disabled={!seen || undefined}
          className={`${BUTTON} aria-disabled:opacity-50 col-span-2 border border-green-800 bg-white !text-green-900 hover:bg-green-50`}
        >
          {confirming === "approve-next" ? "Confirm & next" : "Approve & next"}
        </button>
      </div>
      {/* Always there, two lines tall, below the buttons: its text changes, the buttons stay put. */}
      <p
        id="decision-line"
        role="alert"
        className={`min-h-10 text-sm ${alarming ? "font-medium text-red-800" : "text-slate-600"}`}
        data-testid="decision-line"
      >
        {line}
      </p>
    </form>
  );
}
