import type { Metadata } from "next";
import { AppHeader } from "@/components/app-header";
import { QueueFilters } from "@/components/queue-filters";
import { QueueLiveRefresh } from "@/components/queue-live-refresh";
import { QueueSection } from "@/components/queue-section";
import { requireUserPage } from "@/lib/auth/guards";
import { signOutAction } from "@/app/actions/auth";
import { findQueue, listQueueServices, type QueueSection as Section } from "@/lib/queue/find-queue";
import { getQueueVersion } from "@/lib/queue/live-feed";
import { parseQueueQuery, type QueueQueryParam } from "@/lib/queue/query-params";

export const metadata: Metadata = { title: "Approvals" };
export const dynamic = "force-dynamic";

const PAGE_SIZE = 20;

type Raw = Partial<Record<QueueQueryParam, string>>;

function href(raw: Raw, change: Partial<Record<QueueQueryParam, string | null>>): string {
  const params = new URLSearchParams();
  const merged: Record<string, string | null | undefined> = { ...raw, ...change };
  for (const [k, v] of Object.entries(merged)) if (v) params.set(k, v);
  const qs = params.toString();
  return qs ? `/approvals?${qs}` : "/approvals";
}

export default async function ApprovalsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const user = await requireUserPage();
  const { query, raw, invalid } = parseQueueQuery(await searchParams);
  // Version first: a change landing while the page renders is then reported
  // by the live stream, never lost.
  const version = await getQueueVersion();
  const [queue, services] = await Promise.all([findQueue(user.id, query, { pageSize: PAGE_SIZE }), listQueueServices()]);

  const paging = (param: "act" | "wait" | "done", section: Section) => ({
    nextHref: section.next ? href(raw, { [param]: section.next }) : null,
    firstHref: raw[param] ? href(raw, { [param]: null }) : null,
  });
  const pendingOrder = query.order === "newest" ? "Newest first" : "Oldest first";

  return (
    <>
      <AppHeader user={user} signOut={signOutAction} />
      <main className="mx-auto flex max-w-5xl flex-col gap-5 p-4">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h1 className="text-xl font-semibold">Approvals</h1>
          <QueueLiveRefresh version={version} />
        </div>
        {user.roles.length === 0 && (
          <p className="rounded border border-amber-300 bg-amber-50 p-3 text-sm">You have no reviewer role yet. Ask an admin to grant you one.</p>
        )}
        {invalid.length > 0 && (
          <p className="rounded border border-amber-300 bg-amber-50 p-3 text-sm" data-testid="invalid-filters">
            Ignored invalid {invalid.length === 1 ? "value" : "values"} for: {invalid.join(", ")}.
          </p>
        )}
        <QueueFilters
          values={{ service: raw.service, tool: raw.tool, effects: raw.effects, status: raw.status, order: raw.order }}
          services={services}
        />

        {queue.canAct && (
          <QueueSection kind="canAct" title="Needs your review" hint={pendingOrder} section={queue.canAct} {...paging("act", queue.canAct)} />
        )}
        {queue.waiting && (
          <QueueSection
            kind="waiting"
            title="Waiting on others"
            hint={`${pendingOrder} · you cannot act on these now`}
            section={queue.waiting}
            {...paging("wait", queue.waiting)}
          />
        )}
        {queue.decided && (
          <QueueSection
            kind="decided"
            title="Recent decisions"
            hint="Newest requests first"
            section={queue.decided}
            {...paging("done", queue.decided)}
          />
        )}
      </main>
    </>
  );
}
