"use server";
// Approve / Deny. Thin: same-origin and live-session checks, then the one
// domain function that enforces every review rule (lib/reviews/record-review).
import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { requestIdFrom, runWithRequestId } from "@/lib/request-context";
import { requireUserAction } from "@/lib/auth/guards";
import { recordReview } from "@/lib/reviews/record-review";
import { AppError } from "@/lib/errors";
import { errorFields, log } from "@/lib/log";
import { isDatabaseUnavailable } from "@/lib/db/unavailable";

export type ReviewFormState = { ok: boolean; message: string; status?: string } | null;

export async function submitReview(prev: ReviewFormState, formData: FormData): Promise<ReviewFormState> {
  return runWithRequestId(requestIdFrom(await headers()), () => recordFromForm(prev, formData));
}

async function recordFromForm(_prev: ReviewFormState, formData: FormData): Promise<ReviewFormState> {
  const approvalId = String(formData.get("approvalId") ?? "");
  try {
    const user = await requireUserAction();
    const decision = formData.get("decision") === "deny" ? "deny" : formData.get("decision") === "approve" ? "approve" : null;
    if (!decision) throw new AppError("invalid-request", "choose Approve or Deny");
    const outcome = await recordReview(user.id, {
      approvalId,
      decision,
      reason: typeof formData.get("reason") === "string" ? String(formData.get("reason")) : undefined,
    });
    revalidatePath(`/approvals/${approvalId}`);
    const message =
      outcome.status === "pending"
        ? `Your approval is recorded: ${outcome.approvals} of ${outcome.quorum}. Waiting for another reviewer.`
        : `Request ${outcome.status}.`;
    return { ok: true, message, status: outcome.status };
  } catch (e) {
    if (e instanceof AppError) return { ok: false, message: e.message === e.code ? "This review was refused." : e.message };
    if (isDatabaseUnavailable(e)) {
      log.warn("review: database unavailable", { approvalId, ...errorFields(e) });
      return { ok: false, message: "The database could not be reached. Reload the page in a moment to see whether your review was recorded." };
    }
    log.error("review failed", { approvalId, ...errorFields(e) });
    return { ok: false, message: "Something went wrong; nothing was recorded. Try again." };
  }
}
