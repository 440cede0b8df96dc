// How close a pending request is to expiring, for the queue's amber and red
// marks: within a fixed time of its end, or within a share of its lifetime,
// whichever comes first. Amber within the hour (issue 36: a request with 16
// minutes left must not read like one with a day left), so a request that
// lives an hour is amber from the start; a 24 h one turns amber with 20 %
// (4 h 48 min) left. Red within 5 minutes, or 5 % of the lifetime.

export type Urgency = "soon" | "very-soon";

const MINUTE = 60_000;
const AMBER = { ms: 60 * MINUTE, share: 0.2 };
const RED = { ms: 5 * MINUTE, share: 0.05 };

/** null while there is time enough, or once expired. */
export function expiryUrgency(createdAt: number, expiresAt: number, now: number): Urgency | null {
  const left = expiresAt - now;
  if (left <= 0) return null;
  const life = Math.max(expiresAt - createdAt, 0);
  const within = (t: { ms: number; share: number }) => left <= Math.max(t.ms, t.share * life);
  if (within(RED)) return "very-soon";
  if (within(AMBER)) return "soon";
  return null;
}
