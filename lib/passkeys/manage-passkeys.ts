// A reviewer's passkeys (docs/passkeys.md): register (options, then the
// browser's answer), rename, remove, list. Each acts on the signed-in user's
// own passkeys: the user id comes from the session, never from the form.
// Removing only marks a passkey: votes it signed must keep verifying.
import "server-only";
import { randomBytes } from "node:crypto";
import { generateRegistrationOptions, verifyRegistrationResponse, type RegistrationResponseJSON } from "@simplewebauthn/server";
import { coseKeyToJwk } from "@countersign/client";
import type { JsonWebKey } from "node:crypto";
import { db } from "../db/client";
import { inTransaction } from "../db/transaction";
import { appendAuditEvent } from "../audit/append-event";
import { AppError, invalidRequest } from "../errors";
import { newId } from "../ids";
import { log } from "../log";
import { CHALLENGE_TTL_MS, relyingParty } from "./relying-party";
import { passkeyNameSchema, registrationResponseSchema, reviewerEmailParamSchema } from "./schemas";
import { z } from "zod";

export const MAX_PASSKEYS_PER_USER = 20;

export type PasskeyView = { id: string; credentialId: string; name: string; alg: number; createdAt: Date; lastUsedAt: Date | null };

/** The signed-in user's passkeys in use, oldest first. */
export async function listOwnPasskeys(userId: string): Promise<PasskeyView[]> {
  return db().passkey.findMany({
    where: { userId, removedAt: null },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { id: true, credentialId: true, name: true, alg: true, createdAt: true, lastUsedAt: true },
  });
}

/** Step one of a registration: WebAuthn creation options with a fresh single-use challenge stored for this user. */
export async function passkeyRegistrationOptions(userId: string) {
  const user = await db().user.findUnique({ where: { id: userId }, select: { email: true, name: true, disabledAt: true } });
  if (!user || user.disabledAt) throw new AppError("forbidden", "not allowed");
  const existing = await db().passkey.findMany({ where: { userId, removedAt: null }, select: { credentialId: true, transports: true } });
  if (existing.length >= MAX_PASSKEYS_PER_USER)
    throw new AppError("conflict", `you have ${MAX_PASSKEYS_PER_USER} passkeys already: remove one first`);
  const challenge = randomBytes(32);
  const nonce = challenge.toString("base64url");
  const now = new Date();
  await db().webauthnChallenge.create({
    data: { nonce, userId, purpose: "register", createdAt: now, expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS) },
  });
  const { rpID, rpName } = relyingParty();
  return generateRegistrationOptions({
    rpName,
    rpID,
    userName: user.email,
    userDisplayName: user.name ?? user.email,
    userID: new TextEncoder().encode(userId),
    challenge,
    timeout: CHALLENGE_TTL_MS,
    attestationType: "none",
    excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: JSON.parse(p.transports) as string[] })),
    authenticatorSelection: { residentKey: "preferred", userVerification: "required" },
  });
}

function challengeOf(clientDataJSON: string): string {
  try {
    const parsed = z.object({ challenge: z.string().max(200) }).parse(JSON.parse(Buffer.from(clientDataJSON, "base64url").toString("utf8")));
    return parsed.challenge;
  } catch {
    throw new AppError("invalid-request", "the passkey's answer could not be read");
  }
}

/** Step two: the browser's answer, verified against the stored challenge (used once), then stored with its name. */
export async function registerPasskey(userId: string, input: { response: unknown; name: unknown }): Promise<PasskeyView> {
  const name = passkeyNameSchema.safeParse(input.name ?? "Passkey");
  if (!name.success) throw invalidRequest(name.error, ["name"]);
  const parsed = registrationResponseSchema.safeParse(input.response);
  if (!parsed.success) throw new AppError("invalid-request", "the passkey's answer could not be read");
  const response = parsed.data as RegistrationResponseJSON;
  const challenge = challengeOf(response.response.clientDataJSON);
  const now = new Date();
  // Single use: one conditional update, whatever happens next.
  const taken = await db().webauthnChallenge.updateMany({
    where: { nonce: challenge, userId, purpose: "register", usedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now },
  });
  if (taken.count !== 1) throw new AppError("invalid-request", "this registration expired or was already used: add the passkey again");
  const { rpID, origin } = relyingParty();
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
    });
  } catch (e) {
    log.info("passkey registration refused", { reason: e instanceof Error ? e.message.split('"')[0]!.slice(0, 120) : "unknown" });
    throw new AppError("invalid-request", "the passkey could not be verified: try again");
  }
  if (!verified.verified || !verified.registrationInfo) throw new AppError("invalid-request", "the passkey could not be verified: try again");
  const { credential } = verified.registrationInfo;
  let alg: number;
  try {
    alg = coseKeyToJwk(credential.publicKey).alg;
  } catch {
    throw new AppError("invalid-request", "this passkey's key type is not supported: use another authenticator");
  }
  return inTransaction(async (tx) => {
    const user = await tx.user.findUniqueOrThrow({ where: { id: userId }, select: { email: true } });
    if (await tx.passkey.findUnique({ where: { credentialId: credential.id }, select: { id: true } })) {
      throw new AppError("conflict", "this passkey is registered already");
    }
    const row = await tx.passkey.create({
      data: {
        id: newId("pk"),
        userId,
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString("base64url"),
        alg,
        counter: credential.counter,
        transports: JSON.stringify(credential.transports ?? []),
        name: name.data,
        createdAt: now,
      },
    });
    await appendAuditEvent(tx, {
      type: "passkey.registered",
      actor: `user:${user.email}`,
      data: { user: user.email, credential_id: credential.id, name: name.data, alg },
    });
    return { id: row.id, credentialId: row.credentialId, name: row.name, alg: row.alg, createdAt: row.createdAt, lastUsedAt: null };
  });
}

