// Who may add a passkey now (docs/passkeys.md, "Passkeys are
// added by passkeys"). A user who has a passkey adds another only with a
// WebAuthn assertion from one of them, over a challenge issued for this
// purpose alone ("add-passkey": single use, five minutes); a user with none
// adds the first only in the first five minutes of a session, counted from
// the server's own session record (made at sign-in, with the identity
// provider or a password). So a stolen session cookie alone adds no passkey.
// manage-passkeys.ts asks these when it issues creation options and again
// when it stores the new passkey.
import "server-only";
import { randomBytes } from "node:crypto";
import { verifyAuthenticationResponse, type AuthenticationResponseJSON } from "@simplewebauthn/server";
import { z } from "zod";
import type { Tx } from "../db/client";
import { AppError } from "../errors";
import { log } from "../log";
import { CHALLENGE_TTL_MS, relyingParty } from "./relying-party";
import { authenticationResponseSchema } from "./schemas";

/** How long after signing in a user with no passkey may add the first one. */
export const FIRST_PASSKEY_WINDOW_MS = 5 * 60 * 1000;

/** Purpose of the challenge an existing passkey signs to add another (webauthn_challenges.purpose). */
export const ADDITION_PURPOSE = "add-passkey";

/** The signed-in user as the guards give it: the session id names the server-side session record. */
export type Registrant = { id: string; sessionId: string };

/** Why a first passkey is refused in an older session, and what to do. */
export const SIGN_IN_AGAIN =
  "To add your first passkey, sign in again: a first passkey can be added only within 5 minutes of signing in, so that a stolen session cannot add one.";

/**
 * Serializes everything that adds or removes this user's passkeys (two
 * first passkeys at once must not both pass as "the first"): the same
 * no-op update lock the review uses on a request.
 */
export async function lockPasskeysOf(tx: Tx, userId: string): Promise<void> {
  await tx.$executeRaw`UPDATE users SET notify_email = notify_email WHERE id = ${userId}`;
}

export async function activePasskeysOf(tx: Tx, userId: string) {
  return tx.passkey.findMany({ where: { userId, removedAt: null }, select: { credentialId: true, transports: true } });
}

/**
 * Until when this session may add a first passkey: five minutes after the
 * session record was made (at sign-in); null once that has passed, or when
 * the session is no longer live.
 */
export async function firstPasskeyDeadline(tx: Tx, user: Registrant, now: Date): Promise<Date | null> {
  const session = await tx.session.findFirst({
    where: { id: user.sessionId, userId: user.id, revokedAt: null, expiresAt: { gt: now } },
    select: { createdAt: true },
  });
  if (!session) return null;
  const deadline = new Date(session.createdAt.getTime() + FIRST_PASSKEY_WINDOW_MS);
  return now < deadline ? deadline : null;
}

/** A first passkey: only in a session that began less than five minutes ago. Returns when it began. */
export async function requireFreshSignIn(tx: Tx, user: Registrant, now: Date): Promise<{ signedInAt: Date }> {
  const deadline = await firstPasskeyDeadline(tx, user, now);
  if (!deadline) throw new AppError("forbidden", SIGN_IN_AGAIN);
  return { signedInAt: new Date(deadline.getTime() - FIRST_PASSKEY_WINDOW_MS) };
}

/** WebAuthn request options over a fresh "add-passkey" challenge, stored for this user; any of their passkeys may answer. */
export async function issueAdditionChallenge(tx: Tx, userId: string, passkeys: Array<{ credentialId: string; transports: string }>, now: Date) {
  const nonce = randomBytes(32).toString("base64url");
  await tx.webauthnChallenge.create({
    data: { nonce, userId, purpose: ADDITION_PURPOSE, createdAt: now, expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS) },
  });
  return {
    challenge: nonce,
    rpId: relyingParty().rpID,
    timeout: CHALLENGE_TTL_MS,
    userVerification: "required" as const,
    allowCredentials: passkeys.map((p) => ({ id: p.credentialId, type: "public-key" as const, transports: JSON.parse(p.transports) as string[] })),
  };
}

function challengeOf(clientDataJSON: string): string {
  try {
    return z.object({ challenge: z.string().max(200) }).parse(JSON.parse(Buffer.from(clientDataJSON, "base64url").toString("utf8"))).challenge;
  } catch {
    throw new AppError("passkey-invalid", "the confirming passkey's answer could not be read: try again");
  }
}

const REFUSED = "your existing passkey did not confirm this (not one of your passkeys, removed, or a signature over something else): try again";

/**
 * Checks the assertion that confirms adding a passkey: an "add-passkey"
 * challenge issued to this user, unused and unexpired; signed by one of
 * their own passkeys, not removed, with user verification. With `use`
 * (when the new passkey is stored) the challenge is used, by a conditional
 * update in the caller's transaction, and the passkey's counter moves: a
 * failure afterwards rolls both back. Without it (creation options) nothing
 * is written. Returns the confirming passkey.
 */
export async function checkAdditionProof(
  tx: Tx,
  userId: string,
  proof: unknown,
  now: Date,
  opts: { use: boolean },
): Promise<{ credentialId: string; name: string }> {
  if (proof === undefined || proof === null) {
    throw new AppError("passkey-required", "you have a passkey already: confirm with one of your passkeys to add another");
  }
  const parsed = authenticationResponseSchema.safeParse(proof);
  if (!parsed.success) throw new AppError("passkey-invalid", "the confirming passkey's answer could not be read: try again");
  const response = parsed.data as AuthenticationResponseJSON;
  const challenge = challengeOf(response.response.clientDataJSON);
  const passkey = await tx.passkey.findUnique({ where: { credentialId: response.id } });
  if (!passkey || passkey.userId !== userId || passkey.removedAt) throw new AppError("passkey-invalid", REFUSED);
  const issued = { nonce: challenge, userId, purpose: ADDITION_PURPOSE, usedAt: null, expiresAt: { gt: now } };
  const open = opts.use
    ? (await tx.webauthnChallenge.updateMany({ where: issued, data: { usedAt: now } })).count === 1
    : (await tx.webauthnChallenge.count({ where: issued })) === 1;
  if (!open) {
    throw new AppError("passkey-invalid", "this confirmation expired, was used already, or was not issued to you for adding a passkey: start again");
  }
  const { rpID, origin } = relyingParty();
  let newCounter = passkey.counter;
  let ok = false;
  try {
    const result = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: { id: passkey.credentialId, publicKey: new Uint8Array(Buffer.from(passkey.publicKey, "base64url")), counter: passkey.counter },
      requireUserVerification: true,
    });
    ok = result.verified && result.authenticationInfo.userVerified;
    newCounter = result.authenticationInfo.newCounter;
  } catch (e) {
    // The library's message names the check that failed; it holds no secret.
    log.info("passkey confirmation refused", { reason: e instanceof Error ? e.message.split('"')[0]!.slice(0, 120) : "unknown" });
  }
  if (!ok) throw new AppError("passkey-invalid", REFUSED);
  if (opts.use) await tx.passkey.update({ where: { id: passkey.id }, data: { counter: newCounter } });
  return { credentialId: passkey.credentialId, name: passkey.name };
}
