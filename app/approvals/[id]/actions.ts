"use server";
// Approve / Deny. Thin: runAction's origin and live-session checks, then the
// one domain function that enforces every review rule (lib/reviews/record-review).
import { runAction, type ActionWording } from "@/lib/auth/guards";
import { AppError } from "@/lib/errors";
import { findNeighbours } from "@/lib/reviews/neighbours";
import { recordReview } from "@/lib/reviews/record-review";
import type { ReviewFormState } from "@/components/review-form";

const REVIEW_WORDING: ActionWording = {
  refused: "This review was refused.",
  unavailable: "The database could not be reached. Reload the page in a moment to see whether your review was recorded.",
  failed: "Something went wrong; nothing was recorded. Try again.",
};

export async function submitReview(_prev: ReviewFormState, formData: FormData): Promise<ReviewFormState> {
  const approvalId = String(formData.get("approvalId") ?? "");
  const options = { name: "review", path: `/approvals/${approvalId}`, wording: REVIEW_WORDING, logFields: { approvalId } };
  return runAction("queue:view", options, async (user) => {
    const choice = formData.get("decision");
    // "approve-next": approve, then open the next request needing this reviewer.
    const decision = choice === "deny" ? "deny" : choice === "approve" || choice === "approve-next" ? "approve" : null;
    if (!decision) throw new AppError("invalid-request", "choose Approve or Deny");
    const reason = typeof formData.get("reason") === "string" ? String(formData.get("reason")) : undefined;
    const outcome = await recordReview(user.id, { approvalId, decision, reason });
    const message =
      outcome.status === "pending"
        ? `Your approval is recorded: ${outcome.approvals} of ${outcome.quorum}. Waiting for another reviewer.`
        : `Request ${outcome.status}.`;
    if (choice !== "approve-next") return { ok: true, message, status: outcome.status };
    const { following } = await findNeighbours(user.id, approvalId);
    return { ok: true, message, status: outcome.status, next: following ? `/approvals/${following}` : "/approvals" };
  });
}
