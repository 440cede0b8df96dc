// The executor reports how an approved call ran (docs/executions.md): once,
// only for its own request, only after a consume that returned `approved`.
// The report is one conditional UPDATE that only such an unreported row
// passes, so of any number of concurrent reports, on any number of instances,
// exactly one is recorded; its callback (approval.executed) and audit event
// commit with it. Every refusal is explained by a second read afterwards.
import "server-only";
import type { z } from "zod";
import type { ExecutionRecorded } from "@countersign/client";
import { recordAudit } from "../audit/append-event";
import { enqueueExecutedCallback } from "../callbacks/enqueue-callback";
import { inTransaction } from "../db/transaction";
import { AppError } from "../errors";
import type { AuthenticatedService } from "../services/authenticate-service";
import type { executionReportSchema } from "../approvals/schemas";

export type ExecutionReportInput = z.infer<typeof executionReportSchema>;

/** How far the executor's clock may be from ours: finished_at may be this far in the future, or before the consume. */
export const CLOCK_SKEW_MS = 5 * 60_000;

const finishedAtRefused = (message: string) => new AppError("invalid-request", "invalid request", { issues: [{ path: "finished_at", message }] });

export async function reportExecution(
  service: AuthenticatedService,
  approvalId: string,
  report: ExecutionReportInput,
  now = new Date(),
): Promise<ExecutionRecorded> {
  const finishedAt = new Date(report.finished_at);
  if (finishedAt.getTime() > now.getTime() + CLOCK_SKEW_MS) throw finishedAtRefused("must not be more than 5 minutes in the future");

  const outcome = await inTransaction(async (tx) => {
    // The service scope, the approved consume, "not yet reported" and "not
    // before the consume" are all in the one conditional update.
    const [row] = await tx.approval.updateManyAndReturn({
      where: {
        id: approvalId,
        serviceId: service.id,
        status: "approved",
        reportedAt: null,
        consumedAt: { not: null, lte: new Date(finishedAt.getTime() + CLOCK_SKEW_MS) },
      },
      data: { executionStatus: report.status, resultDigest: report.result_digest, finishedAt, reportedAt: now },
      select: { id: true, serviceId: true, runId: true, callId: true, tool: true, argsDigest: true },
    });
    if (!row) {
      const current = await tx.approval.findFirst({
        where: { id: approvalId, serviceId: service.id },
        select: { status: true, consumedAt: true, reportedAt: true },
      });
      if (!current) return { error: new AppError("not-found") };
      if (current.reportedAt) return { error: new AppError("already-reported") };
      // Not consumed yet, or consumed as denied, expired or revised: nothing ran.
      if (!current.consumedAt || current.status !== "approved") return { error: new AppError("not-consumed") };
      return { error: finishedAtRefused("must not be before the consume (5 minutes of clock difference allowed)") };
    }
    await enqueueExecutedCallback(tx, {
      approvalId: row.id,
      serviceId: row.serviceId,
      runId: row.runId,
      callId: row.callId,
      tool: row.tool,
      argsDigest: row.argsDigest,
      status: report.status,
      resultDigest: report.result_digest,
      finishedAt,
    });
    // Digests and times only: nothing of the arguments or the result.
    recordAudit({
      type: "approval.executed",
      actor: `service:${service.slug}`,
      approvalId: row.id,
      data: { status: report.status, result_digest: report.result_digest, finished_at: finishedAt.toISOString() },
    });
    return { error: null };
  });
  if (outcome.error) throw outcome.error;
  return {
    approval_id: approvalId,
    status: report.status,
    result_digest: report.result_digest,
    finished_at: finishedAt.toISOString(),
    reported_at: now.toISOString(),
  };
}
