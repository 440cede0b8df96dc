"use client";
// "Standing approval" on a request's page (docs/standing-approvals.md): pins
// on this request's values, an expiry within the policy's limit, optional
// uses, a reason; the words under the pins say what everything else must be
// and what stays free, as the pins change; Preview says how many recent
// requests it would have matched. The server builds and checks the pins
// from the request itself.
import { useActionState, useId, useState } from "react";
import { humanSeconds } from "@/lib/format/time";
import { freeWords, type Outline } from "@/lib/standing/free-words";

export type StandingFormState = { ok: boolean; message: string } | null;

type Op = "eq" | "lte" | "gte" | "in" | "max_length";
/** `other`: a bound's optional other side (at least, for "at most"; at most, for "at least"). */
type Row = { key: number; path: string; op: Op; value: string; other: string };

type Props = {
  approvalId: string;
  paths: readonly string[];
  /** This request's shape in brief, for the words; null when it is too large for a standing approval. */
  outline: Outline | null;
  maxTtlSeconds: number;
  action: (prev: StandingFormState, formData: FormData) => Promise<StandingFormState>;
};

const CHOICES = [15 * 60, 3600, 4 * 3600, 24 * 3600, 7 * 24 * 3600];
const INPUT = "rounded border border-slate-400 px-2 py-1 font-mono text-sm";
const BUTTON = "rounded border border-slate-400 bg-white px-3 py-1 text-sm font-medium hover:bg-slate-100 disabled:opacity-50";

/** A typed value: JSON when it parses (10, true, "x"), otherwise the text itself. */
function typed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function pinsOf(rows: readonly Row[]) {
  return rows.map((r) => {
    if (r.op === "eq") return { path: r.path, op: r.op };
    if (r.op === "in") return { path: r.path, op: r.op, values: r.value.split(",").map((v) => typed(v.trim())) };
    const other = r.other.trim() === "" || r.op === "max_length" ? {} : { [r.op === "lte" ? "min" : "max"]: typed(r.other) };
    return { path: r.path, op: r.op, value: typed(r.value), ...other };
  });
}

const OTHER_SIDE = { lte: "and at least (optional)", gte: "and at most (optional)" } as const;

