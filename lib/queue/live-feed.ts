// The live queue's change feed: the queue's version, what changed between two
// versions, and one watcher per server process that fans changes out to every
// open queue page (lib/queue/event-stream.ts).
//
// The watcher sleeps in waitForChange(null, …) (lib/approvals/changes.ts:
// woken at once by changes made in this process, by PostgreSQL NOTIFY from
// other instances, or by its poll), then reads the queue version (one
// primary-key read) and fans real changes out to the subscribed streams. A
// hundred open pages cost one small query per wake-up, plus one for the
// changed requests' visibility facts, which each stream filters by with
// visibleTo() (docs/security.md: no ids of requests one may not see).
import "server-only";
import { waitForChange } from "../approvals/changes";
import { db } from "../db/client";
import { errorFields, log } from "../log";
import { loadVisibilityFacts, type VisibilityFacts } from "../reviews/visibility";

/**
 * The queue's version: the sequence number of the newest audit event. Every
 * change a queue shows (a request arriving, a review, a decision, an expiry,
 * a cancellation, a role change) appends one in the same transaction, on
 * every instance, so a live page can tell "changed since I rendered" with
 * one primary-key read.
 */
export async function getQueueVersion(): Promise<number> {
  const head = await db().auditHead.findUnique({ where: { id: 1 }, select: { seq: true } });
  return head?.seq ?? 0;
}

const QUEUE_EVENT_TYPES = [
  "approval.requested",
  "review.recorded",
  "approval.decided",
  "approval.expired",
  "approval.cancelled",
  "role.granted",
  "role.revoked",
  "role.expired",
] as const;

/**
 * What changed for queues between two versions: the request ids (at most
 * `limit`; `more` when there were others) and whether someone's roles changed
 * (which can change what they may see), or null if nothing a queue shows.
 * Ids are not filtered here: each viewer's stream keeps only those it may see.
 */
export async function findQueueChanges(
  since: number,
  until: number,
  limit = 50,
): Promise<{ ids: string[]; more: boolean; rolesChanged: boolean } | null> {
  const events = await db().auditEvent.findMany({
    where: { seq: { gt: since, lte: until }, type: { in: [...QUEUE_EVENT_TYPES] } },
    orderBy: { seq: "asc" },
    select: { approvalId: true, type: true },
    take: 500,
  });
  if (events.length === 0) return null;
  const ids = [...new Set(events.flatMap((e) => (e.approvalId ? [e.approvalId] : [])))];
  const rolesChanged = events.some((e) => e.type.startsWith("role."));
  return { ids: ids.slice(0, limit), more: ids.length > limit || events.length === 500, rolesChanged };
}

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

// On globalThis: one watcher per process even if the bundler loads this
// module more than once (one copy per route bundle).
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
