import type { Metadata } from "next";
import Link from "next/link";
import { AppHeader } from "@/components/app-header";
import { requireUserPage } from "@/lib/auth/guards";
import { db } from "@/lib/db/client";

export const metadata: Metadata = { title: "Approvals" };
export const dynamic = "force-dynamic";

export default async function ApprovalsPage() {
  const user = await requireUserPage();
  const pending = await db().approval.findMany({
    where: { status: "pending", expiresAt: { gt: new Date() } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: 50,
    select: { id: true, tool: true, effects: true, createdAt: true, expiresAt: true, service: { select: { slug: true } } },
  });
  return (
    <>
      <AppHeader user={user} />
      <main className="mx-auto max-w-5xl p-4">
        <h1 className="mb-4 text-xl font-semibold">Approvals</h1>
        {user.roles.length === 0 && (
          <p className="mb-4 rounded border border-amber-300 bg-amber-50 p-3 text-sm">
            You have no reviewer role yet. Ask an admin to grant you one.
          </p>
        )}
        {pending.length === 0 ? (
          <p className="text-slate-600">No pending requests.</p>
        ) : (
          <ul className="divide-y divide-slate-200 rounded border border-slate-200 bg-white">
            {pending.map((a) => (
              <li key={a.id} className="p-3">
                <Link href={`/approvals/${a.id}`} className="font-mono font-medium hover:underline">{a.tool}</Link>
                <span className="ml-2 text-sm text-slate-600">{a.service.slug} · {a.effects}</span>
              </li>
            ))}
          </ul>
        )}
      </main>
    </>
  );
}
