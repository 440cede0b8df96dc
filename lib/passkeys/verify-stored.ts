// `audit verify`'s second half (docs/passkeys.md): every vote stored with a
// passkey assertion is verified again, offline, against the reviewer's stored
// public key and the challenge recomputed from the stored vote, with the same
// code executors use (@countersign/client's verifyAssertion). A changed byte
// in the assertion, the vote's decision or reason, or the request's digest
// fails it.
import "server-only";
import { verifyAssertion } from "@countersign/client";
import { db } from "../db/client";
import { voteChallenge } from "@countersign/client";

const BATCH = 1000;

export type AssertionFailure = { approval_id: string; reviewer: string; credential_id: string; reason: string };
export type StoredAssertionsResult = { checked: number; failures: AssertionFailure[] };

export async function verifyStoredVoteAssertions(): Promise<StoredAssertionsResult> {
  const failures: AssertionFailure[] = [];
  let checked = 0;
  let after = "";
  for (;;) {
    const rows = await db().voteAssertion.findMany({
      where: { reviewId: { gt: after } },
      orderBy: { reviewId: "asc" },
      take: BATCH,
      include: { review: { include: { approval: { select: { argsDigest: true } } } } },
    });
    if (rows.length === 0) break;
    const credentialIds = [...new Set(rows.map((r) => r.credentialId))];
    const keys = new Map(
      (
        await db().passkey.findMany({ where: { credentialId: { in: credentialIds } }, select: { credentialId: true, publicKey: true, userId: true } })
      ).map((k) => [k.credentialId, k]),
    );
    for (const r of rows) {
      checked++;
      const fail = (reason: string) =>
        failures.push({ approval_id: r.approvalId, reviewer: r.review.reviewerEmail, credential_id: r.credentialId, reason });
      const key = keys.get(r.credentialId);
      if (!key) {
        fail("the passkey is not stored");
        continue;
      }
      if (key.userId !== r.review.reviewerId) {
        fail("the passkey belongs to another user");
        continue;
      }
      const decision = r.review.decision === "deny" ? "deny" : "approve";
      const challenge = voteChallenge({
        approval_id: r.approvalId,
        args_digest: r.review.approval.argsDigest,
        decision,
        reason: r.review.reason ?? "",
        reviewer: r.review.reviewerEmail,
        nonce: r.nonce,
      });
      const check = verifyAssertion(
        { authenticator_data: r.authenticatorData, client_data_json: r.clientDataJson, signature: r.signature },
        key.publicKey,
        { challenge },
      );
      if (!check.ok) fail(check.reason);
    }
    after = rows[rows.length - 1]!.reviewId;
    if (rows.length < BATCH) break;
  }
  return { checked, failures };
}
