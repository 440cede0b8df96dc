// The one way Countersign words times and durations, on the server and in the
// browser alike: readable durations ("24 h", "1 h 30 min", "45 s") and an
// absolute UTC form for tooltips and exports. Local wall-clock time needs the
// viewer's time zone, so it is formatted in the browser (components/time.tsx).

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * A duration as people say it: the two largest non-zero units, "24 h" rather
 * than "1440 min". `seconds: true` keeps seconds below an hour (for a
 * countdown that visibly moves); otherwise they show only under a minute.
 */
export function humanDuration(ms: number, options: { seconds?: boolean } = {}): string {
  const total = Math.max(0, Math.round(ms / 1000));
  if (total < MINUTE) return `${total} s`;
  // Days only from two on: "36 h" reads better than "1 d 12 h".
  const d = total >= 2 * DAY ? Math.floor(total / DAY) : 0;
  const h = Math.floor((total - d * DAY) / HOUR);
  const m = Math.floor((total % HOUR) / MINUTE);
  const s = total % MINUTE;
  if (d > 0) return h > 0 ? `${d} d ${h} h` : `${d} d`;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  if (options.seconds && s > 0) return `${m} min ${s} s`;
  return `${m} min`;
}

/** Seconds (a policy's lifetime, a limit) worded like any other duration. */
export function humanSeconds(seconds: number): string {
  return humanDuration(seconds * 1000);
}

/** "2026-11-30 13:40:12 UTC": the unambiguous form, for tooltips and files. */
export function utcLabel(at: Date | string): string {
  const d = typeof at === "string" ? new Date(at) : at;
  if (Number.isNaN(d.getTime())) return "—";
  return `${d.toISOString().replace("T", " ").slice(0, 19)} UTC`;
}
