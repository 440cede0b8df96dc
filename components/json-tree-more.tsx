"use client";
// The on-demand part of the arguments tree: the next page of a container's
// children, or the rest of a long string, fetched from
// GET /api/approvals/{id}/arguments when the reviewer asks for it. The server
// sends display nodes already revealed; this only renders them.
import { useState } from "react";
import type { NodeView } from "@/lib/display/bounded-tree";
import type { Segment } from "@/lib/display/reveal";
import { JsonNodes } from "./json-tree";
import { Segments } from "./revealed-text";

type Props = { approvalId: string; path: number[]; from: number; remaining: number };

async function fetchPage(
  approvalId: string,
  path: number[],
  from: number,
  keyOf: boolean,
): Promise<{ children?: NodeView[]; segments?: Segment[]; next: number | null }> {
  const q = new URLSearchParams({ path: path.join("."), from: String(from), ...(keyOf ? { part: "key" } : {}) });
  const res = await fetch(`/api/approvals/${encodeURIComponent(approvalId)}/arguments?${q}`, { cache: "no-store" });
  if (!res.ok)
    throw new Error(
      res.status === 401 ? "Signed out: reload the page." : res.status === 404 ? "No longer available." : `Could not load (${res.status}).`,
    );
  return res.json();
}

function useLoader<T>(load: () => Promise<T>) {
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  const run = async (onDone: (v: T) => void) => {
    setState({ busy: true, error: null });
    try {
      onDone(await load());
      setState({ busy: false, error: null });
    } catch (e) {
      setState({ busy: false, error: e instanceof Error ? e.message : "Could not load." });
    }
  };
  return { ...state, run };
}

const BUTTON = "ml-1 rounded border border-slate-300 bg-white px-1.5 py-0.5 font-sans text-xs text-blue-800 hover:bg-slate-100 disabled:opacity-50";

export function MoreChildren({ approvalId, path, from, remaining, kind }: Props & { kind: "array" | "object" }) {
  const [pages, setPages] = useState<Array<{ from: number; children: NodeView[] }>>([]);
  const [next, setNext] = useState<number | null>(from);
  const loader = useLoader(() => fetchPage(approvalId, path, next ?? from, false));
  const shown = pages.reduce((n, p) => n + p.children.length, 0);
  const left = remaining - shown;
  return (
    <>
      {pages.map((p) => (
        <JsonNodes key={p.from} nodes={p.children} where={{ approvalId, path }} from={p.from} depth={path.length + 1} />
      ))}
      {next !== null && left > 0 && (
        <li className="font-sans text-xs text-slate-600">
          … {left.toLocaleString("en-US")} more {kind === "array" ? "item" : "key"}
          {left === 1 ? "" : "s"}
          <button
            type="button"
            className={BUTTON}
            disabled={loader.busy}
            onClick={() =>
              void loader.run((page) => {
                const at = next;
                setPages((ps) => [...ps, { from: at, children: page.children ?? [] }]);
                setNext(page.next);
              })
            }
          >
            {loader.busy ? "Loading…" : "Show more"}
          </button>
          {loader.error && (
            <span role="alert" className="ml-2 text-red-700">
              {loader.error}
            </span>
          )}
        </li>
      )}
    </>
  );
}

export function MoreText({ approvalId, path, from, remaining, keyOf = false }: Props & { keyOf?: boolean }) {
  const [segments, setSegments] = useState<Segment[]>([]);
  const [next, setNext] = useState<number | null>(from);
  const loader = useLoader(() => fetchPage(approvalId, path, next ?? from, keyOf));
  const left = next === null ? 0 : remaining - (next - from);
  return (
    <>
      <Segments segments={segments} />
      {next !== null && left > 0 && (
        <span className="font-sans text-xs text-slate-600">
          {" "}
          … {left.toLocaleString("en-US")} more character{left === 1 ? "" : "s"}
          <button
            type="button"
            className={BUTTON}
            disabled={loader.busy}
            onClick={(e) => {
              // Inside a <summary> (a long key): load, do not fold the container.
              e.preventDefault();
              e.stopPropagation();
              void loader.run((page) => {
                setSegments((s) => [...s, ...(page.segments ?? [])]);
                setNext(page.next);
              });
            }}
          >
            {loader.busy ? "Loading…" : "Show more"}
          </button>
          {loader.error && (
            <span role="alert" className="ml-2 text-red-700">
              {loader.error}
            </span>
          )}
        </span>
      )}
    </>
  );
}
