"use client";
// A form bound to an admin server action, showing its answer in place:
// a status or an error, detail lines, and secrets to copy (shown once).
// With `confirm`, the first press asks again instead of submitting. What was
// typed stays after an error (React would otherwise reset the form after
// every action); after a success the form is cleared unless `keepValues`.
import { startTransition, useActionState, useEffect, useRef, useState } from "react";
import { CopyButton } from "@/components/copy-button";
import type { ActionState, FormAction } from "@/lib/auth/guards";

type Props = {
  action: FormAction;
  submitLabel: string;
  /** Accessible name of the submit button when the visible label is not enough. */
  submitName?: string;
  confirm?: string;
  danger?: boolean;
  /** Shown but not usable (the form stays mounted, so its last answer stays on screen). */
  disabled?: boolean;
  /** Keep the fields after a success too (e.g. the policy tester). */
  keepValues?: boolean;
  className?: string;
  children?: React.ReactNode;
};

export function ActionForm({ action, submitLabel, submitName, confirm, danger, disabled, keepValues, className, children }: Props) {
  const [state, formAction, pending] = useActionState<ActionState, FormData>(action, null);
  const [confirming, setConfirming] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state?.ok && !keepValues) form.current?.reset();
  }, [state, keepValues]);
  const button = danger
    ? "rounded bg-red-700 px-3 py-2 text-sm font-medium text-white hover:bg-red-800 disabled:opacity-50"
    : "rounded bg-slate-900 px-3 py-2 text-sm font-medium text-white hover:bg-slate-700 disabled:opacity-50";

  return (
    <div className={className}>
      <form
        ref={form}
        action={formAction}
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          if (confirm && !confirming) {
            setConfirming(true);
            return;
          }
          setConfirming(false);
          const data = new FormData(e.currentTarget);
          startTransition(() => formAction(data));
        }}
      >
        {children}
        <button type="submit" disabled={pending || disabled} className={button} aria-label={confirming ? undefined : submitName}>
          {pending ? "Working…" : confirming ? `Confirm: ${submitLabel}` : submitLabel}
        </button>
        {confirming && (
          <button type="button" className="rounded border border-slate-300 px-3 py-2 text-sm" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        )}
      </form>
      {confirming && (
        <p role="alert" className="mt-2 rounded border border-amber-300 bg-amber-50 p-2 text-sm">
          {confirm}
        </p>
      )}
      {state && !confirming && <ActionResult state={state} />}
    </div>
  );
}

function ActionResult({ state }: { state: NonNullable<ActionState> }) {
  return (
    <div
      role={state.ok ? "status" : "alert"}
      className={`mt-2 rounded border p-2 text-sm ${state.ok ? "border-green-300 bg-green-50" : "border-red-300 bg-red-50 text-red-800"}`}
    >
      <p>{state.message}</p>
      {state.detail && state.detail.length > 0 && (
        <ul className="mt-1 list-disc pl-5">
          {state.detail.map((d) => (
            <li key={d}>{d}</li>
          ))}
        </ul>
      )}
      {state.secrets && state.secrets.length > 0 && (
        <div className="mt-2 flex flex-col gap-2" data-testid="secrets">
          <p className="font-medium">Copy these now: they are not stored in readable form and will not be shown again.</p>
          {state.secrets.map((s) => (
            <div key={s.label} className="flex flex-col gap-1 rounded border border-slate-200 bg-white p-2">
              <div className="flex items-center justify-between gap-2">
                <span className="text-xs font-semibold text-slate-600">{s.label}</span>
                <CopyButton text={s.value} label={`Copy ${s.label.toLowerCase()}`} />
              </div>
              <code className="break-all font-mono text-xs" data-testid={`secret-${s.label.toLowerCase().replaceAll(" ", "-")}`}>
                {s.value}
              </code>
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
