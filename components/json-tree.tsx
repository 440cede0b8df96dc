"use client";
// The decision page's arguments viewer: the bounded first render
// (lib/display/bounded-tree) as a tree whose big containers start collapsed
// with their counts, Expand all / Collapse all, a search over the whole
// arguments and a raw canonical JSON view. Everything beyond the first render
// comes from GET /api/approvals/{id}/arguments (pages, search, canonical
// JSON), already redacted and revealed; the pure steps are in
// lib/display/tree-state.
import { useEffect, useId, useMemo, useRef, useState } from "react";
import type { BranchView } from "@/lib/display/bounded-tree";
import { addChildren, addText, countLabel, notLoadedText, openByDefault, unloaded, type Unloaded } from "@/lib/display/tree-state";
import { ArgumentRaw } from "./argument-raw";
import { Children, TreeContext, type TreeActions } from "./argument-rows";
import { fetchArguments, SMALL_BUTTON } from "./json-tree-more";

type OpenState = { mode: "default" | "all" | "none"; overrides: Record<string, boolean> };
type Search = { query: string; total: number; shown: number; tree: BranchView } | null;

/** Pages fetched by one Expand all before it stops and says what is left (a page is at most 300 nodes). */
const EXPAND_ALL_PAGES = 24;

function useTreeActions(
  approvalId: string,
  setTree: (f: (t: BranchView) => BranchView) => void,
  open: OpenState,
  setOpen: (f: (o: OpenState) => OpenState) => void,
  query: string,
): TreeActions {
  return useMemo(
    () => ({
      query,
      isOpen: (key, depth, size) => open.overrides[key] ?? (open.mode === "all" ? true : open.mode === "none" ? false : openByDefault(depth, size)),
      setOpen: (key, value) => setOpen((o) => ({ ...o, overrides: { ...o.overrides, [key]: value } })),
      loadChildren: async (path, from) => {
        const page = await fetchArguments(approvalId, { path: path.join("."), from: String(from) });
        if (page.kind === "children") setTree((t) => addChildren(t, path, from, page.children));
      },
      loadText: async (path, part, from) => {
        for (let next: number | null = from; next !== null;) {
          const at: number = next;
          const page = await fetchArguments(approvalId, { path: path.join("."), from: String(at), ...(part === "key" ? { part } : {}) });
          if (page.kind !== "text") return;
          setTree((t) => addText(t, path, part, page.segments, page.next));
          next = page.next;
        }
      },
    }),
    [approvalId, setTree, open, setOpen, query],
  );
}

