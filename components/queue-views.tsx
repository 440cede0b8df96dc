// Whose requests the queue shows: everything the viewer may see, their own
// ("My requests"), or those they voted on ("Decided by me"). Links, so a
// view is a URL; filters and search carry over, cursors do not.
import Link from "next/link";
import type { QueueView } from "@/lib/queue/query-params";

const VIEWS: Array<[QueueView | null, string]> = [
  [null, "All requests"],
  ["mine", "My requests"],
  ["voted", "Decided by me"],
];

export function QueueViews({ current, hrefOf }: { current: QueueView | null; hrefOf: (view: QueueView | null) => string }) {
  return (
    <nav aria-label="Views">
      <ul className="flex flex-wrap gap-2 text-sm">
        {VIEWS.map(([view, label]) => (
          <li key={label}>
            <Link
              href={hrefOf(view)}
              aria-current={view === current ? "page" : undefined}
              className="flex min-h-11 items-center rounded-full border border-slate-300 px-3 py-1 hover:bg-slate-100 aria-[current=page]:border-slate-900 aria-[current=page]:bg-slate-900 aria-[current=page]:text-white"
            >
              {label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
