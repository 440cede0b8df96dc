// Passkey-attested votes (docs/passkeys.md). A policy with require_passkey
// accepts a vote only with a WebAuthn assertion over
//   SHA-256(UTF-8(JCS({approval_id, args_digest, decision, reason, reviewer, nonce})))
// made with one of the reviewer's passkeys, user verification required. The
// nonce is issued here (bound to the reviewer and the request, short expiry)
// and used by a conditional update in the vote's own transaction, so a replay
// is refused and a failed vote leaves it unused. recordVoteInTx
// (lib/reviews/record-review.ts) calls these; nothing else records a vote.
import "server-only";
import { randomBytes } from "node:crypto";
import { verifyAuthenticationResponse, type AuthenticationResponseJSON } from "@simplewebauthn/server";
import { voteChallenge } from "@countersign/client";
import type { Tx } from "../db/client";
import { db } from "../db/client";
import { inTransaction, type Unit } from "../db/transaction";
import { AppError } from "../errors";
import { log } from "../log";
import { CHALLENGE_TTL_MS, relyingParty } from "./relying-party";
import { passkeyVoteSchema, type PasskeyVote } from "./schemas";

export { passkeyVoteSchema, type PasskeyVote };

/** The challenge of a vote, as base64url (what clientDataJSON carries). */
export function voteChallengeText(fields: Parameters<typeof voteChallenge>[0]): string {
  return voteChallenge(fields).toString("base64url");
}

/**
 * Issues a nonce for this reviewer's vote on this request and answers the
 * WebAuthn request options whose challenge binds the vote. `check` runs every
 * review rule first (the caller passes lockForReviewer), so nobody gets a
 * nonce for a vote they could not cast.
 */
export async function issueVoteChallenge(
  userId: string,
  vote: { approvalId: string; decision: "approve" | "deny"; reason?: string | undefined },
  check: (tx: Unit) => Promise<{ approval: { argsDigest: string; requirePasskey: boolean }; reviewer: { email: string } }>,
) {
  const { approval, reviewer } = await inTransaction(check);
  if (!approval.requirePasskey) throw new AppError("invalid-request", "this request's policy does not ask for a passkey: vote without one");
  const passkeys = await db().passkey.findMany({ where: { userId, removedAt: null }, select: { credentialId: true, transports: true } });
  if (passkeys.length === 0)
    throw new AppError("passkey-required", "this request's policy requires a passkey: register one on your Settings page first");
  const nonce = randomBytes(32).toString("base64url");
  const now = new Date();
  await db().webauthnChallenge.create({
    data: { nonce, userId, purpose: "vote", approvalId: vote.approvalId, createdAt: now, expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS) },
  });
  const challenge = voteChallengeText({
    approval_id: vote.approvalId,
    args_digest: approval.argsDigest,
    decision: vote.decision,
    reason: vote.reason ?? "",
    reviewer: reviewer.email,
    nonce,
  });
  const { rpID } = relyingParty();
  return {
    nonce,
    expires_at: new Date(now.getTime() + CHALLENGE_TTL_MS).toISOString(),
    options: {
      challenge,
      rpId: rpID,
      timeout: CHALLENGE_TTL_MS,
      userVerification: "required" as const,
      allowCredentials: passkeys.map((p) => ({ id: p.credentialId, type: "public-key" as const, transports: JSON.parse(p.transports) as string[] })),
    },
  };
}

/**
 * Uses the nonce, once: a conditional update only an unused, unexpired nonce
 * of this reviewer for this request passes. Inside the vote's transaction, so
 * concurrent votes with one nonce record one vote, and a vote that fails
 * afterwards leaves it unused.
 */
export async function useVoteNonce(tx: Tx, input: { nonce: string; userId: string; approvalId: string; now: Date }): Promise<void> {
  const { nonce, userId, approvalId, now } = input;
  const taken = await tx.webauthnChallenge.updateMany({
    where: { nonce, userId, approvalId, purpose: "vote", usedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now },
  });
  if (taken.count === 1) return;
  const row = await tx.webauthnChallenge.findUnique({ where: { nonce } });
  if (!row || row.purpose !== "vote" || row.userId !== userId || row.approvalId !== approvalId) {
    throw new AppError("passkey-invalid", "this passkey challenge was not issued to you for this request: start the vote again");
  }
  if (row.usedAt) throw new AppError("passkey-invalid", "this passkey challenge was used already (a replayed vote is refused): start the vote again");
  throw new AppError("passkey-invalid", "this passkey challenge expired: start the vote again");
}

/**
 * Verifies the assertion of a vote against the reviewer's passkey and the
 * recomputed challenge (origin and relying party from APP_URL, user
 * verification required), and moves the passkey's counter. Returns what is
 * stored with the vote.
 */
export async function verifyVoteAssertion(
  tx: Tx,
  input: {
    userId: string;
    email: string;
    approvalId: string;
    argsDigest: string;
    decision: "approve" | "deny";
    reason: string;
    vote: PasskeyVote;
    now: Date;
  },
): Promise<{ credentialId: string; nonce: string; authenticatorData: string; clientDataJson: string; signature: string }> {
  const { vote } = input;
  const passkey = await tx.passkey.findUnique({ where: { credentialId: vote.response.id } });
  if (!passkey || passkey.userId !== input.userId || passkey.removedAt) {
    throw new AppError("passkey-invalid", "that passkey is not one of yours (or was removed): use a passkey registered on your Settings page");
  }
  const expectedChallenge = voteChallengeText({
    approval_id: input.approvalId,
    args_digest: input.argsDigest,
    decision: input.decision,
    reason: input.reason,
    reviewer: input.email,
    nonce: vote.nonce,
  });
  const { rpID, origin } = relyingParty();
  let ok = false;
  let newCounter = passkey.counter;
  try {
    const result = await verifyAuthenticationResponse({
      response: vote.response as AuthenticationResponseJSON,
      expectedChallenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(Buffer.from(passkey.publicKey, "base64url")),
        counter: passkey.counter,
      },
      requireUserVerification: true,
    });
    ok = result.verified && result.authenticationInfo.userVerified;
    newCounter = result.authenticationInfo.newCounter;
  } catch (e) {
    // The library's message names the check that failed; it holds no secret and no argument value.
    log.info("passkey vote refused", {
      approvalId: input.approvalId,
      reason: e instanceof Error ? e.message.split('"')[0]!.slice(0, 120) : "unknown",
    });
  }
  if (!ok) {
    throw new AppError(
      "passkey-invalid",
      "the passkey's signature does not match this vote (request, decision, reason and challenge): start the vote again",
    );
  }
  await tx.passkey.update({ where: { id: passkey.id }, data: { counter: newCounter, lastUsedAt: input.now } });
  return {
    credentialId: passkey.credentialId,
    nonce: vote.nonce,
    authenticatorData: vote.response.response.authenticatorData,
    clientDataJson: vote.response.response.clientDataJSON,
    signature: vote.response.response.signature,
  };
}

/**
 * Forgets challenges and nonces that expired a day ago (background work). A
 * forgotten nonce is refused like an unknown one, and a vote's nonce also
 * stays in vote_assertions (unique), so nothing can be replayed after.
 */
export async function pruneWebauthnChallenges(olderThanMs = 86_400_000): Promise<number> {
  const { count } = await db().webauthnChallenge.deleteMany({ where: { expiresAt: { lt: new Date(Date.now() - olderThanMs) } } });
  return count;
}
