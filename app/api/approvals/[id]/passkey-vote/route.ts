// POST /api/approvals/{id}/passkey-vote {decision, reason, passkey: {nonce, response}}:
// a vote with its WebAuthn assertion (docs/passkeys.md). Same-origin session;
// lib/reviews/record-review.ts verifies the assertion and records the vote.
import { withSessionChange } from "@/lib/auth/guards";
import type { CurrentUser } from "@/lib/auth/current-user";
import { json, readJson } from "@/lib/http/respond";
import { loggedRoute } from "@/lib/http/logged-route";
import { invalidRequest } from "@/lib/errors";
import { recordReview } from "@/lib/reviews/record-review";
import { passkeyVoteBodySchema } from "@/lib/passkeys/schemas";

export const dynamic = "force-dynamic";

async function vote(req: Request, user: CurrentUser, { id }: { id: string }): Promise<Response> {
  const body = passkeyVoteBodySchema.safeParse(await readJson(req, 64 * 1024));
  if (!body.success) throw invalidRequest(body.error);
  const { decision, reason, passkey } = body.data;
  return json(await recordReview(user.id, { approvalId: id, decision, reason, passkey }));
}

export const POST = loggedRoute("approvals.passkey-vote", withSessionChange("queue:view", vote));
