"use client";
// Approve / Deny for an eligible reviewer. The server decides everything;
// this form only asks for a reason before a denial and for a second click on
// destructive calls, and shows the outcome without a full reload.
import { useActionState, useState } from "react";

/** What the review action answers (app/approvals/[id]/actions.ts, passed in by the page). */
export type ReviewFormState = { ok: boolean; message: string; status?: string } | null;

type Props = {
  approvalId: string;
  destructive: boolean;
  submitReview: (prev: ReviewFormState, formData: FormData) => Promise<ReviewFormState>;
};

export function ReviewForm({ approvalId, destructive, submitReview }: Props) {
  const [state, action, pending] = useActionState<ReviewFormState, FormData>(submitReview, null);
  const [reason, setReason] = useState("");
  const [clientError, setClientError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);

  if (state?.ok && state.status !== "pending") {
    return (
      <p role="status" className="rounded border border-green-300 bg-green-50 p-3 font-medium">
        {state.message}
      </p>
    );
  }
  if (state?.ok) {
    return (
      <p role="status" className="rounded border border-blue-300 bg-blue-50 p-3">
        {state.message}
      </p>
    );
  }

  return (
    <form
      action={action}
      className="flex flex-col gap-3"
      onSubmit={(e) => {
        const submitter = (e.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
        const decision = submitter?.value;
        if (decision === "deny" && !reason.trim()) {
          e.preventDefault();
          setClientError("A denial needs a reason.");
          return;
        }
        if (decision === "approve" && destructive && !confirming) {
          e.preventDefault();
          setConfirming(true);
          return;
        }
        setClientError(null);
      }}
    >
      <input type="hidden" name="approvalId" value={approvalId} />
      <label className="flex flex-col gap-1 text-sm font-medium">
        Reason
        <textarea
          name="reason"
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          rows={3}
          maxLength={2000}
          className="rounded border border-slate-300 px-3 py-2 text-base"
          aria-describedby="reason-help"
        />
        <span id="reason-help" className="text-xs font-normal text-slate-600">
          Required to deny; optional to approve.
        </span>
      </label>
      {(clientError || (state && !state.ok)) && (
        <p role="alert" className="rounded border border-red-300 bg-red-50 p-2 text-sm text-red-800">
          {clientError ?? state?.message}
        </p>
      )}
      {confirming && (
        <p role="alert" className="rounded border border-amber-300 bg-amber-50 p-2 text-sm">
          This call is destructive and cannot be undone. Press Approve again to confirm.
        </p>
      )}
      <div className="flex gap-3">
        <button
          type="submit"
          name="decision"
          value="approve"
          disabled={pending}
          className="flex-1 rounded bg-green-700 px-4 py-3 font-medium text-white hover:bg-green-800 disabled:opacity-50"
        >
          Approve
        </button>
        <button
          type="submit"
          name="decision"
          value="deny"
          disabled={pending}
          className="flex-1 rounded bg-red-700 px-4 py-3 font-medium text-white hover:bg-red-800 disabled:opacity-50"
        >
          Deny
        </button>
      </div>
    </form>
  );
}
