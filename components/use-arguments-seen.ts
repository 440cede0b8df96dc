"use client";
// The decision bar's two ties to the page around it: below lg it is fixed to
// the bottom of the window, so the page is told its height (--decision-bar-h:
// the room left under the page and the scroll padding that keeps a focused
// element from hiding under it), and it watches whether the reviewer has had
// the arguments in front of them (lib/display/arguments-seen) before Approve
// does anything. The page marks what counts with data-arguments-view.
import { useEffect, useState, type RefObject } from "react";
import { firstScreenSeen } from "@/lib/display/arguments-seen";

const VIEWS = "[data-arguments-view]";
const VAR = "--decision-bar-h";

const isFixed = (el: HTMLElement) => getComputedStyle(el).position === "fixed";

/** Keeps --decision-bar-h on <html> equal to the bar's height while the bar is fixed; removes it otherwise. */
export function useBarHeight(bar: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const el = bar.current;
    if (!el) return;
    const root = document.documentElement;
    const update = () => {
      if (isFixed(el)) root.style.setProperty(VAR, `${Math.ceil(el.getBoundingClientRect().height)}px`);
      else root.style.removeProperty(VAR);
    };
    update();
    const observer = new ResizeObserver(update);
    observer.observe(el);
    window.addEventListener("resize", update);
    return () => {
      observer.disconnect();
      window.removeEventListener("resize", update);
      root.style.removeProperty(VAR);
    };
  }, [bar]);
}

/**
 * True once the arguments' first screen was in view above the bar, or the
 * reviewer focused or clicked inside them; null until the page has been
 * looked at once in the browser (the server's render: not yet known).
 */
export function useArgumentsSeen(bar: RefObject<HTMLElement | null>): boolean | null {
  const [seen, setSeen] = useState<boolean | null>(null);
  useEffect(() => {
    if (seen) return;
    const views = Array.from(document.querySelectorAll<HTMLElement>(VIEWS));
    if (views.length === 0) {
      setSeen(true);
      return;
    }
    let frame = 0;
    const check = () => {
      frame = 0;
      const el = bar.current;
      const bottom = el && isFixed(el) ? el.getBoundingClientRect().top : window.innerHeight;
      const band = { top: 0, bottom };
      if (views.some((v) => firstScreenSeen(v.getBoundingClientRect(), band))) setSeen(true);
    };
    const soon = () => {
      if (!frame) frame = requestAnimationFrame(check);
    };
    const inside = (e: Event) => {
      if (e.target instanceof Node && views.some((v) => v.contains(e.target as Node))) setSeen(true);
    };
    check();
    setSeen((s) => s ?? false);
    window.addEventListener("scroll", soon, { passive: true });
    window.addEventListener("resize", soon);
    document.addEventListener("focusin", inside);
    document.addEventListener("pointerdown", inside);
    return () => {
      if (frame) cancelAnimationFrame(frame);
      window.removeEventListener("scroll", soon);
      window.removeEventListener("resize", soon);
      document.removeEventListener("focusin", inside);
      document.removeEventListener("pointerdown", inside);
    };
  }, [seen, bar]);
  return seen;
}
