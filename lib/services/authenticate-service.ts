// Executor API authentication: "Authorization: Bearer <api token>". Tokens
// are high-entropy, so a SHA-256 lookup key is safe to index; the stored hash
// is compared again in constant time.
import "server-only";
import { db } from "../db/client";
import { constantTimeEqual, tokenHash } from "../crypto/at-rest";

export type AuthenticatedService = { id: string; slug: string };

export async function authenticateServiceToken(authorization: string | null): Promise<AuthenticatedService | null> {
  const match = /^Bearer ([A-Za-z0-9_-]{20,200})$/.exec(authorization ?? "");
  if (!match) return null;
  const hash = tokenHash(match[1]!);
  const service = await db().service.findFirst({
    where: { apiTokenHash: hash, disabledAt: null },
    select: { id: true, slug: true, apiTokenHash: true },
  });
  if (!service || !constantTimeEqual(service.apiTokenHash, hash)) return null;
  return { id: service.id, slug: service.slug };
}
