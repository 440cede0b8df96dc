// Bearer tokens for the company's SCIM client (docs/identity.md): made and
// revoked with the admin command line, shown once, kept only as a SHA-256
// (they are 256 random bits, so the hash is a safe lookup key). Every SCIM
// change is recorded with the token's id as its actor.
import "server-only";
import { z } from "zod";
import { db } from "../db/client";
import { inTransaction } from "../db/transaction";
import { holdAuditHead, recordAudit } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { constantTimeEqual, tokenHash } from "../crypto/at-rest";
import { AppError } from "../errors";
import { newId, newToken } from "../ids";

const nameSchema = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(100, "must be at most 100 characters")
  .regex(/^[^\p{Cc}\p{Cf}]*$/u, "must not contain control characters");

export async function createScimToken(input: { name?: string }, actor: Actor) {
  const name = nameSchema.parse(input.name ?? "scim");
  const token = newToken("cs_scim_");
  const id = newId("sct");
  await inTransaction(async (tx) => {
    await holdAuditHead(tx);
    await tx.scimToken.create({ data: { id, name, tokenHash: tokenHash(token), createdBy: actor } });
    recordAudit({ type: "scim.token_created", actor, data: { token: id, name } });
  });
  return { id, name, token };
}

export async function revokeScimToken(idInput: string, actor: Actor) {
  const id = z
    .string()
    .regex(/^sct_[a-z2-7]{26}$/, "must be a SCIM token id (sct_…)")
    .parse(idInput);
  return inTransaction(async (tx) => {
    await holdAuditHead(tx);
    const { count } = await tx.scimToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
    if (count === 0) throw new AppError("not-found", "no active SCIM token with that id");
    recordAudit({ type: "scim.token_revoked", actor, data: { token: id } });
    return { id, revoked: true as const };
  });
}

export async function listScimTokens() {
  const rows = await db().scimToken.findMany({ orderBy: { createdAt: "asc" } });
  return rows.map((t) => ({
    id: t.id,
    name: t.name,
    created_at: t.createdAt.toISOString(),
    revoked: t.revokedAt !== null,
    last_used_at: t.lastUsedAt?.toISOString() ?? null,
  }));
}

/** Records a token's use at most once a minute. */
const USE_RECORD_MS = 60_000;

/** The SCIM client behind "Authorization: Bearer …", or null (missing, unknown or revoked). */
export async function authenticateScimToken(authorization: string | null): Promise<{ id: string } | null> {
  const match = /^Bearer ([A-Za-z0-9_-]{20,200})$/.exec(authorization ?? "");
  if (!match) return null;
  const hash = tokenHash(match[1]!);
  const row = await db().scimToken.findUnique({ where: { tokenHash: hash }, omit: { tokenHash: false } });
  if (!row || row.revokedAt || !constantTimeEqual(row.tokenHash, hash)) return null;
  const now = new Date();
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > USE_RECORD_MS) {
    await db().scimToken.update({ where: { id: row.id }, data: { lastUsedAt: now } });
  }
  return { id: row.id };
}