const idSchema = z.string().min(1).max(100);

export async function renamePasskey(userId: string, input: { id: unknown; name: unknown }): Promise<void> {
  const id = idSchema.safeParse(input.id);
  const name = passkeyNameSchema.safeParse(input.name);
  if (!id.success) throw new AppError("not-found", "no such passkey");
  if (!name.success) throw invalidRequest(name.error, ["name"]);
  const n = await db().passkey.updateMany({ where: { id: id.data, userId, removedAt: null }, data: { name: name.data } });
  if (n.count !== 1) throw new AppError("not-found", "no such passkey");
}

export async function removePasskey(userId: string, rawId: unknown): Promise<void> {
  const id = idSchema.safeParse(rawId);
  if (!id.success) throw new AppError("not-found", "no such passkey");
  await inTransaction(async (tx) => {
    const now = new Date();
    const [removed] = await tx.passkey.updateManyAndReturn({ where: { id: id.data, userId, removedAt: null }, data: { removedAt: now } });
    if (!removed) throw new AppError("not-found", "no such passkey");
    const user = await tx.user.findUniqueOrThrow({ where: { id: userId }, select: { email: true } });
    await appendAuditEvent(tx, {
      type: "passkey.removed",
      actor: `user:${user.email}`,
      data: { user: user.email, credential_id: removed.credentialId, name: removed.name },
    });
  });
}

export type ReviewerPasskeyJson = {
  credential_id: string;
  public_key: string;
  /** The same key as a JWK, for verifiers that read no CBOR. */
  jwk: JsonWebKey;
  alg: number;
  name: string;
  created_at: string;
  removed_at: string | null;
};

/**
 * `GET /api/v1/reviewers/{email}/passkeys`: every passkey of that reviewer,
 * removed ones included (their votes still verify), oldest first. Throws
 * not-found for an email that names no user.
 */
export async function reviewerPasskeys(params: unknown): Promise<{ reviewer: string; passkeys: ReviewerPasskeyJson[] }> {
  const parsed = reviewerEmailParamSchema.safeParse(params);
  if (!parsed.success) throw invalidRequest(parsed.error);
  const email = parsed.data.email;
  const user = await db().user.findUnique({ where: { email }, select: { id: true } });
  if (!user) throw new AppError("not-found", "no such reviewer");
  return { reviewer: email, passkeys: await passkeysOfUser(user.id) };
}

export async function passkeysOfUser(userId: string): Promise<ReviewerPasskeyJson[]> {
  const rows = await db().passkey.findMany({ where: { userId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  return rows.map((p) => ({
    credential_id: p.credentialId,
    public_key: p.publicKey,
    jwk: coseKeyToJwk(p.publicKey).jwk,
    alg: p.alg,
    name: p.name,
    created_at: p.createdAt.toISOString(),
    removed_at: p.removedAt ? p.removedAt.toISOString() : null,
  }));
}

/** Every stored passkey of the named reviewers (receipt verification), keyed by email. */
export async function passkeysByEmail(emails: readonly string[]): Promise<Record<string, ReviewerPasskeyJson[]>> {
  const out: Record<string, ReviewerPasskeyJson[]> = {};
  for (const email of new Set(emails)) {
    const user = await db().user.findUnique({ where: { email: email.toLowerCase() }, select: { id: true } });
    out[email] = user ? await passkeysOfUser(user.id) : [];
  }
  return out;
}
