// A reviewer's passkeys (docs/passkeys.md): add (confirm with an existing
// passkey or a fresh sign-in, addition-rule.ts; creation options; the
// browser's answer), rename, remove, list. Each acts on the signed-in user's
// own passkeys: the user id comes from the session, never from the form.
// Removing only marks a passkey: votes it signed must keep verifying. Adding
// and removing each write an audit event and an email notice.
import "server-only";
import { randomBytes } from "node:crypto";
import { generateRegistrationOptions, verifyRegistrationResponse, type RegistrationResponseJSON } from "@simplewebauthn/server";
import { coseKeyToJwk } from "@countersign/client";
import type { JsonWebKey } from "node:crypto";
import { db } from "../db/client";
import { inTransaction } from "../db/transaction";
import { recordAudit } from "../audit/append-event";
import { AppError, invalidRequest } from "../errors";
import { newId } from "../ids";
import { log } from "../log";
import { CHALLENGE_TTL_MS, relyingParty } from "./relying-party";
import { passkeyNameSchema, registrationResponseSchema, reviewerEmailParamSchema } from "./schemas";
import {
  activePasskeysOf,
  checkAdditionProof,
  firstPasskeyDeadline,
  issueAdditionChallenge,
  lockPasskeysOf,
  requireFreshSignIn,
  type Registrant,
} from "./addition-rule";
import { queuePasskeyNotice } from "./passkey-notice";
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

export type AdditionStart =
  | { step: "confirm"; options: Awaited<ReturnType<typeof issueAdditionChallenge>> }
  | { step: "create"; options: Awaited<ReturnType<typeof generateRegistrationOptions>> };

/**
 * Pressing "Add a passkey": a user with passkeys is first asked to confirm
 * with one of them (WebAuthn request options over an "add-passkey"
 * challenge); a user with none gets creation options at once, if this
 * session began less than five minutes ago (addition-rule.ts).
 */
export async function beginPasskeyAddition(user: Registrant, now = new Date()): Promise<AdditionStart> {
  const existing = await activePasskeysOf(db(), user.id);
  if (existing.length === 0) return { step: "create", options: await passkeyRegistrationOptions(user, {}, now) };
  await usableAccount(user.id, existing.length);
  return { step: "confirm", options: await issueAdditionChallenge(db(), user.id, existing, now) };
}

/** For the settings page, when the user has no passkey: until when this session may add the first one (null: sign in again). */
export function firstPasskeyWindow(user: Registrant, now = new Date()): Promise<Date | null> {
  return firstPasskeyDeadline(db(), user, now);
}

async function usableAccount(userId: string, passkeys: number) {
  const account = await db().user.findUnique({ where: { id: userId }, select: { email: true, name: true, disabledAt: true } });
  if (!account || account.disabledAt) throw new AppError("forbidden", "not allowed");
  if (passkeys >= MAX_PASSKEYS_PER_USER) throw new AppError("conflict", `you have ${MAX_PASSKEYS_PER_USER} passkeys already: remove one first`);
  return account;
}

/**
 * WebAuthn creation options with a fresh single-use challenge stored for
 * this user, issued only under the addition rule: with `proof`, an assertion
 * from one of the user's passkeys over an "add-passkey" challenge, when they
 * have any (checked here, used when the passkey is stored); in a session
 * less than five minutes old when they have none.
 */
