import type { Metadata } from "next";
import Link from "next/link";
import { requirePermissionPage } from "@/lib/auth/guards";
import { findUnreportedExecutions } from "@/lib/executions/find-unreported-executions";
import { humanSeconds } from "@/lib/format/time";
import { LocalTime } from "@/components/time";
import { AdminPage, Section } from "../_components/admin-page";
import { ScrollRegion } from "@/components/scroll-region";

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
          <div className="flex flex-col gap-2 text-sm text-slate-700" data-testid="no-unreported">
            <p>Nothing to follow up: every approved request its executor took has a report, or is still within the wait.</p>
            <p>
              A request shows up here when an executor consumed an approval and sent no report within {humanSeconds(graceSeconds)}: the call may have
              run, failed or never started, and nobody knows which. Executors report with <code>reportExecution</code> (TypeScript client) or{" "}
              <code>report_execution</code> (Python client); an executor that never reports fills this list, so check it after adding a service. See
              docs/executions.md.
            </p>
          </div>
        ) : (
          <ScrollRegion label="Executions">
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
          </ScrollRegion>
        )}
      </Section>
    </AdminPage>
  );
}
