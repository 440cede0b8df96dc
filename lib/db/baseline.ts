// Rows every database must hold after migrations: the audit chain's head and
// the default policy. Idempotent, safe for several instances starting at once.
import "server-only";
import type { Db } from "./client";
import { GENESIS_HASH } from "../audit/chain";
import { appendAuditEvent } from "../audit/append-event";
import { newId } from "../ids";

export const DEFAULT_POLICY = {
  name: "default",
  toolPattern: "*",
  roles: ["reviewer"],
  quorum: 1,
  ttlSeconds: 3600,
} as const;

export async function ensureBaseline(client: Db): Promise<void> {
  await client.$executeRaw`INSERT INTO audit_head (id, seq, hash) VALUES (1, 0, ${GENESIS_HASH}) ON CONFLICT (id) DO NOTHING`;
  await client.$transaction(async (tx) => {
    // The audit append takes the head lock first, so two instances cannot
    // both see "no default" and both create one.
    if (await tx.policy.findFirst({ where: { isDefault: true }, select: { id: true } })) return;
    await appendAuditEvent(tx, {
      type: "policy.changed",
      actor: "system",
      data: { policy: DEFAULT_POLICY.name, change: "created" },
    });
    if (await tx.policy.findFirst({ where: { isDefault: true }, select: { id: true } })) {
      throw new BaselineRace();
    }
    await tx.policy.create({
      data: {
        id: newId("pol"),
        name: DEFAULT_POLICY.name,
        toolPattern: DEFAULT_POLICY.toolPattern,
        roles: JSON.stringify(DEFAULT_POLICY.roles),
        quorum: DEFAULT_POLICY.quorum,
        ttlSeconds: DEFAULT_POLICY.ttlSeconds,
        priority: 1_000_000,
        isDefault: true,
      },
    });
  }).catch((e) => {
    if (!(e instanceof BaselineRace)) throw e;
  });
}

class BaselineRace extends Error {}
