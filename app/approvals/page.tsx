import type { Metadata } from "next";
import Link from "next/link";
import { cache } from "react";
import { AppHeader } from "@/components/app-header";
import { QueueFilters } from "@/components/queue-filters";
import { KeyboardShortcuts } from "@/components/keyboard-shortcuts";
import { QueueLiveRefresh } from "@/components/queue-live-refresh";
import { QueueSection } from "@/components/queue-section";
import { QueueViews } from "@/components/queue-views";
import { requireUserPage } from "@/lib/auth/guards";
import { signOutAction } from "@/app/actions/auth";
import { findQueue, listQueueServices, type QueueSection as Section } from "@/lib/queue/find-queue";
import { getQueueVersion } from "@/lib/queue/live-feed";
import { countRecentlyExpired } from "@/lib/queue/recently-expired";
import { countStandingToApprove } from "@/lib/standing/standing-approvals";
import { carriedSearch, parseQueueQuery, type QueueQueryParam, type QueueView } from "@/lib/queue/query-params";

export const dynamic = "force-dynamic";

const PAGE_SIZE = 20;

type SearchParams = Record<string, string | string[] | undefined>;
type Raw = Partial<Record<QueueQueryParam, string>>;

function href(raw: Raw, change: Partial<Record<QueueQueryParam, string | null>>): string {
  const params = new URLSearchParams();
  const merged: Record<string, string | null | undefined> = { ...raw, ...change };
  for (const [k, v] of Object.entries(merged)) if (v) params.set(k, v);
  const qs = params.toString();
  return qs ? `/approvals?${qs}` : "/approvals";
}

/** The viewer and their queue, read once per render (the title and the page share it); keyed by the valid parameters. */
const load = cache(async (rawKey: string) => {
  const user = await requireUserPage();
  const { query } = parseQueueQuery(JSON.parse(rawKey) as Raw);
  // Version first: a change landing while the page renders is then reported
  // by the live stream, never lost.
  const version = await getQueueVersion();
  const [queue, services, expired, standing] = await Promise.all([
    findQueue(user.id, query, { pageSize: PAGE_SIZE }),
    listQueueServices(),
    // Only beside "Needs your review" (no view), which is where they dropped out from.
    query.view ? null : countRecentlyExpired(user.id, query),
    // Proposed standing approvals this reviewer may approve: they are not requests, so the queue points to them.
    query.view ? 0 : countStandingToApprove(user.id),
  ]);
  return { user, query, version, queue, services, expired, standing };
});

const parse = async (searchParams: Promise<SearchParams>) => {
  const parsed = parseQueueQuery(await searchParams);
  return { ...parsed, rawKey: JSON.stringify(parsed.raw) };
};

const countText = (s: Section) => `${s.count}${s.countCapped ? "+" : ""}`;

/** "(3) Approvals": what needs the viewer's review, in the tab title; it follows the live refresh. */
export async function generateMetadata({ searchParams }: { searchParams: Promise<SearchParams> }): Promise<Metadata> {
  const { queue } = await load((await parse(searchParams)).rawKey);
  const count = queue.canAct && queue.canAct.count > 0 ? `(${countText(queue.canAct)}) ` : "";
  return { title: `${count}Approvals` };
}

const ORDER_HINT = { oldest: "Oldest first", newest: "Newest first", expiring: "Expiring soonest" } as const;

export default async function ApprovalsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { raw, invalid, rawKey } = await parse(searchParams);
  const { user, query, version, queue, services, expired, standing } = await load(rawKey);

  const paging = (param: "act" | "wait" | "done", section: Section) => ({
    nextHref: section.next ? href(raw, { [param]: section.next }) : null,
    firstHref: raw[param] ? href(raw, { [param]: null }) : null,
  });
  const viewHref = (view: QueueView | null) => href(raw, { view, act: null, wait: null, done: null });
  const pendingOrder = ORDER_HINT[query.order ?? "oldest"];
  const empty = query.q ? "No requests match your search." : undefined;
  // A request's page walks the list it was opened from: its filters and order go with the link.
  const carried = carriedSearch(raw);

  return (
    <>
      <AppHeader user={user} signOut={signOutAction} />
      <main id="main" className="mx-auto flex max-w-5xl flex-col gap-5 p-4">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h1 className="text-xl font-semibold">Approvals</h1>
          <QueueLiveRefresh version={version} />
          <KeyboardShortcuts mode="queue" />
        </div>
        {user.roles.length === 0 && (
          <p className="rounded border border-amber-300 bg-amber-50 p-3 text-sm">You have no reviewer role yet. Ask an admin to grant you one.</p>
        )}
        {invalid.length > 0 && (
          <p className="rounded border border-amber-300 bg-amber-50 p-3 text-sm" data-testid="invalid-filters">
            Ignored invalid {invalid.length === 1 ? "value" : "values"} for: {invalid.join(", ")}.
          </p>
        )}
        <QueueViews current={query.view ?? null} hrefOf={viewHref} />
        <QueueFilters
          values={{
            view: raw.view,
            q: raw.q,
            service: raw.service,
            run: raw.run,
            tool: raw.tool,
            effects: raw.effects,
            status: raw.status,
            order: raw.order,
          }}
          services={services}
        />

        {standing > 0 && (
          <p role="note" className="rounded border border-blue-300 bg-blue-50 p-3 text-sm" data-testid="standing-to-approve">
            {standing === 1 ? "1 proposed standing approval waits" : `${standing} proposed standing approvals wait`} for your approval.{" "}
            <Link href="/standing" className="underline">
              Review standing approvals
            </Link>
          </p>
        )}
        {expired && expired.count > 0 && queue.canAct && (
          // Requests that ran out while theirs to decide do not drop out of the list silently (issue 36).
          <p role="note" className="rounded border border-slate-300 bg-slate-50 p-3 text-sm" data-testid="recently-expired">
            {expired.count}
            {expired.capped ? "+" : ""} request{expired.count === 1 && !expired.capped ? "" : "s"} you could have decided expired in the last hour
            without a decision.{" "}
            <Link href={href(raw, { status: "expired", act: null, wait: null, done: null })} className="underline">
              Show expired requests
            </Link>
          </p>
        )}
        {/* Nothing in "My requests" or "Decided by me" is the viewer's to decide. */}
        {queue.canAct && !query.view && (
          <QueueSection
            kind="canAct"
            title="Needs your review"
            hint={pendingOrder}
            section={queue.canAct}
            empty={empty}
            carried={carried}
            {...paging("act", queue.canAct)}
          />
        )}
        {queue.waiting && (
          <QueueSection
            kind="waiting"
            title="Waiting on others"
            hint={`${pendingOrder} · you cannot act on these now`}
            section={queue.waiting}
            empty={empty}
            carried={carried}
            {...paging("wait", queue.waiting)}
          />
        )}
        {queue.decided && (
          <QueueSection
            kind="decided"
            title="Recent decisions"
            hint="Most recently decided first"
            section={queue.decided}
            empty={empty}
            carried={carried}
            {...paging("done", queue.decided)}
          />
        )}
      </main>
    </>
  );
}
