"use client";
// "Approve all" / "Deny all" for the requests of a run this reviewer may
// decide. The buttons say how many; the ids sent are the ones the page
// showed, so nothing that arrived since is decided unseen. The server
// checks every rule per request and records all votes or none.
import { useActionState, useState } from "react";

export type RunBatchState = { ok: boolean; message: string } | null;

type Props = {
  service: string;
  runId: string;
  approvalIds: readonly string[];
  destructive: boolean;
  /** Set when the run has this many pages: the batch decides this page's requests only. */
  onePageOf?: number;
  action: (prev: RunBatchState, formData: FormData) => Promise<RunBatchState>;
};

const BUTTON = "h-11 rounded px-3 font-medium text-white disabled:opacity-50";

export function RunBatchForm({ service, runId, approvalIds, destructive, onePageOf, action }: Props) {
  const [state, formAction, pending] = useActionState(action, null);
  const [reason, setReason] = useState("");
  const [clientError, setClientError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const n = approvalIds.length;
  const plural = n === 1 ? "" : "s";
  const message =
    clientError ?? (confirming ? `Some of these calls are destructive. Press Confirm approve all ${n} to approve them.` : state?.message);

  return (
    <form
      action={formAction}
      aria-label="Decide the run"
      id="run-batch"
      className="flex flex-col gap-2 rounded border border-slate-200 bg-white p-4"
      onSubmit={(e) => {
        const choice = ((e.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null)?.value;
        setClientError(null);
        if (choice === "deny" && !reason.trim()) {
          e.preventDefault();
          setClientError("Deny all needs a reason.");
          return;
        }
        if (choice === "approve" && destructive && !confirming) {
          e.preventDefault();
          setConfirming(true);
          return;
        }
        setConfirming(false);
      }}
    >
      <input type="hidden" name="service" value={service} />
      <input type="hidden" name="runId" value={runId} />
      <input type="hidden" name="approvalIds" value={JSON.stringify(approvalIds)} />
      {n === 0 ? (
        <p className="text-sm" data-testid="run-nothing-to-decide">
          Nothing {onePageOf ? "on this page" : "in this run"} is yours to decide now.
        </p>
      ) : (
        <p className="text-sm text-slate-700">
          One vote on each of the {n} request{plural} listed {onePageOf ? "on this page " : ""}as yours to decide, recorded together: all of them, or
          none if any one is refused.{onePageOf ? ` The run has ${onePageOf} pages; the others are decided on their own pages.` : ""}
        </p>
      )}
      <label className={`flex flex-col text-sm ${n === 0 ? "hidden" : ""}`}>
        Reason
        <textarea
          name="reason"
          rows={2}
          maxLength={2000}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          className="rounded border border-slate-400 px-2 py-1"
        />
      </label>
      <div className={`flex flex-wrap gap-2 ${n === 0 ? "hidden" : ""}`}>
        <button type="submit" name="decision" value="approve" disabled={pending || n === 0} className={`${BUTTON} bg-green-700 hover:bg-green-800`}>
          {confirming ? `Confirm approve all ${n}` : `Approve all ${n}`}
        </button>
        <button type="submit" name="decision" value="deny" disabled={pending || n === 0} className={`${BUTTON} bg-red-700 hover:bg-red-800`}>
          Deny all {n}
        </button>
      </div>
      {message && (
        <p role={state?.ok && !clientError && !confirming ? "status" : "alert"} className="text-sm" data-testid="run-batch-message">
          {message}
        </p>
      )}
    </form>
  );
}
