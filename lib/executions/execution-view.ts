// What a request's page says about the run (docs/executions.md): the
// executor's report once it arrived, or, for an approved request that was
// consumed, that none has arrived yet. Pure: the page's loader passes the row.
import { EXECUTION_STATUSES } from "../approvals/schemas";
import type { ExecutionRow } from "../approvals/present";

export type ExecutionView =
  | {
      state: "reported";
      status: (typeof EXECUTION_STATUSES)[number];
      resultDigest: string;
      finishedAt: Date;
      reportedAt: Date;
    }
  | { state: "awaiting"; consumedAt: Date };

/** null: nothing ran, or nothing was taken yet (pending, denied, expired, cancelled, revised, or approved and not consumed). */
export function executionView(a: { status: string; consumedAt: Date | null } & ExecutionRow): ExecutionView | null {
  const status = EXECUTION_STATUSES.find((s) => s === a.executionStatus);
  if (status && a.resultDigest !== null && a.finishedAt !== null && a.reportedAt !== null) {
    return { state: "reported", status, resultDigest: a.resultDigest, finishedAt: a.finishedAt, reportedAt: a.reportedAt };
  }
  if (a.status === "approved" && a.consumedAt !== null) return { state: "awaiting", consumedAt: a.consumedAt };
  return null;
}
