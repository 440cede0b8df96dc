"use client";
// Keeps an open queue page, or one request's decision page (`watch`: its
// id), current: listens to /api/approvals/events and re-renders the page (router.refresh(), which keeps scroll, focus and form
// state) shortly after a change. Reconnects with back-off; on reconnect it
// passes the last version it saw, so a change missed while away still counts.
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";

const DEBOUNCE_MS = 250;
const MIN_INTERVAL_MS = 1000;
const MAX_BACKOFF_MS = 30_000;

type State = "connecting" | "live" | "reconnecting";

/** True when a `changed` event concerns the watched request (or may: `more`); every event counts without one. */
function concerns(data: { ids?: unknown; more?: unknown }, watch: string | undefined): boolean {
  if (watch === undefined || data.more === true) return true;
  return Array.isArray(data.ids) && data.ids.includes(watch);
}

export function QueueLiveRefresh({ version, watch }: { version: number; watch?: string }) {
  const router = useRouter();
  const [state, setState] = useState<State>("connecting");
  const versionRef = useRef(version);

  // A refreshed render brings a newer version: reconnects start from it.
  useEffect(() => {
    if (version > versionRef.current) versionRef.current = version;
  }, [version]);

  useEffect(() => {
    let source: EventSource | null = null;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let refreshTimer: ReturnType<typeof setTimeout> | undefined;
    let lastRefresh = 0;
    let failures = 0;
    let stopped = false;

    const refreshSoon = () => {
      if (refreshTimer) return;
      const wait = Math.max(DEBOUNCE_MS, lastRefresh + MIN_INTERVAL_MS - Date.now());
      refreshTimer = setTimeout(() => {
        refreshTimer = undefined;
        lastRefresh = Date.now();
        router.refresh();
      }, wait);
    };

    const seen = (e: MessageEvent<string>): { ids?: unknown; more?: unknown } => {
      try {
        const data = JSON.parse(e.data) as { version?: unknown; ids?: unknown; more?: unknown };
        if (typeof data.version === "number" && data.version > versionRef.current) versionRef.current = data.version;
        return data;
      } catch {
        return { more: true }; // not ours: refresh to be safe
      }
    };

    const connect = () => {
      if (stopped) return;
      source = new EventSource(`/api/approvals/events?since=${versionRef.current}`);
      source.addEventListener("ready", (e) => {
        failures = 0;
        setState("live");
        seen(e as MessageEvent<string>);
      });
      source.addEventListener("changed", (e) => {
        if (concerns(seen(e as MessageEvent<string>), watch)) refreshSoon();
      });
      source.onerror = () => {
        // Reconnect ourselves (the browser gives up on a 401 or a bad
        // response), with the newest version we saw.
        source?.close();
        setState("reconnecting");
        failures++;
        const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(failures - 1, 5));
        retryTimer = setTimeout(connect, delay);
        // A session that ended shows as the sign-in page after a refresh.
        if (failures === 3) refreshSoon();
      };
    };

    connect();
    return () => {
      stopped = true;
      source?.close();
      clearTimeout(retryTimer);
      clearTimeout(refreshTimer);
    };
  }, [router, watch]);

  return (
    <p className="flex items-center gap-1.5 text-xs text-slate-600" data-testid="live-status" data-state={state} aria-live="polite">
      <span aria-hidden="true" className={`inline-block h-2 w-2 rounded-full ${state === "live" ? "bg-green-600" : "bg-amber-500"}`} />
      {state === "live" ? "Live" : state === "connecting" ? "Connecting…" : "Reconnecting…"}
    </p>
  );
}
