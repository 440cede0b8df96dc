// How close a pending request is to expiring, for the queue's amber and red
// marks: within a fixed time of its end, or within a share of its lifetime,
// whichever comes first. A 10 min request is amber from the start (a reviewer
// has less than 15 min); a 24 h one turns amber with 20 % (4 h 48 min) left.

export type Urgency = "soon" | "very-soon";

const MINUTE = 60_000;
const AMBER = { ms: 15 * MINUTE, share: 0.2 };
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
