"use client";
// The raw view of a request's arguments: their canonical JSON (RFC 8785, the
// form the argument digest is computed over) after redaction, loaded from
// GET /api/approvals/{id}/arguments?format=canonical only when opened, so the
// first render stays small. Invisible and direction-changing characters are
// escapes (⟨U+202E⟩) here too, and Copy copies that escaped text: nothing
// hidden can act in the view or travel on through the clipboard.
import { useId, useState } from "react";
import type { Segment } from "@/lib/display/reveal";
import { CopyButton } from "./copy-button";
import { fetchArguments, SMALL_BUTTON } from "./json-tree-more";
import { Flag, Segments } from "./revealed-text";

type Raw = { segments: Segment[]; flag: string | null };

const textOf = (segments: readonly Segment[]) => segments.map((s) => ("t" in s ? s.t : "e" in s ? s.e : s.m)).join("");

export function ArgumentRaw({ approvalId }: { approvalId: string }) {
  const [open, setOpen] = useState(false);
  const [raw, setRaw] = useState<Raw | null>(null);
  const [error, setError] = useState<string | null>(null);
  const panelId = useId();

  const toggle = async () => {
    setOpen(!open);
    if (open || raw) return;
    setError(null);
    try {
      const res = await fetchArguments(approvalId, { format: "canonical" });
      if (res.kind === "canonical") setRaw({ segments: res.segments, flag: res.flag });
    } catch (e) {
      setError(e instanceof Error ? e.message : "Could not load.");
    }
  };

  return (
    <div className="flex min-w-0 flex-col gap-1">
      <div>
        <button type="button" className={SMALL_BUTTON} aria-expanded={open} aria-controls={panelId} onClick={() => void toggle()}>
          Raw JSON
        </button>
      </div>
      <div id={panelId} hidden={!open} className="flex min-w-0 flex-col gap-1">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <p className="text-xs text-slate-600">
            Canonical JSON (RFC 8785) of the redacted arguments. Invisible and direction-changing characters are shown, and copied, as ⟨U+XXXX⟩
            escapes.
          </p>
          {raw && <CopyButton text={textOf(raw.segments)} label="Copy JSON" />}
        </div>
        {error && (
          <p role="alert" className="text-sm text-red-700">
            {error}
          </p>
        )}
        {open && !raw && !error && <p className="text-sm text-slate-600">Loading…</p>}
        {raw && (
          <>
            <Flag reason={raw.flag} />
            <pre
              tabIndex={0}
              aria-label="Canonical JSON"
              data-testid="raw-json"
              className="max-h-96 overflow-auto whitespace-pre-wrap break-all rounded border border-slate-200 bg-slate-50 p-2 font-mono text-xs text-slate-900"
            >
              <bdi dir="ltr">
                <Segments segments={raw.segments} />
              </bdi>
            </pre>
          </>
        )}
      </div>
    </div>
  );
}
