"use client";
// "Propose changes" on the decision page (docs/revisions.md): the reviewer
// lists changes to shown argument values, previews the patch and the
// arguments as they would read, explains why, and submits instead of voting.
// The server checks everything (paths, hidden values, secrets, every review
// rule); this form only turns the rows into an RFC 6902 patch.
import { useActionState, useEffect, useState } from "react";
import { Segments } from "@/components/revealed-text";
import type { TextView } from "@/lib/display/request-display";
import { readablePath } from "@/lib/revisions/readable-path";

/** What the proposal action answers (app/approvals/[id]/actions.ts). */
export type ProposalFormState = { ok: boolean; message: string; preview?: TextView } | null;

type Op = "replace" | "add" | "remove";
type Row = { key: number; op: Op; path: string; value: string; typed: boolean };

/** The field list's last choice: a path typed by hand (a JSON Pointer), e.g. a new key to add. */
const TYPED = ":typed";
const OP_WORDS: Record<Op, string> = { replace: "Set", add: "Add", remove: "Remove" };

type Props = {
  approvalId: string;
  /** JSON Pointers the reviewer may name (shown values and containers). */
  paths: readonly string[];
  action: (prev: ProposalFormState, formData: FormData) => Promise<ProposalFormState>;
};

/** A value as typed: JSON when it parses (50, true, "text", {"a":1}), otherwise the text itself. */
function typedValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function patchOf(rows: readonly Row[]) {
  return rows.map((r) => (r.op === "remove" ? { op: r.op, path: r.path } : { op: r.op, path: r.path, value: typedValue(r.value) }));
}

const INPUT = "rounded border border-slate-400 px-2 py-1 font-mono text-sm";
const BUTTON = "rounded border border-slate-400 bg-white px-3 py-1 text-sm font-medium hover:bg-slate-100 disabled:opacity-50";

