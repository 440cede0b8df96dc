"use client";
// Times shown relative (updating every second) with the absolute time beside.
import { useEffect, useState } from "react";

function useNow(): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return now;
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

export function Countdown({ until }: { until: string }) {
  const now = useNow();
  const left = now === null ? null : new Date(until).getTime() - now;
  return (
    <span>
      <span data-testid="countdown">{left === null ? "…" : left > 0 ? `${formatDuration(left)} left` : "expired"}</span>{" "}
      <time dateTime={until} className="text-slate-500">
        ({new Date(until).toISOString().replace("T", " ").slice(0, 19)} UTC)
      </time>
    </span>
  );
}

export function Ago({ at }: { at: string }) {
  const now = useNow();
  return (
    <span>
      {now === null ? "" : `${formatDuration(now - new Date(at).getTime())} ago `}
      <time dateTime={at} className="text-slate-500">
        ({new Date(at).toISOString().replace("T", " ").slice(0, 19)} UTC)
      </time>
    </span>
  );
}
