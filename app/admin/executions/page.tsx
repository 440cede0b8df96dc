import type { Metadata } from "next";
import Link from "next/link";
import { requirePermissionPage } from "@/lib/auth/guards";
import { findUnreportedExecutions } from "@/lib/executions/find-unreported-executions";
import { humanSeconds } from "@/lib/format/time";
import { LocalTime } from "@/components/time";
import { AdminPage, Section } from "../_components/admin-page";

export const metadata: Metadata = { title: "Executions" };
export const dynamic = "force-dynamic";

export default async function ExecutionsPage() {
  const me = await requirePermissionPage("admin:executions");
  const { graceSeconds, items, more } = await findUnreportedExecutions(me);
  return (
    <AdminPage user={me} title="Executions">
      <p className="text-sm text-slate-700" data-testid="grace">
        Approved requests whose executor took the decision (consume) more than {humanSeconds(graceSeconds)} ago and has not reported how the call ran
        (<code>POST /api/v1/approvals/…/result</code>). Set the wait with <code>EXECUTION_REPORT_GRACE_SECONDS</code>.
      </p>
      <Section title={`Without a report (${items.length}${more ? "+" : ""}, newest consume first)`} id="unreported-h">
        {items.length === 0 ? (
          <p className="text-sm text-slate-600" data-testid="no-unreported">
            Every approved and consumed request has its report, or is still within the wait.
          </p>
        ) : (
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm">
              <thead className="text-xs text-slate-600">
                <tr>
                  <th scope="col" className="py-1 pr-3 font-medium">
                    Request
                  </th>
                  <th scope="col" className="py-1 pr-3 font-medium">
                    Service
                  </th>
                  <th scope="col" className="py-1 pr-3 font-medium">
                    Tool
                  </th>
                  <th scope="col" className="py-1 pr-3 font-medium">
                    Run
                  </th>
                  <th scope="col" className="py-1 pr-3 font-medium">
                    Consumed
                  </th>
                </tr>
              </thead>
              <tbody>
                {items.map((x) => (
                  <tr key={x.approvalId} className="border-t border-slate-200 align-top" data-testid="unreported">
                    <td className="py-1 pr-3">
                      <Link href={`/approvals/${x.approvalId}`} className="break-all font-mono text-xs text-blue-700 hover:underline">
                        {x.approvalId}
                      </Link>
                    </td>
                    <td className="break-all py-1 pr-3" data-testid="unreported-service">
                      {x.service}
                    </td>
                    <td className="break-all py-1 pr-3 font-mono" data-testid="unreported-tool">
                      {x.tool}
                    </td>
                    <td className="break-all py-1 pr-3 font-mono text-xs">
                      {x.runId} · {x.callId}
                    </td>
                    <td className="py-1 pr-3" data-testid="unreported-since">
                      {x.since} ago (<LocalTime at={x.consumedAt.toISOString()} />)
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {more && <p className="mt-2 text-xs text-slate-600">Only the newest {items.length} are listed.</p>}
          </div>
        )}
      </Section>
    </AdminPage>
  );
}
