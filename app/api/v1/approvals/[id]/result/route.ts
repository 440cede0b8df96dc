import { loggedRoute } from "@/lib/http/logged-route";
import { withService } from "@/lib/auth/guards";
import { json, readJson } from "@/lib/http/respond";
import { invalidRequest } from "@/lib/errors";
import { executionReportSchema } from "@/lib/approvals/schemas";
import { reportExecution } from "@/lib/executions/report-execution";

export const dynamic = "force-dynamic";

export const POST = loggedRoute(
  "approval.result",
  withService<{ id: string }>(async (req, service, { id }) => {
    const report = executionReportSchema.safeParse(await readJson(req));
    if (!report.success) throw invalidRequest(report.error);
    return json(await reportExecution(service, id, report.data));
  }),
);
