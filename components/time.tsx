"use client";
// Every time on a page goes through here: relative ("5 min ago", "12 min
// left", updating every second) or absolute in the viewer's local time, with
// the UTC time on hover. Wording comes from lib/format/time.ts.
import { useEffect, useState } from "react";
import { humanDuration, utcLabel } from "@/lib/format/time";

/** Now, in ms, ticking every second once in the browser (null during the server render). */
export function useNow(): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return now;
}

const LOCAL = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** Local wall-clock time once in the browser (UTC until then, so the server render is stable). */
export function LocalTime({ at }: { at: string }) {
  const [local, setLocal] = useState<string | null>(null);
  useEffect(() => setLocal(LOCAL.format(new Date(at))), [at]);
  return (
    <time dateTime={at} title={utcLabel(at)}>
      {local ?? utcLabel(at)}
    </time>
  );
}

export function Countdown({ until }: { until: string }) {
  const now = useNow();
  const left = now === null ? null : new Date(until).getTime() - now;
  return (
    <span>
      <span data-testid="countdown">
        {left === null ? "…" : left > 0 ? `${humanDuration(Math.ceil(left / 1000) * 1000, { seconds: true })} left` : "expired"}
      </span>{" "}
      <span className="text-slate-500">
        (<LocalTime at={until} />)
      </span>
    </span>
  );
}

export function Ago({ at }: { at: string }) {
  const now = useNow();
  return (
    <span>
      {now === null ? "" : `${humanDuration(now - new Date(at).getTime())} ago `}
      <span className="text-slate-500">
        (<LocalTime at={at} />)
      </span>
    </span>
  );
}

/** "expires in 23 min" (or "expired"), ticking: for the decision bar and the top of a request's page. */
export function TimeLeft({ until, testId }: { until: string; testId?: string }) {
  const now = useNow();
  const left = now === null ? null : Date.parse(until) - now;
  return (
    <span data-testid={testId} title={utcLabel(until)}>
      {left === null
        ? "expires …"
        : left > 0
          ? `expires in ${humanDuration(Math.ceil(left / 1000) * 1000, { seconds: left < 3_600_000 })}`
          : "expired"}
    </span>
  );
}
