"use server";
// Approve / Deny, and Propose changes. Thin: runAction's origin and
// live-session checks, then the one domain function that enforces every
// review rule (lib/reviews/record-review, lib/revisions/propose-revision).
import { runAction, type ActionWording } from "@/lib/auth/guards";
import { AppError } from "@/lib/errors";
import { findNeighbours } from "@/lib/reviews/neighbours";
import { parseCarried } from "@/lib/queue/query-params";
import { recordReview } from "@/lib/reviews/record-review";
import type { ReviewFormState } from "@/components/review-form";
import type { ProposalFormState } from "@/components/propose-changes";
import type { JsonPatch } from "@countersign/client";
import { textView } from "@/lib/display/request-display";
import { parseJsonBody } from "@/lib/http/parse-json";
import { previewRevision, proposeRevision } from "@/lib/revisions/propose-revision";
import { previewStanding, proposeStanding, type ProposeStandingInput } from "@/lib/standing/standing-approvals";
import type { StandingFormState } from "@/components/propose-standing";

const PREVIEW_CHARS = 20_000;

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
    // The next one in the list the reviewer came from: the queue's filters and order, sent with the form.
    const carried = parseCarried(typeof formData.get("queue") === "string" ? String(formData.get("queue")) : "");
    const { following } = await findNeighbours(user.id, approvalId, carried.query);
    return {
      ok: true,
      message,
      status: outcome.status,
      next: following ? `/approvals/${following}${carried.search}` : `/approvals${carried.search}`,
    };
  });
}

const PROPOSAL_WORDING: ActionWording = {
  refused: "These changes were refused.",
  unavailable: "The database could not be reached. Reload the page in a moment to see whether your proposal was recorded.",
  failed: "Something went wrong; nothing was recorded. Try again.",
};

/** The changes as the form sends them: JSON text of an RFC 6902 patch, parsed as strictly as a webhook body. */
function patchFrom(formData: FormData): unknown {
  const text = formData.get("patch");
  if (typeof text !== "string" || text.length > 64 * 1024) throw new AppError("invalid-request", "the changes could not be read");
  return parseJsonBody(new TextEncoder().encode(text));
}

/**
 * Propose changes instead of voting (docs/revisions.md): "preview" checks the
 * changes and shows the arguments as they would read; "submit" records the
 * proposal through lib/revisions, which applies every review rule.
 */
export async function proposeChanges(_prev: ProposalFormState, formData: FormData): Promise<ProposalFormState> {
  const approvalId = String(formData.get("approvalId") ?? "");
  const options = { name: "proposal", path: `/approvals/${approvalId}`, wording: PROPOSAL_WORDING, logFields: { approvalId } };
  return runAction("queue:view", options, async (user) => {
    const patch = patchFrom(formData);
    if (formData.get("intent") === "preview") {
      const result = await previewRevision(user.id, { approvalId, patch });
      const text = JSON.stringify(result, null, 2);
      const preview = textView(text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}\n…` : text, { multiline: true });
      return { ok: true, message: "The changes can be proposed. Check the result below.", preview };
    }
    const reason = typeof formData.get("reason") === "string" ? String(formData.get("reason")) : "";
    await proposeRevision(user.id, { approvalId, patch: patch as JsonPatch, reason });
    return { ok: true, message: "Your changes were proposed. The request is now revised; the agent can send the changed call." };
  });
}

const STANDING_WORDING: ActionWording = {
  refused: "This standing approval was refused.",
  unavailable: "The database could not be reached. Reload the page in a moment to see whether it was recorded.",
  failed: "Something went wrong; nothing was recorded. Try again.",
};

/**
 * Propose a standing approval from this request (docs/standing-approvals.md):
 * "preview" counts the recent requests the pins would have matched; "submit"
 * records the proposal through lib/standing, which checks every rule.
 */
export async function proposeStandingAction(_prev: StandingFormState, formData: FormData): Promise<StandingFormState> {
  const approvalId = String(formData.get("approvalId") ?? "");
  const options = { name: "standing-proposal", path: `/approvals/${approvalId}`, wording: STANDING_WORDING, logFields: { approvalId } };
  return runAction("queue:view", options, async (user) => {
    let pins: unknown;
    try {
      pins = JSON.parse(String(formData.get("pins") ?? "[]"));
    } catch {
      throw new AppError("invalid-request", "the pins could not be read");
    }
    if (formData.get("intent") === "preview") {
      const p = await previewStanding(user.id, { approvalId, pins });
      return {
        ok: true,
        // The last of the words is the shape's sentence, which ends with its own full stop.
        message: `Of the last ${p.of} requests for this tool from this service, ${p.matched} would have matched: ${p.pins.join("; ")}`,
      };
    }
    const maxUses = String(formData.get("max_uses") ?? "").trim();
    const created = await proposeStanding(user.id, {
      approvalId,
      pins: pins as ProposeStandingInput["pins"],
      expiresInSeconds: Number(formData.get("expires")),
      maxUses: maxUses === "" ? null : Number(maxUses),
      reason: String(formData.get("reason") ?? ""),
    });
    return {
      ok: true,
      message:
        created.status === "active"
          ? "Standing approval active: matching requests are approved as they arrive."
          : "Standing approval proposed: it takes effect once the policy's quorum approved it on the Standing approvals page.",
    };
  });
}
