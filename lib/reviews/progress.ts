// A pending request's four-eyes progress in a few words, for the decision
// bar and the top of the request's page: "1 of 2 approvals — your approval
// completes it". What the viewer's approval would do is said only to a
// viewer who may still vote (the page's canReview, from eligibility()).

export type ProgressFacts = {
  status: string;
  approvals: number;
  quorum: number;
  /** The viewer may vote on it now. */
  canReview: boolean;
};

const approvalsWord = (n: number) => `approval${n === 1 ? "" : "s"}`;

/** null once the request is decided (the page's result says what became of it). */
export function approvalProgress(facts: ProgressFacts): string | null {
  if (facts.status !== "pending") return null;
  const quorum = Math.max(1, facts.quorum);
  const count = `${facts.approvals} of ${quorum} ${approvalsWord(quorum)}`;
  if (!facts.canReview) return count;
  const after = facts.approvals + 1;
  if (after >= quorum) return `${count} — your approval completes it`;
  return `${count} — your approval makes it ${after} of ${quorum}`;
}
