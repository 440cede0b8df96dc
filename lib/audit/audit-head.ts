// The audit chain's head row, which every append locks and moves on. Created
// once at start-up (lib/startup/prepare.ts); idempotent for instances starting at once.
import "server-only";
import type { Db } from "../db/client";
import { GENESIS_HASH } from "./chain";

export async function ensureAuditHead(client: Db): Promise<void> {
  await client.$executeRaw`INSERT INTO audit_head (id, seq, hash) VALUES (1, 0, ${GENESIS_HASH}) ON CONFLICT (id) DO NOTHING`;
}
