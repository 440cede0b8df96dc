// One watcher per server process, shared by every open queue page: it sleeps
// in waitForChange(null, …) (woken at once by changes made in this process,
// by PostgreSQL NOTIFY from other instances, or by its poll), then reads the
// queue version (one primary-key read) and fans real changes out to the
// subscribed streams. A hundred open pages cost one small query per wake-up,
// plus one for the changed requests' visibility facts, which each stream
// filters by with visibleTo() (CONTRACT §19: no ids of requests one may not see).
import "server-only";
import { waitForChange } from "@/lib/approvals/changes";
import { findQueueChanges, getQueueVersion } from "@/lib/approvals/find-queue";
import { errorFields, log } from "@/lib/log";
import { loadVisibilityFacts, type VisibilityFacts } from "@/lib/reviews/visibility";

export type QueueChange = {
  version: number;
  ids: string[];
  more: boolean;
  /** Someone's roles changed: streams re-read their viewer before filtering. */
  rolesChanged: boolean;
  /** visibleTo() facts of `ids` (a request deleted meanwhile has none: shown to nobody). */
  facts: Map<string, VisibilityFacts>;
};
type Listener = (change: QueueChange) => void;

type Watch = { listeners: Set<Listener>; running: boolean; stop?: AbortController };
const g = globalThis as unknown as { countersignQueueWatch?: Watch };
const watch: Watch = (g.countersignQueueWatch ??= { listeners: new Set(), running: false });

const RETRY_AFTER_ERROR_MS = 2000;

async function run(): Promise<void> {
  watch.running = true;
  const stop = new AbortController();
  watch.stop = stop;
  try {
    let seen = await getQueueVersion();
    while (watch.listeners.size > 0) {
      await waitForChange(null, 15_000, stop.signal);
      if (watch.listeners.size === 0) break;
      const now = await getQueueVersion();
      if (now === seen) continue;
      const change = await findQueueChanges(seen, now);
      seen = now;
      if (!change) continue;
      const facts = await loadVisibilityFacts(change.ids);
      for (const listener of [...watch.listeners]) listener({ version: now, ...change, facts });
    }
  } catch (e) {
    log.warn("queue watcher failed; retrying", errorFields(e));
    await new Promise((r) => setTimeout(r, RETRY_AFTER_ERROR_MS));
  } finally {
    watch.running = false;
    watch.stop = undefined;
    // A page subscribed while this loop was ending: start again.
    if (watch.listeners.size > 0) void run();
  }
}

/** Calls `listener` on every queue change from now on; returns the unsubscribe function. */
export function subscribeQueueChanges(listener: Listener): () => void {
  watch.listeners.add(listener);
  if (!watch.running) void run();
  return () => {
    watch.listeners.delete(listener);
    if (watch.listeners.size === 0) watch.stop?.abort();
  };
}
