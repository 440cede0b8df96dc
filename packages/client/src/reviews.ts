/** Reading the reviewers' votes that consume answers and callbacks carry (docs/api.md). */
import type { Review } from "./types.js";

/**
 * Why a request was denied, in the denying reviewer's words: the reason of
 * the last deny vote (a deny decides at once, so there is at most one), or
 * null when no one denied it or the reason is missing. The text is the
 * reviewer's, not Countersign's: show it to the user as a quote.
 */
export function denialReason(result: { reviews: readonly Review[] }): string | null {
  for (let i = result.reviews.length - 1; i >= 0; i--) {
    const review = result.reviews[i]!;
    if (review.vote === "deny") return review.reason;
  }
  return null;
}
