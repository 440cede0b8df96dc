"use client";
// Single-key shortcuts for reviewers, and the "?" dialog that lists them.
// On the decision page j/k open the next/previous request and a/d move focus
// to Approve/Deny: a key never submits anything, the focused button still
// needs Enter or Space. On the queue page j/k move focus between rows (Enter
// opens one). Keys typed into a field, or with Ctrl/Alt/Meta, are left alone.
import { useRouter } from "next/navigation";
import { useEffect, useRef } from "react";

type Props = { mode: "queue" } | { mode: "decision"; prevHref: string | null; nextHref: string | null };

const LISTS: Record<Props["mode"], Array<[string, string]>> = {
  decision: [
    ["j", "Next request"],
    ["k", "Previous request"],
    ["a", "Focus Approve (then Enter to approve)"],
    ["d", "Focus Deny (then Enter to deny)"],
    ["?", "Show this help"],
  ],
  queue: [
    ["j", "Focus the next request"],
    ["k", "Focus the previous request"],
    ["Enter", "Open the focused request"],
    ["?", "Show this help"],
  ],
};

function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

/** The queue rows' links, in page order (one per row: its first link). */
function rowLinks(): HTMLAnchorElement[] {
  const rows = document.querySelectorAll<HTMLElement>("main article[data-approval-id]");
  return [...rows].map((r) => r.querySelector<HTMLAnchorElement>("a[href]")).filter((a): a is HTMLAnchorElement => a !== null);
}

function moveInQueue(step: 1 | -1) {
  const links = rowLinks();
  if (links.length === 0) return;
  const current = links.findIndex((a) => a.closest("article")?.contains(document.activeElement));
  const to = current === -1 ? (step === 1 ? 0 : links.length - 1) : Math.min(links.length - 1, Math.max(0, current + step));
  links[to]!.focus();
  links[to]!.scrollIntoView({ block: "nearest" });
}

export function KeyboardShortcuts(props: Props) {
  const router = useRouter();
  const dialog = useRef<HTMLDialogElement>(null);
  const propsRef = useRef(props);
  useEffect(() => {
    propsRef.current = props;
  });

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.repeat || typing(e.target)) return;
      if (dialog.current?.open) return;
      const p = propsRef.current;
      const act = (f: () => void) => {
        e.preventDefault();
        f();
      };
      if (e.key === "?") return act(() => dialog.current?.showModal());
      if (p.mode === "queue") {
        if (e.key === "j") act(() => moveInQueue(1));
        else if (e.key === "k") act(() => moveInQueue(-1));
        return;
      }
      const target = { j: p.nextHref, k: p.prevHref }[e.key];
      if (target) return act(() => router.push(target));
      const button = { a: "decision-approve", d: "decision-deny" }[e.key];
      const el = button ? document.getElementById(button) : null;
      if (el) act(() => el.focus());
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [router]);

  return (
    <>
      <button
        type="button"
        onClick={() => dialog.current?.showModal()}
        // Not offered on touch screens (a coarse pointer), which have no keyboard to use them with.
        className="rounded border border-slate-300 px-2 py-1 text-sm hover:bg-slate-100 pointer-coarse:hidden"
        aria-keyshortcuts="Shift+?"
      >
        Keyboard shortcuts
      </button>
      <dialog
        ref={dialog}
        aria-labelledby="shortcuts-h"
        className="m-auto w-80 max-w-[90vw] rounded border border-slate-300 p-4 shadow-lg backdrop:bg-black/30"
      >
        <h2 id="shortcuts-h" className="mb-2 text-lg font-semibold">
          Keyboard shortcuts
        </h2>
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
          {LISTS[props.mode].map(([key, what]) => (
            <div key={key} className="contents">
              <dt>
                <kbd className="rounded border border-slate-400 px-1.5 font-mono">{key}</kbd>
              </dt>
              <dd>{what}</dd>
            </div>
          ))}
        </dl>
        <p className="mt-2 text-xs text-slate-600">Shortcuts do nothing while you type in a field. Escape closes this.</p>
        <form method="dialog" className="mt-3 text-right">
          <button className="rounded border border-slate-300 px-3 py-1 text-sm hover:bg-slate-100">Close</button>
        </form>
      </dialog>
    </>
  );
}
