// What the audit page (app/admin/audit) shows of retention: the setting, how
// many decided requests have lost their arguments, how many are due and not
// yet purged (the background job takes them within minutes), the last
// purge, and the archives the chain's oldest events went to.
import "server-only";
import { db } from "../db/client";
import { env } from "../env";
import { retentionCutoff } from "./purge-arguments";

export type RetentionState = {
  days: number | null;
  purged: number;
  due: number;
  lastPurgeAt: Date | null;
  archives: Array<{ fileName: string; firstSeq: number; lastSeq: number; before: Date; createdAt: Date; sha256: string }>;
};

export async function retentionState(now = new Date()): Promise<RetentionState> {
  const days = env().RETENTION_DAYS ?? null;
  const [purged, due, lastPurge, archives] = await Promise.all([
    db().approval.count({ where: { argsPurgedAt: { not: null } } }),
    days === null
      ? Promise.resolve(0)
      : db().approval.count({ where: { status: { not: "pending" }, decidedAt: { lt: retentionCutoff(days, now) }, argsPurgedAt: null } }),
    db().auditEvent.findFirst({ where: { type: "retention.purged" }, orderBy: { seq: "desc" }, select: { at: true } }),
    db().auditArchive.findMany({
      orderBy: { firstSeq: "asc" },
      select: { fileName: true, firstSeq: true, lastSeq: true, before: true, createdAt: true, sha256: true },
    }),
  ]);
  return { days, purged, due, lastPurgeAt: lastPurge?.at ?? null, archives };
}
