"use server";
// "Approve all" / "Deny all" on a run's page. Thin: runAction's origin and
// live-session checks, then lib/runs, which records every vote through the
// one vote function in one transaction.
import { runAction, type ActionWording } from "@/lib/auth/guards";
import { AppError } from "@/lib/errors";
import { reviewRun } from "@/lib/runs/run-review";
import type { RunBatchState } from "@/components/run-batch-form";

const WORDING: ActionWording = {
  refused: "Refused: nothing was recorded.",
  unavailable: "The database could not be reached. Reload the page in a moment to see whether your votes were recorded.",
  failed: "Something went wrong; nothing was recorded. Try again.",
};

export async function reviewRunAction(_prev: RunBatchState, formData: FormData): Promise<RunBatchState> {
  const service = String(formData.get("service") ?? "");
  const runId = String(formData.get("runId") ?? "");
  const path = `/runs/${encodeURIComponent(service)}/${encodeURIComponent(runId)}`;
  return runAction("queue:view", { name: "run-review", path, wording: WORDING, logFields: { service } }, async (user) => {
    const choice = formData.get("decision");
    const decision = choice === "approve" || choice === "deny" ? choice : null;
    if (!decision) throw new AppError("invalid-request", "choose Approve all or Deny all");
    let approvalIds: unknown;
    try {
      approvalIds = JSON.parse(String(formData.get("approvalIds") ?? "[]"));
    } catch {
      throw new AppError("invalid-request", "the list of requests could not be read");
    }
    const reason = typeof formData.get("reason") === "string" ? String(formData.get("reason")) : undefined;
    const { outcomes } = await reviewRun(user.id, { service, runId, decision, reason, approvalIds: approvalIds as string[] });
    const decided = outcomes.filter((o) => o.status !== "pending").length;
    const verb = decision === "approve" ? "approval" : "denial";
    return {
      ok: true,
      message: `Your ${verb} is recorded on ${outcomes.length} request${outcomes.length === 1 ? "" : "s"}; ${decided} decided.`,
    };
  });
}
