// Executor API authentication: "Authorization: Bearer <api token>". Tokens
// are high-entropy, so a SHA-256 lookup key is safe to index; the stored hash
// is compared again in constant time.
import "server-only";
import { direct } from "../db/sql";
import { constantTimeEqual, tokenHash } from "../crypto/at-rest";

export type AuthenticatedService = { id: string; slug: string };

export async function authenticateServiceToken(authorization: string | null): Promise<AuthenticatedService | null> {
  const match = /^Bearer ([A-Za-z0-9_-]{20,200})$/.exec(authorization ?? "");
  if (!match) return null;
  const hash = tokenHash(match[1]!);
  // Every executor call starts here: one statement on the driver (lib/db/sql.ts).
  // During a rotation (rotate-credential.ts) the previous token works too, until the rotation is finished.
  const [service] = await direct().all<{ id: string; slug: string; api_token_hash: string; api_token_prev_hash: string | null }>(
    `SELECT id, slug, api_token_hash, api_token_prev_hash FROM services
     WHERE (api_token_hash = ? OR api_token_prev_hash = ?) AND disabled_at IS NULL`,
    [hash, hash],
  );
  if (!service) return null;
  const current = constantTimeEqual(service.api_token_hash, hash);
  const previous = service.api_token_prev_hash !== null && constantTimeEqual(service.api_token_prev_hash, hash);
  if (!current && !previous) return null;
  return { id: service.id, slug: service.slug };
}
