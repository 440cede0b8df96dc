"use client";
// The on-demand part of the arguments viewer: one button ("Show more",
// "Show all") that loads something from GET /api/approvals/{id}/arguments,
// says it is busy and shows what went wrong; and the fetch it uses. The server
// sends display data already revealed; this only asks for it.
import { useState } from "react";
import type { ArgumentsPage } from "@/lib/display/argument-pages";

export async function fetchArguments(approvalId: string, params: Record<string, string>): Promise<ArgumentsPage> {
  const q = new URLSearchParams(params);
  const res = await fetch(`/api/approvals/${encodeURIComponent(approvalId)}/arguments?${q}`, { cache: "no-store" });
  if (!res.ok)
    throw new Error(
      res.status === 401 ? "Signed out: reload the page." : res.status === 404 ? "No longer available." : `Could not load (${res.status}).`,
    );
  return (await res.json()) as ArgumentsPage;
}

export const SMALL_BUTTON =
  "ml-1 inline-flex min-h-6 min-w-6 items-center rounded border border-slate-300 bg-white px-1.5 font-sans text-xs text-blue-800 hover:bg-slate-100 disabled:opacity-50";

/** A button that runs `load`, disabled while it runs, with the error (if any) after it. */
export function MoreButton({ label, load }: { label: string; load: () => Promise<void> }) {
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  const run = async () => {
    setState({ busy: true, error: null });
    try {
      await load();
      setState({ busy: false, error: null });
    } catch (e) {
      setState({ busy: false, error: e instanceof Error ? e.message : "Could not load." });
    }
  };
  return (
    <>
      <button type="button" className={SMALL_BUTTON} disabled={state.busy} onClick={() => void run()}>
        {state.busy ? "Loading…" : label}
      </button>
      {state.error && (
        <span role="alert" className="ml-2 font-sans text-xs text-red-700">
          {state.error}
        </span>
      )}
    </>
  );
}
