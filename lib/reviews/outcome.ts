// The decision page's result panel, in words, from the request's current
// state: what the viewer did ("You approved · 1 of 2 · waiting for …") and
// what became of it, so a viewer's own vote never reads as someone else's.
// null while the request is pending and the viewer has not voted (the page
// shows the form, or why there is none).

export type OutcomeFacts = {
  status: string;
  approvals: number;
  quorum: number;
  roles: readonly string[];
  decidedBy: readonly string[];
  reviews: ReadonlyArray<{ email: string; decision: string; reason: string | null; mine: boolean }>;
  /** A proposal of changes that ended the request (status "revised"). */
  proposal?: { mine: boolean; reason: string } | null;
};

export type Outcome = {
  /** The colour of the panel: the request's status. */
  tone: "pending" | "approved" | "denied" | "expired" | "cancelled" | "revised";
  /** True when the viewer voted on this request. */
  mine: boolean;
  text: string;
};

/** "a", "a and b", "a, b and c". */
export function listWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The decided-by list with the viewer as "you", first. */
function deciders(facts: OutcomeFacts, myEmail: string | null): string {
  const others = facts.decidedBy.filter((e) => e !== myEmail);
  return listWords(myEmail !== null && others.length < facts.decidedBy.length ? ["you", ...others] : others);
}

function denial(facts: OutcomeFacts): string {
  const deny = facts.reviews.find((r) => r.decision === "deny");
  const who = deny?.mine ? "you" : (deny?.email ?? listWords(facts.decidedBy));
  return deny?.reason ? `${who}: ${deny.reason}` : who;
}

export function describeOutcome(facts: OutcomeFacts): Outcome | null {
  const my = facts.reviews.find((r) => r.mine) ?? null;
  const mine = my !== null;
  const tone = (["approved", "denied", "expired", "cancelled", "revised"].includes(facts.status) ? facts.status : "pending") as Outcome["tone"];
  const count = `${facts.approvals} of ${facts.quorum}`;
  const youApproved = my?.decision === "approve" ? "You approved · " : "";
  switch (tone) {
    case "pending": {
      if (!my) return null;
      const missing = Math.max(1, facts.quorum - facts.approvals);
      const from = facts.roles.length ? ` from ${facts.roles.length > 1 ? "one of " : ""}${listWords(facts.roles)}` : "";
      return { tone, mine, text: `You approved · ${count} · waiting for ${plural(missing, "more approval")}${from}` };
    }
    case "approved":
      return { tone, mine, text: `Approved by ${deciders(facts, my?.email ?? null)}` };
    case "denied":
      if (my?.decision === "deny") return { tone, mine, text: `You denied${my.reason ? `: ${my.reason}` : ""}` };
      return { tone, mine, text: `${youApproved}${mine ? "then denied" : "Denied"} by ${denial(facts)}` };
    case "expired":
      return { tone, mine, text: `${youApproved}${mine ? "expired" : "Expired"} with ${count} approvals` };
    case "cancelled":
      return { tone, mine, text: `${youApproved}${mine ? "then the service withdrew it" : "Withdrawn by the service"}` };
    case "revised": {
      const reason = facts.proposal?.reason ? `: ${facts.proposal.reason}` : "";
      if (facts.proposal?.mine) return { tone, mine: true, text: `You proposed changes${reason}` };
      return { tone, mine, text: `${youApproved}${mine ? "then changes" : "Changes"} proposed by ${listWords(facts.decidedBy)}${reason}` };
    }
  }
}