export function ProposeChanges({ approvalId, paths, action }: Props) {
  const [state, formAction, pending] = useActionState(action, null);
  const [rows, setRows] = useState<Row[]>([{ key: 0, op: "replace", path: paths[0] ?? "", value: "", typed: paths.length === 0 }]);
  const [open, setOpen] = useState(false);
  // While the form is open the phone's decision bar, with its own reason box and Approve, steps aside (app/globals.css).
  useEffect(() => {
    document.documentElement.toggleAttribute("data-proposing", open);
    return () => document.documentElement.removeAttribute("data-proposing");
  }, [open]);
  const [nextKey, setNextKey] = useState(1);
  // Controlled: React resets a form's uncontrolled fields after each action, and Preview is one.
  const [reason, setReason] = useState("");
  const patchText = JSON.stringify(patchOf(rows), null, 2);

  const update = (key: number, change: Partial<Row>) => setRows((rs) => rs.map((r) => (r.key === key ? { ...r, ...change } : r)));

  return (
    <details className="rounded border border-slate-200 bg-white p-4" data-testid="propose-changes" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary className="cursor-pointer text-sm font-semibold">Propose changes</summary>
      <form action={formAction} className="mt-3 flex flex-col gap-3">
        <p className="text-sm text-slate-700">
          Instead of approving or denying, answer with changed arguments: the agent receives the changes, sends the changed call, and your approval
          counts for it when it carries exactly these changes. Redacted values cannot be changed. A value is read as JSON (<code>50</code>,{" "}
          <code>true</code>, <code>&quot;text&quot;</code>); anything else is taken as text.
        </p>
        <input type="hidden" name="approvalId" value={approvalId} />
        <input type="hidden" name="patch" value={JSON.stringify(patchOf(rows))} />
        <p className="text-sm text-slate-700 lg:hidden" data-testid="bar-aside">
          The decision bar is out of the way while this form is open: close the form to approve or deny instead.
        </p>
        {rows.map((r, i) => (
          <fieldset key={r.key} className="flex flex-col gap-2 rounded border border-slate-200 p-2 sm:flex-row sm:items-end">
            <legend className="px-1 text-xs text-slate-600">Change {i + 1}</legend>
            <label className="flex flex-col text-xs">
              Operation
              <select
                aria-label={`Change ${i + 1}: operation`}
                className={INPUT}
                value={r.op}
                onChange={(e) => update(r.key, { op: e.target.value as Op })}
              >
                <option value="replace">replace</option>
                <option value="add">add</option>
                <option value="remove">remove</option>
              </select>
            </label>
            <label className="flex min-w-0 flex-1 flex-col text-xs">
              Field
              <select
                aria-label={`Change ${i + 1}: field`}
                className={INPUT}
                value={r.typed ? TYPED : r.path}
                onChange={(e) => (e.target.value === TYPED ? update(r.key, { typed: true }) : update(r.key, { path: e.target.value, typed: false }))}
              >
                {paths.map((p) => (
                  <option key={p} value={p}>
                    {readablePath(p)}
                  </option>
                ))}
                <option value={TYPED}>Another place (type its path)…</option>
              </select>
            </label>
            {r.typed && (
              <label className="flex min-w-0 flex-1 flex-col text-xs">
                Path (JSON Pointer, e.g. /items/- to add at the end of items)
                <input
                  aria-label={`Change ${i + 1}: path`}
                  className={INPUT}
                  value={r.path}
                  placeholder="/amount"
                  onChange={(e) => update(r.key, { path: e.target.value })}
                />
              </label>
            )}
            {r.op !== "remove" && (
              <label className="flex min-w-0 flex-1 flex-col text-xs">
                New value
                <input
                  aria-label={`Change ${i + 1}: new value`}
                  className={INPUT}
                  value={r.value}
                  onChange={(e) => update(r.key, { value: e.target.value })}
                />
              </label>
            )}
            {rows.length > 1 && (
              <button type="button" className={BUTTON} onClick={() => setRows((rs) => rs.filter((x) => x.key !== r.key))}>
                Remove change {i + 1}
              </button>
            )}
          </fieldset>
        ))}
        <button
          type="button"
          className={`${BUTTON} self-start`}
          onClick={() => {
            setRows((rs) => [...rs, { key: nextKey, op: "replace", path: paths[0] ?? "", value: "", typed: paths.length === 0 }]);
            setNextKey((k) => k + 1);
          }}
        >
          Add a change
        </button>
        <div>
          <h3 className="text-xs font-semibold text-slate-600">The changes</h3>
          <ul className="list-disc pl-5 text-sm" data-testid="patch-summary">
            {rows.map((r) => (
              <li key={r.key} className="break-all">
                {OP_WORDS[r.op]} <span className="font-mono">{readablePath(r.path)}</span>
                {r.op !== "remove" && (
                  <>
                    {" "}
                    {r.op === "add" ? "as" : "to"} <span className="font-mono">{JSON.stringify(typedValue(r.value))}</span>
                  </>
                )}
              </li>
            ))}
          </ul>
          <details className="mt-1 text-xs">
            <summary className="cursor-pointer text-slate-600">As the agent receives them (JSON Patch)</summary>
            <pre className="max-h-48 overflow-auto rounded bg-slate-50 p-2 text-xs" data-testid="patch-text">
              {patchText}
            </pre>
          </details>
        </div>
        <label className="flex flex-col text-sm">
          Explain the changes
          <textarea
            name="reason"
            rows={2}
            maxLength={2000}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            className="rounded border border-slate-400 px-2 py-1"
          />
        </label>
        <div className="flex flex-wrap gap-2">
          <button type="submit" name="intent" value="preview" disabled={pending} className={BUTTON}>
            Preview
          </button>
          <button
            type="submit"
            name="intent"
            value="submit"
            disabled={pending}
            className="rounded bg-amber-700 px-3 py-1 text-sm font-medium text-white hover:bg-amber-800 disabled:opacity-50"
          >
            Submit proposal
          </button>
        </div>
        {state && (
          <p
            role={state.ok ? "status" : "alert"}
            className={`text-sm ${state.ok ? "text-green-900" : "text-red-800"}`}
            data-testid="proposal-message"
          >
            {state.message}
          </p>
        )}
        {state?.preview && (
          <div>
            <h3 className="text-xs font-semibold text-slate-600">The arguments with these changes</h3>
            <pre className="max-h-96 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-2 text-xs" data-testid="proposal-preview">
              <Segments segments={state.preview.segments} />
            </pre>
          </div>
        )}
      </form>
    </details>
  );
}
