// Bulk seeding for the bench's queue and audit measurements: 100,000 rows one
// HTTP request at a time would take most of the run, so these write with
// multi-row INSERTs, but through the product's own encoders (redactor, policy
// matcher, argument digest, the chain's eventHash), so what they write is
// what the app would have written.
import { randomBytes, randomInt, randomUUID } from "node:crypto";
import { db, Prisma } from "@/lib/db/client";
import { direct } from "@/lib/db/sql";
import { env } from "@/lib/env";
import { newId } from "@/lib/ids";
import { requesterKey } from "@/lib/identity/requester-key";
import { argsDigest, canonicalJson } from "@countersign/client";
import { eventHash, type ChainedEvent } from "@/lib/audit/chain";
import { auditDataSchema } from "@/lib/audit/events";
import { loadPolicies } from "@/lib/policies/load-policies";
import { matchPolicy } from "@/lib/policies/match-policy";
import { loadRedactor } from "@/lib/redaction-rules/manage-rules";
import { inTransaction } from "@/lib/db/transaction";
import { EFFECTS, SERVICES, pick, realisticEvent } from "./traffic";

/**
 * Pending requests, written in bulk, until `total` are pending. The rows are
 * what ingestApproval would store for realistic webhooks (a pool of them,
 * each redacted, digested and policy-matched by the product's code), with
 * their own run and call ids, spread over the last half hour.
 */
export async function queueSeed(total: number, reset: boolean) {
  const t0 = performance.now();
  if (reset) await db().approval.updateMany({ where: { status: "pending" }, data: { status: "cancelled", decidedAt: new Date() } });
  const have = await db().approval.count({ where: { status: "pending", expiresAt: { gt: new Date() } } });
  const services = await db().service.findMany({ select: { id: true, slug: true } });
  const policies = await loadPolicies(direct());
  const redactor = await loadRedactor(direct());
  const pool = Array.from({ length: Math.min(400, Math.max(total - have, 1)) }, (_, i) => {
    const svc = services.filter((s) => SERVICES[s.slug])[i % 3]!;
    const { data } = realisticEvent(svc.slug);
    const policy = matchPolicy(policies, { service: svc.slug, tool: data.tool, effects: data.effects });
    return {
      serviceId: svc.id,
      tool: data.tool,
      effects: data.effects,
      environment: data.environment,
      requestedBy: data.requested_by,
      requesterKey: requesterKey(data.requested_by),
      summary: redactor.redactText(data.summary),
      argsDigest: argsDigest(data.arguments),
      redactedArgs: JSON.stringify(redactor.redactValue(data.arguments).value),
      policyName: policy.name,
      requiredRoles: JSON.stringify(policy.roles),
      quorum: policy.quorum,
      ttlSeconds: policy.ttlSeconds,
    };
  });
  const now = Date.now();
  let added = 0;
  let bytes = 0;
  // Multi-row INSERTs through $executeRaw: Prisma binds the values (dates
  // included) exactly as for its own queries, without the per-row cost of
  // createMany, which took minutes for 100,000 rows of this size.
  const BATCH = 500;
  // This process's SQLite connection only: no fsync per batch (bench data).
  if (env().databaseProvider === "sqlite") await db().$queryRawUnsafe("PRAGMA synchronous = OFF");
  while (have + added < total) {
    const n = Math.min(BATCH, total - have - added);
    const rows = Array.from({ length: n }, (_, i) => {
      const p = pool[(added + i) % pool.length]!;
      bytes += p.redactedArgs.length;
      const createdAt = now - randomInt(30 * 60 * 1000);
      return Prisma.sql`(${newId("apr")}, ${p.serviceId}, ${`run_${randomUUID()}`}, ${`call_${randomUUID()}`}, ${p.tool}, ${p.effects},
        ${p.environment ?? null}, ${p.requestedBy ?? null}, ${p.requesterKey}, ${p.summary}, ${p.argsDigest}, ${p.redactedArgs}, ${p.policyName},
        ${p.requiredRoles}, ${p.quorum}, ${p.ttlSeconds}, 'pending', 0, ${new Date(createdAt)}, ${new Date(createdAt + p.ttlSeconds * 1000)}, '[]')`;
    });
    await db().$executeRaw`INSERT INTO approvals (id, service_id, run_id, call_id, tool, effects, environment, requested_by, requester_key, summary,
      args_digest, redacted_args, policy_name, required_roles, quorum, ttl_seconds, status, approve_count, created_at, expires_at, decided_by)
      VALUES ${Prisma.join(rows)}`;
    added += n;
  }
  // What autovacuum does shortly after a bulk change like this one, done now
  // rather than in the middle of the timed requests: without statistics
  // PostgreSQL's planner guesses the pending set is tiny, and a vacuum of the
  // new rows (and their TOASTed arguments) would compete with the page for
  // the same two cores (the queue would be measured in a state that lasts a
  // minute in production).
  if (env().databaseProvider === "postgresql" && added > 0) await db().$executeRawUnsafe("VACUUM ANALYZE approvals");
  process.stdout.write(
    JSON.stringify({ pending: have + added, added, mean_args_bytes: added ? Math.round(bytes / added) : 0, ms: Math.round(performance.now() - t0) }) +
      "\n",
  );
}

/**
 * Audit events in bulk, chained exactly as appendAuditEvent chains them (the
 * same encoding and eventHash), a transaction per batch. Only while the app
 * is stopped: nothing else may append meanwhile.
 */
export async function seedAudit(total: number) {
  const t0 = performance.now();
  const key = Buffer.from(env().AUDIT_KEY, "base64");
  const head = await db().auditHead.findUniqueOrThrow({ where: { id: 1 } });
  let seq = head.seq;
  let prevHash = head.hash;
  const BATCH = 1000;
  if (env().databaseProvider === "sqlite") await db().$queryRawUnsafe("PRAGMA synchronous = OFF"); // this connection only
  while (seq < total) {
    const n = Math.min(BATCH, total - seq);
    const first = seq + 1;
    const rows: Prisma.Sql[] = [];
    for (let i = 0; i < n; i++) {
      const slug = pick(Object.keys(SERVICES));
      const data = canonicalJson(
        auditDataSchema.parse({
          service: slug,
          run_id: `run_${randomUUID()}`,
          call_id: `call_${randomUUID()}`,
          tool: pick(SERVICES[slug]!),
          effects: pick(EFFECTS),
          quorum: 2,
        }),
      );
      const event: ChainedEvent = {
        seq: ++seq,
        id: newId("evt"),
        at: new Date().toISOString(),
        type: "approval.requested",
        actor: `service:${slug}`,
        approvalId: `apr_seed_${randomBytes(8).toString("hex")}`,
        data,
        prevHash,
      };
      prevHash = eventHash(key, event);
      rows.push(
        Prisma.sql`(${event.seq}, ${event.id}, ${new Date(event.at)}, ${event.type}, ${event.actor}, ${event.approvalId}, ${event.data}, ${event.prevHash}, ${prevHash})`,
      );
    }
    await inTransaction(async (tx) => {
      const moved = await tx.auditHead.updateMany({ where: { id: 1, seq: first - 1 }, data: { seq, hash: prevHash } });
      if (moved.count !== 1) throw new Error("the audit head moved while seeding: stop the app first");
      await tx.$executeRaw`INSERT INTO audit_events (seq, id, at, type, actor, approval_id, data, prev_hash, hash) VALUES ${Prisma.join(rows)}`;
    });
  }
  process.stdout.write(JSON.stringify({ events: seq, ms: Math.round(performance.now() - t0) }) + "\n");
}
