import type { Metadata } from "next";
import Link from "next/link";
import { AppHeader } from "@/components/app-header";
import { StatusBadge } from "@/components/status-badge";
import { Ago, LocalTime } from "@/components/time";
import { signOutAction } from "@/app/actions/auth";
import { ActionForm } from "@/app/admin/_components/action-form";
import { requireUserPage } from "@/lib/auth/guards";
import { listStanding } from "@/lib/standing/standing-approvals";
import { approveStandingAction, revokeStandingAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Standing approvals" };

export default async function StandingPage() {
  const user = await requireUserPage();
  const rules = await listStanding(user.id);
  return (
    <>
      <AppHeader user={user} signOut={signOutAction} />
      <main id="main" className="mx-auto flex max-w-5xl flex-col gap-4 p-4">
        <h1 className="text-2xl font-semibold">Standing approvals</h1>
        <p className="text-sm text-slate-700">
          Calls that match one of these active standing approvals are approved as they arrive, in the names of its approvers. Propose one from a
          request&apos;s page.
        </p>
        {rules.length === 0 ? (
          <p className="rounded border border-dashed border-slate-300 p-3 text-sm text-slate-600">No standing approvals you can see.</p>
        ) : (
          <ul className="flex flex-col gap-3">
            {rules.map((s) => (
              <li key={s.id}>
                <article
                  className="flex flex-col gap-2 rounded border border-slate-200 bg-white p-4"
                  data-testid="standing-rule"
                  data-standing-id={s.id}
                >
                  <div className="flex flex-wrap items-center gap-2">
                    <span className="break-all font-mono font-semibold">{s.tool}</span>
                    <span className="text-sm text-slate-600">from {s.service}</span>
                    <StatusBadge status={s.status} small testId="standing-status" />
                  </div>
                  <ul className="list-inside list-disc text-sm" aria-label="Pins">
                    {s.pins.map((p, i) => (
                      <li key={i} className="break-all font-mono">
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
              </li>
            ))}
          </ul>
        )}
      </main>
    </>
  );
}
