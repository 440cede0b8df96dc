"use client";
// The rows of the arguments tree (components/json-tree.tsx holds the state):
// keys and values already revealed (lib/display/reveal), each isolated from
// its neighbours; containers as a toggle with their count ("[42 items]"),
// their children rendered only while open, so a big request stays short and
// has few Tab stops; long strings as their start, "… (N more characters)" and
// Show all. Text only: every value is a React text node, never HTML.
import { createContext, useContext } from "react";
import type { BranchView, KeyView, NodeView } from "@/lib/display/bounded-tree";
import type { Segment } from "@/lib/display/reveal";
import { countLabel, highlight, pathKey } from "@/lib/display/tree-state";
import { MoreButton } from "./json-tree-more";
import { Flag, Segments } from "./revealed-text";

export type TreeActions = {
  /** The search query whose occurrences are marked ("" for none). */
  query: string;
  isOpen: (key: string, depth: number, size: number) => boolean;
  setOpen: (key: string, open: boolean) => void;
  loadChildren: (path: number[], from: number) => Promise<void>;
  loadText: (path: number[], part: "value" | "key", from: number) => Promise<void>;
};

export const TreeContext = createContext<TreeActions | null>(null);

function useTree(): TreeActions {
  const ctx = useContext(TreeContext);
  if (!ctx) throw new Error("argument rows outside their tree");
  return ctx;
}

const segText = (s: Segment) => ("t" in s ? s.t : "e" in s ? s.e : s.m);

/** Segments with the query's occurrences marked (within one segment; the count comes from the server). */
function Shown({ segments }: { segments: readonly Segment[] }) {
  const { query } = useTree();
  if (!query) return <Segments segments={segments} />;
  return (
    <>
      {segments.map((s, i) =>
        highlight(segText(s), query).some((p) => p.hit) ? (
          <span key={i} data-hit="">
            {highlight(segText(s), query).map((p, j) =>
              p.hit ? (
                <mark key={j} className="rounded-sm bg-yellow-300 text-slate-900" data-match="">
                  {p.text}
                </mark>
              ) : (
                <Segments key={j} segments={[{ ...s, ...("t" in s ? { t: p.text } : "e" in s ? { e: p.text } : { m: p.text }) } as Segment]} />
              ),
            )}
          </span>
        ) : (
          <Segments key={i} segments={[s]} />
        ),
      )}
    </>
  );
}

const MORE = "font-sans text-xs text-slate-600";

function RestOfText({ path, part, rest, at }: { path: number[]; part: "value" | "key"; rest: number; at: number }) {
  const tree = useTree();
  if (rest <= 0) return null;
  return (
    <span className={MORE}>
      {" "}
      … ({rest.toLocaleString("en-US")} more character{rest === 1 ? "" : "s"})
      <MoreButton label="Show all" load={() => tree.loadText(path, part, at)} />
    </span>
  );
}

function Key({ name, path }: { name: KeyView | number | null; path: number[] }) {
  if (name === null) return null;
  if (typeof name === "number") return <span className="text-slate-500">{name}: </span>;
  return (
    <span className="text-slate-500">
      <bdi dir="ltr" data-key="">
        <Shown segments={name.segments} />
        <RestOfText path={path} part="key" rest={name.rest} at={name.at} />
      </bdi>
      :{" "}
    </span>
  );
}

const keyFlag = (key: KeyView | number | null) => (key !== null && typeof key === "object" && key.flag ? `key: ${key.flag}` : null);

const ROW = "min-h-6 py-0.5 [overflow-wrap:anywhere]";

function Node({ node, path, depth }: { node: NodeView; path: number[]; depth: number }) {
  const tree = useTree();
  if (node.k === "leaf") {
    const tone = node.redacted ? "rounded bg-amber-100 px-1 text-amber-900" : node.type === "string" ? "text-slate-800" : "text-blue-900";
    return (
      <li className={ROW}>
        <Key name={node.key} path={path} />
        <bdi dir="ltr" className={tone} data-value="">
          <Shown segments={node.segments} />
          <RestOfText path={path} part="value" rest={node.rest} at={node.at} />
        </bdi>
        <Flag reason={keyFlag(node.key)} block />
        <Flag reason={node.flag} block />
      </li>
    );
  }
  const key = pathKey(path);
  const open = node.size > 0 && tree.isOpen(key, depth, node.size);
  const count = node.type === "array" ? `[${countLabel("array", node.size)}]` : `{${countLabel("object", node.size)}}`;
  return (
    <li className={ROW} data-container={node.type}>
      <Key name={node.key} path={path} />
      {node.size === 0 ? (
        <span className="text-slate-500">{node.type === "array" ? "[]" : "{}"}</span>
      ) : (
        <button
          type="button"
          aria-expanded={open}
          className="inline-flex min-h-6 items-center gap-1 rounded px-1 text-slate-600 hover:bg-slate-100"
          onClick={() => tree.setOpen(key, !open)}
        >
          <span aria-hidden="true">{open ? "▾" : "▸"}</span>
          {count}
        </button>
      )}
      <Flag reason={keyFlag(node.key)} />
      {open && <Children parent={node} path={path} depth={depth} />}
    </li>
  );
}

/** A container's children (by position, or by `i` in search results), then what is not shown yet. */
export function Children({ parent, path, depth }: { parent: BranchView; path: number[]; depth: number }) {
  const tree = useTree();
  const shown = parent.children.length;
  const noun = parent.type === "array" ? "item" : "key";
  return (
    <ul className="ml-2 border-l border-slate-200 pl-3 dark:border-slate-600">
      {parent.children.map((n, idx) => {
        const pos = n.i ?? idx;
        return <Node key={pos} node={n} path={[...path, pos]} depth={depth + 1} />;
      })}
      {parent.partial
        ? // A search result: only the matches; a container (not the root) can be loaded whole.
          path.length > 0 && (
            <li className={`${ROW} ${MORE}`}>
              {shown === 0 ? "" : "Matches only. "}
              <MoreButton label={`Show all ${countLabel(parent.type, parent.size)}`} load={() => tree.loadChildren(path, 0)} />
            </li>
          )
        : shown < parent.size && (
            <li className={`${ROW} ${MORE}`}>
              … {(parent.size - shown).toLocaleString("en-US")} more {noun}
              {parent.size - shown === 1 ? "" : "s"}
              <MoreButton label="Show more" load={() => tree.loadChildren(path, shown)} />
            </li>
          )}
    </ul>
  );
}
