// POST /api/approvals/{id}/passkey-challenge {decision, reason}: step one of a
// passkey vote on the decision page (docs/passkeys.md). Same-origin session;
// lib/reviews checks every review rule and issues the nonce.
import { withSessionChange } from "@/lib/auth/guards";
import type { CurrentUser } from "@/lib/auth/current-user";
import { json, readJson } from "@/lib/http/respond";
import { loggedRoute } from "@/lib/http/logged-route";
import { invalidRequest } from "@/lib/errors";
import { beginPasskeyVote } from "@/lib/reviews/record-review";
import { passkeyVoteBodySchema } from "@/lib/passkeys/schemas";

export const dynamic = "force-dynamic";

async function begin(req: Request, user: CurrentUser, { id }: { id: string }): Promise<Response> {
  const body = passkeyVoteBodySchema.omit({ passkey: true }).safeParse(await readJson(req));
  if (!body.success) throw invalidRequest(body.error);
  return json(await beginPasskeyVote(user.id, { approvalId: id, decision: body.data.decision, reason: body.data.reason }));
}

export const POST = loggedRoute("approvals.passkey-challenge", withSessionChange("queue:view", begin));
