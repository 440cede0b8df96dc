import type { Metadata } from "next";
import Link from "next/link";
import { AppHeader } from "@/components/app-header";
import { StatusBadge } from "@/components/status-badge";
import { Ago, LocalTime } from "@/components/time";
import { signOutAction } from "@/app/actions/auth";
import { ActionForm } from "@/app/admin/_components/action-form";
import { requireUserPage } from "@/lib/auth/guards";
import { listStanding, standingGroup, STANDING_GROUPS, type StandingGroup, type StandingView } from "@/lib/standing/standing-approvals";
import { approveStandingAction, revokeStandingAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Standing approvals" };

const GROUPS: Record<StandingGroup, { title: string; empty: string | null }> = {
  yours: { title: "Waiting for your approval", empty: null },
  proposed: { title: "Proposed, waiting for other approvers", empty: null },
  active: { title: "Active", empty: "No active standing approvals." },
  ended: { title: "Revoked or expired", empty: null },
};

export default async function StandingPage() {
  const user = await requireUserPage();
  const rules = await listStanding(user.id);
  const grouped = STANDING_GROUPS.map((g) => ({ group: g, rules: rules.filter((s) => standingGroup(s) === g) }));
  return (
    <>
      <AppHeader user={user} signOut={signOutAction} />
      <main id="main" className="mx-auto flex max-w-5xl flex-col gap-4 p-4">
        <h1 className="text-2xl font-semibold">Standing approvals</h1>
        <p className="text-sm text-slate-700">
          Calls that match an active standing approval are approved as they arrive, in the names of its approvers. A proposed one becomes active once
          its policy&apos;s quorum of approvers has approved it. To propose one, open a request whose policy allows standing approvals: its page then
          offers “Standing approval” (policies that do not allow them offer nothing).
        </p>
        {rules.length === 0 && (
          <p className="rounded border border-dashed border-slate-300 p-3 text-sm text-slate-600">No standing approvals you can see.</p>
        )}
        {rules.length > 0 &&
          grouped.map(({ group, rules: list }) =>
            list.length === 0 && !GROUPS[group].empty ? null : (
              <section key={group} aria-labelledby={`standing-${group}-h`} className="flex flex-col gap-2" data-testid={`standing-${group}`}>
                <h2 id={`standing-${group}-h`} className="text-lg font-semibold">
                  {GROUPS[group].title} ({list.length})
                </h2>
                {list.length === 0 ? (
                  <p className="text-sm text-slate-600">{GROUPS[group].empty}</p>
                ) : (
                  <ul className="flex flex-col gap-3">
                    {list.map((s) => (
                      <li key={s.id}>
                        <StandingRule s={s} />
                      </li>
                    ))}
                  </ul>
                )}
              </section>
            ),
          )}
      </main>
    </>
  );
}

function StandingRule({ s }: { s: StandingView }) {
  return (
    <article className="flex flex-col gap-2 rounded border border-slate-200 bg-white p-4" data-testid="standing-rule" data-standing-id={s.id}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="break-all font-mono font-semibold">{s.tool}</span>
        <span className="text-sm text-slate-600">from {s.service}</span>
        <StatusBadge status={s.status} small testId="standing-status" />
      </div>
      <ul className="list-inside list-disc text-sm" aria-label="Pins">
        {s.pins.map((p, i) => (
          <li key={i} className="font-mono [overflow-wrap:anywhere]">
            {p}
          </li>
        ))}
      </ul>
      <p className="whitespace-pre-wrap break-words text-sm">“{s.reason}”</p>
      <p className="text-sm text-slate-700">
        Approved by {s.approvedBy.join(", ")} ({s.approvedBy.length} of {s.quorum}) · used {s.uses}
        {s.maxUses !== null ? ` of ${s.maxUses}` : ""} time{s.uses === 1 ? "" : "s"}
        {s.lastUsedAt && (
          <>
            , last <Ago at={s.lastUsedAt.toISOString()} />
          </>
        )}{" "}
        · {s.status === "expired" ? "expired" : "expires"} <LocalTime at={s.expiresAt.toISOString()} /> · policy {s.policy} ·{" "}
        <Link href={`/approvals/${s.sourceApprovalId}`} className="underline">
          the request it came from
        </Link>
      </p>
      <div className="flex flex-wrap gap-3">
        {s.canApprove && (
          <ActionForm action={approveStandingAction} submitLabel="Approve standing approval" keepValues>
            <input type="hidden" name="id" value={s.id} />
          </ActionForm>
        )}
        {s.canRevoke && (
          <ActionForm action={revokeStandingAction} submitLabel="Revoke" danger confirm="revoke" keepValues>
            <input type="hidden" name="id" value={s.id} />
          </ActionForm>
        )}
      </div>
    </article>
  );
}
