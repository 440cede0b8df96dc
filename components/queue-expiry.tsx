"use client";
// A pending row's time left, marked amber ("Expires soon") or red ("Expires
// very soon") as its end nears (lib/queue/urgency.ts), in words as well as
// colour. Re-evaluated every second, like the countdown beside it.
import { Countdown, useNow } from "@/components/time";
import { expiryUrgency, type Urgency } from "@/lib/queue/urgency";

// On the tinted mark the countdown's grey local time takes the mark's own colour (contrast).
const STYLE: Record<Urgency, string> = {
  soon: "rounded bg-amber-100 px-1.5 text-amber-900 outline outline-1 outline-amber-400 [&_.text-slate-500]:text-current",
  "very-soon": "rounded bg-red-100 px-1.5 text-red-900 outline outline-2 outline-red-600 [&_.text-slate-500]:text-current",
};
const WORDS: Record<Urgency, string> = { soon: "Expires soon", "very-soon": "Expires very soon" };

export function QueueExpiry({ createdAt, expiresAt }: { createdAt: string; expiresAt: string }) {
  const now = useNow();
  const urgency = now === null ? null : expiryUrgency(Date.parse(createdAt), Date.parse(expiresAt), now);
  return (
    <span data-testid="expiry" data-urgency={urgency ?? "none"} className={urgency ? STYLE[urgency] : undefined}>
      {urgency && <strong className="font-semibold">{WORDS[urgency]}: </strong>}
      <Countdown until={expiresAt} />
    </span>
  );
}