export async function passkeyRegistrationOptions(user: Registrant, input: { proof?: unknown }, now = new Date()) {
  const existing = await activePasskeysOf(db(), user.id);
  const account = await usableAccount(user.id, existing.length);
  if (existing.length > 0) await checkAdditionProof(db(), user.id, input.proof, now, { use: false });
  else await requireFreshSignIn(db(), user, now);
  const challenge = randomBytes(32);
  await db().webauthnChallenge.create({
    data: {
      nonce: challenge.toString("base64url"),
      userId: user.id,
      purpose: "register",
      createdAt: now,
      expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS),
    },
  });
  const { rpID, rpName } = relyingParty();
  return generateRegistrationOptions({
    rpName,
    rpID,
    userName: account.email,
    userDisplayName: account.name ?? account.email,
    userID: new TextEncoder().encode(user.id),
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

/**
 * The browser's answer, verified against the stored challenge (used once),
 * then stored with its name, under the addition rule checked again on the
 * state of this moment: the confirming assertion (`proof`) is used here, in
 * the same transaction, when the user has passkeys; the session must still
 * be less than five minutes old when they have none. The audit event and the
 * email notice are written with it.
 */
export async function registerPasskey(
  user: Registrant,
  input: { response: unknown; name: unknown; proof?: unknown },
  now = new Date(),
): Promise<PasskeyView> {
  const userId = user.id;
  const name = passkeyNameSchema.safeParse(input.name ?? "Passkey");
  if (!name.success) throw invalidRequest(name.error, ["name"]);
  const parsed = registrationResponseSchema.safeParse(input.response);
  if (!parsed.success) throw new AppError("invalid-request", "the passkey's answer could not be read");
  const response = parsed.data as RegistrationResponseJSON;
  const challenge = challengeOf(response.response.clientDataJSON);
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
    await lockPasskeysOf(tx, userId);
    const account = await tx.user.findUniqueOrThrow({ where: { id: userId }, select: { email: true, disabledAt: true } });
    if (account.disabledAt) throw new AppError("forbidden", "not allowed");
    const existing = await activePasskeysOf(tx, userId);
    if (existing.length >= MAX_PASSKEYS_PER_USER)
      throw new AppError("conflict", `you have ${MAX_PASSKEYS_PER_USER} passkeys already: remove one first`);
    let confirmedBy: { passkey: string } | "sign-in";
    let confirmation: Record<string, string>;
    if (existing.length > 0) {
      const by = await checkAdditionProof(tx, userId, input.proof, now, { use: true });
      confirmedBy = { passkey: by.name };
      confirmation = { confirmed_by: "passkey", confirming_credential_id: by.credentialId };
    } else {
      const { signedInAt } = await requireFreshSignIn(tx, user, now);
      confirmedBy = "sign-in";
      confirmation = { confirmed_by: "sign-in", signed_in_at: signedInAt.toISOString() };
    }
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
    const emailed = await queuePasskeyNotice(
      tx,
      { id: userId, email: account.email },
      { kind: "passkey_registered", passkeyId: row.id, name: row.name, at: now, confirmedBy },
    );
    recordAudit({
      type: "passkey.registered",
      actor: `user:${account.email}`,
      data: { user: account.email, credential_id: credential.id, name: name.data, alg, ...confirmation, emailed },
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

/** Marks the passkey removed (its votes must keep verifying), with its audit event and the email notice. */
export async function removePasskey(userId: string, rawId: unknown, now = new Date()): Promise<void> {
  const id = idSchema.safeParse(rawId);
  if (!id.success) throw new AppError("not-found", "no such passkey");
  await inTransaction(async (tx) => {
    await lockPasskeysOf(tx, userId);
    const [removed] = await tx.passkey.updateManyAndReturn({ where: { id: id.data, userId, removedAt: null }, data: { removedAt: now } });
    if (!removed) throw new AppError("not-found", "no such passkey");
    const user = await tx.user.findUniqueOrThrow({ where: { id: userId }, select: { email: true } });
    const remaining = await tx.passkey.count({ where: { userId, removedAt: null } });
    const emailed = await queuePasskeyNotice(
      tx,
      { id: userId, email: user.email },
      { kind: "passkey_removed", passkeyId: removed.id, name: removed.name, at: now },
    );
    recordAudit({
      type: "passkey.removed",
      actor: `user:${user.email}`,
      data: { user: user.email, credential_id: removed.credentialId, name: removed.name, remaining, emailed },
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
