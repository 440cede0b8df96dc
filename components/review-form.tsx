"use client";
// Approve / Deny / Approve & next for an eligible reviewer. The server
// decides everything; this form only asks for a reason before a denial and
// for a second press on destructive calls. The second press lands on the same
// button: its label changes in place and the warning shows below the
// buttons, so nothing moves between the two presses. Below lg the form is a
// bar fixed to the bottom of the viewport, so it is never scrolled away.
import { useState } from "react";
import { useRouter } from "next/navigation";
import { passkeyVote } from "@/components/passkey-vote";

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
};

const BUTTON = "h-11 whitespace-nowrap rounded px-2 font-medium text-white disabled:opacity-50";

export function ReviewForm({ approvalId, destructive, requirePasskey = false, action, pending, state, expired }: Props) {
  const router = useRouter();
  const [reason, setReason] = useState("");
  const [clientError, setClientError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<Intent | null>(null);
  const [signing, setSigning] = useState(false);
  const disabled = pending || expired || signing;

  const line = expired
    ? "This request has expired; it can no longer be decided."
    : (clientError ??
      (state && !state.ok
        ? state.message
        : confirming
          ? `This call is destructive and cannot be undone. Press ${confirming === "approve" ? "Confirm approve" : "Confirm & next"} to approve it.`
          : destructive
            ? "Destructive call: approving asks you to confirm."
            : ""));
  const alarming = expired || clientError !== null || (state !== null && !state.ok) || confirming !== null;

  return (
    <form
      action={action}
      aria-label="Decision"
      className="flex flex-col gap-2 max-lg:fixed max-lg:inset-x-0 max-lg:bottom-0 max-lg:z-20 max-lg:border-t max-lg:border-slate-300 max-lg:bg-white max-lg:px-4 max-lg:py-3 max-lg:shadow-[0_-2px_8px_rgba(0,0,0,0.08)]"
      data-testid="decision-bar"
      onSubmit={(e) => {
        const submitter = (e.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
        const decision = submitter?.value;
        if (decision === "deny" && !reason.trim()) {
          e.preventDefault();
          setClientError("A denial needs a reason.");
          return;
        }
        const intent = decision === "approve" || decision === "approve-next" ? (decision as Intent) : null;
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
            if (decision === "approve-next" && r.next) router.push(r.next);
            else router.refresh();
          });
        }
      }}
    >
      <input type="hidden" name="approvalId" value={approvalId} />
      {requirePasskey && (
        <p className="text-sm text-slate-700" data-testid="passkey-note">
          {signing ? "Waiting for your passkey…" : "This request's policy requires your passkey: your browser asks for it when you vote."}
        </p>
      )}
      <label className="flex flex-col gap-1 text-sm font-medium">
        Reason
        <textarea
          name="reason"
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          rows={2}
          maxLength={2000}
          className="rounded border border-slate-300 px-3 py-2 text-base"
          aria-describedby="reason-help"
        />
        <span id="reason-help" className="text-xs font-normal text-slate-600">
          Required to deny; optional to approve.
        </span>
      </label>
      <div className="grid grid-cols-2 gap-2">
        <button
          id="decision-approve"
          type="submit"
          name="decision"
          value="approve"
          disabled={disabled}
          className={`${BUTTON} bg-green-700 hover:bg-green-800`}
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
          className={`${BUTTON} col-span-2 border border-green-800 bg-white !text-green-900 hover:bg-green-50`}
        >
          {confirming === "approve-next" ? "Confirm & next" : "Approve & next"}
        </button>
      </div>
      {/* Always there, two lines tall, below the buttons: its text changes, the buttons stay put. */}
      <p role="alert" className={`min-h-10 text-sm ${alarming ? "font-medium text-red-800" : "text-slate-600"}`} data-testid="decision-line">
        {line}
      </p>
    </form>
  );
}