export function ProposeStanding({ approvalId, paths, outline, maxTtlSeconds, action }: Props) {
  const [state, formAction, pending] = useActionState(action, null);
  const [rows, setRows] = useState<Row[]>([{ key: 0, path: paths[0] ?? "", op: "eq", value: "", other: "" }]);
  const [nextKey, setNextKey] = useState(1);
  const [expires, setExpires] = useState(String(Math.min(3600, maxTtlSeconds)));
  const [maxUses, setMaxUses] = useState("");
  const [reason, setReason] = useState("");
  const listId = useId();
  const choices = [...new Set([...CHOICES.filter((c) => c < maxTtlSeconds), maxTtlSeconds])];
  const update = (key: number, change: Partial<Row>) => setRows((rs) => rs.map((r) => (r.key === key ? { ...r, ...change } : r)));

  return (
    <details className="rounded border border-slate-200 bg-white p-4" data-testid="propose-standing">
      <summary className="cursor-pointer text-sm font-semibold">Standing approval</summary>
      <form action={formAction} className="mt-3 flex flex-col gap-3">
        <p className="text-sm text-slate-700">
          Approve calls like this one for a while: same service and tool, the values you pin, and everything else as said below the pins. It takes
          effect once the policy&apos;s quorum approved it (your proposal counts as one), and never for a request whose requester approved it.
        </p>
        <input type="hidden" name="approvalId" value={approvalId} />
        <input type="hidden" name="pins" value={JSON.stringify(pinsOf(rows))} />
        <datalist id={listId}>
          {paths.map((p) => (
            <option key={p} value={p} />
          ))}
        </datalist>
        {rows.map((r, i) => (
          <fieldset key={r.key} className="flex flex-col gap-2 rounded border border-slate-200 p-2 sm:flex-row sm:items-end">
            <legend className="px-1 text-xs text-slate-600">Pin {i + 1}</legend>
            <label className="flex min-w-0 flex-1 flex-col text-xs">
              Value at
              <input
                aria-label={`Pin ${i + 1}: path`}
                className={INPUT}
                list={listId}
                value={r.path}
                onChange={(e) => update(r.key, { path: e.target.value })}
              />
            </label>
            <label className="flex flex-col text-xs">
              Must be
              <select aria-label={`Pin ${i + 1}: test`} className={INPUT} value={r.op} onChange={(e) => update(r.key, { op: e.target.value as Op })}>
                <option value="eq">the same as here</option>
                <option value="lte">at most</option>
                <option value="gte">at least</option>
                <option value="in">one of</option>
                <option value="max_length">a list of at most</option>
              </select>
            </label>
            {r.op !== "eq" && (
              <label className="flex min-w-0 flex-1 flex-col text-xs">
                {r.op === "in" ? "Values (comma-separated)" : r.op === "max_length" ? "Items" : "Bound"}
                <input
                  aria-label={`Pin ${i + 1}: value`}
                  className={INPUT}
                  value={r.value}
                  onChange={(e) => update(r.key, { value: e.target.value })}
                />
              </label>
            )}
            {(r.op === "lte" || r.op === "gte") && (
              <label className="flex min-w-0 flex-1 flex-col text-xs">
                {OTHER_SIDE[r.op]}
                <input
                  aria-label={`Pin ${i + 1}: other bound`}
                  className={INPUT}
                  value={r.other}
                  placeholder="0, or this request's value"
                  onChange={(e) => update(r.key, { other: e.target.value })}
                />
              </label>
            )}
            {rows.length > 1 && (
              <button type="button" className={BUTTON} onClick={() => setRows((rs) => rs.filter((x) => x.key !== r.key))}>
                Remove pin {i + 1}
              </button>
            )}
          </fieldset>
        ))}
        <button
          type="button"
          className={`${BUTTON} self-start`}
          onClick={() => {
            setRows((rs) => [...rs, { key: nextKey, path: "", op: "eq", value: "", other: "" }]);
            setNextKey((k) => k + 1);
          }}
        >
          Add a pin
        </button>
        <p className="text-sm text-slate-700" data-testid="standing-free">
          {outline
            ? freeWords(outline, pinsOf(rows))
            : "This request holds too many values for a standing approval: each request it decides would have to be compared with all of them."}
        </p>
        <div className="flex flex-wrap gap-3">
          <label className="flex flex-col text-sm">
            Lasts
            <select name="expires" className={INPUT} value={expires} onChange={(e) => setExpires(e.target.value)}>
              {choices.map((c) => (
                <option key={c} value={c}>
                  {humanSeconds(c)}
                </option>
              ))}
            </select>
          </label>
          <label className="flex flex-col text-sm">
            At most this many uses
            <input
              name="max_uses"
              type="number"
              min={1}
              className={INPUT}
              value={maxUses}
              placeholder="no limit"
              onChange={(e) => setMaxUses(e.target.value)}
            />
          </label>
        </div>
        <label className="flex flex-col text-sm">
          Why calls like this may run without asking
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
            Preview matches
          </button>
          <button
            type="submit"
            name="intent"
            value="submit"
            disabled={pending}
            className="rounded bg-slate-900 px-3 py-1 text-sm font-medium text-white hover:bg-slate-700 disabled:opacity-50"
          >
            Propose standing approval
          </button>
        </div>
        {state && (
          <p
            role={state.ok ? "status" : "alert"}
            className={`text-sm ${state.ok ? "text-green-900" : "text-red-800"}`}
            data-testid="standing-message"
          >
            {state.message}
          </p>
        )}
      </form>
    </details>
  );
}