export function JsonTree({ approvalId, root }: { approvalId: string; root: BranchView }) {
  const [tree, setTree] = useState(root);
  const [open, setOpen] = useState<OpenState>({ mode: "default", overrides: {} });
  const [search, setSearch] = useState<Search>(null);
  const [searchOpen, setSearchOpen] = useState<OpenState>({ mode: "all", overrides: {} });
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);
  const treeRef = useRef(tree);
  useEffect(() => {
    treeRef.current = tree;
  }, [tree]);
  const typing = useRef<ReturnType<typeof setTimeout> | null>(null);
  const inputId = useId();

  const setSearchTree = useMemo(() => (f: (t: BranchView) => BranchView) => setSearch((s) => (s ? { ...s, tree: f(s.tree) } : s)), []);
  const mainActions = useTreeActions(approvalId, setTree, open, setOpen, "");
  const searchActions = useTreeActions(approvalId, setSearchTree, searchOpen, setSearchOpen, search?.query ?? "");

  const expandAll = async () => {
    setOpen({ mode: "all", overrides: {} });
    setSearch(null);
    let current = treeRef.current;
    setBusy(true);
    setStatus("Loading the rest of the arguments…");
    try {
      for (let n = 0; n < EXPAND_ALL_PAGES; n++) {
        if (n > 0) setStatus(`Loading the rest of the arguments… (page ${n + 1})`);
        const next: Unloaded | undefined = unloaded(current)[0];
        if (!next) break;
        const page = await fetchArguments(approvalId, { path: next.path.join("."), from: String(next.from) });
        if (page.kind !== "children") break;
        current = addChildren(current, next.path, next.from, page.children);
        setTree((t) => addChildren(t, next.path, next.from, page.children));
      }
      const left = notLoadedText(current);
      setStatus(left ? `Expanded. Not loaded yet: ${left} (use Show more, or search).` : "Expanded: all arguments are shown.");
    } catch (e) {
      setStatus(`Expanded what was loaded. ${e instanceof Error ? e.message : "Could not load the rest."}`);
    } finally {
      setBusy(false);
    }
  };

  const searchSeq = useRef(0);
  const runSearch = async (query: string) => {
    const q = query.trim();
    const mine = ++searchSeq.current; // only the latest search's answer is shown
    if (!q) {
      setSearch(null);
      setStatus("");
      return;
    }
    setBusy(true);
    try {
      const res = await fetchArguments(approvalId, { q });
      if (res.kind !== "search" || mine !== searchSeq.current) return;
      setSearchOpen({ mode: "all", overrides: {} });
      setSearch({ query: q, total: res.total, shown: res.shown, tree: res.tree });
      const count = `${res.total.toLocaleString("en-US")} match${res.total === 1 ? "" : "es"}`;
      setStatus(res.total === 0 ? "No matches" : res.shown < res.total ? `${count}; showing the first ${res.shown.toLocaleString("en-US")}` : count);
    } catch (e) {
      setStatus(e instanceof Error ? e.message : "Search failed.");
    } finally {
      setBusy(false);
    }
  };

  const shown = search ? search.tree : tree;
  const actions = search ? searchActions : mainActions;
  return (
    <div className="flex min-w-0 flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <button type="button" className={SMALL_BUTTON} disabled={busy} onClick={() => void expandAll()}>
          Expand all
        </button>
        <button
          type="button"
          className={SMALL_BUTTON}
          onClick={() => {
            setOpen({ mode: "none", overrides: {} });
            setSearchOpen({ mode: "none", overrides: {} });
            setStatus("");
          }}
        >
          Collapse all
        </button>
        <form
          role="search"
          aria-label="Search in the arguments"
          className="flex w-full min-w-0 items-center gap-1 sm:w-auto sm:flex-1"
          onSubmit={(e) => {
            e.preventDefault();
            void runSearch(String(new FormData(e.currentTarget).get("q") ?? ""));
          }}
        >
          <label htmlFor={inputId} className="sr-only">
            Search keys and values
          </label>
          <input
            id={inputId}
            name="q"
            type="search"
            maxLength={200}
            placeholder="Search keys and values"
            className="min-h-6 min-w-0 flex-1 rounded border border-slate-300 bg-white px-2 py-0.5 text-sm text-slate-900"
            onChange={(e) => {
              // Searches as the reviewer types, once they pause.
              const value = e.currentTarget.value;
              if (typing.current) clearTimeout(typing.current);
              typing.current = setTimeout(() => void runSearch(value), value.trim() === "" ? 0 : 400);
            }}
          />
          <button type="submit" className={SMALL_BUTTON} disabled={busy}>
            Search
          </button>
        </form>
      </div>
      <p role="status" className="min-h-5 text-sm text-slate-700" data-testid="arguments-status">
        {status}
      </p>
      <div className="min-w-0 font-mono text-sm" aria-label="Arguments (redacted)" role="group">
        <span className="text-slate-500">
          {shown.type === "array" ? `[${countLabel("array", shown.size)}]` : `{${countLabel("object", shown.size)}}`}
          {search && (
            <span className="font-sans">
              {" "}
              · matches for “<bdi>{search.query}</bdi>”
            </span>
          )}
        </span>
        <TreeContext value={actions}>
          <Children parent={shown} path={[]} depth={0} />
        </TreeContext>
      </div>
      <ArgumentRaw approvalId={approvalId} />
    </div>
  );
}
