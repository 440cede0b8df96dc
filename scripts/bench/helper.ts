// Bench helper (issue: benchmark), run by scripts/bench.mjs through tsx with
// --conditions=react-server, against the same database as the app under test.
// Every subcommand goes through the real domain functions (lib/), writes its
// result as JSON to a file or stdout, and disconnects.
//
//   secrets                          → stdout: fresh secrets (lib/local-secrets)
//   setup <out>                      → services, policies, reviewers; credentials to <out>
//   webhooks <setup> <n> <out>       → n signed, realistic webhook requests
//   consumes <setup> <n> <out>       → n approved requests, ready to consume
//   queue-seed <total> [--reset]     → pending requests added until <total> are pending
//                                      (--reset first cancels every pending one)
//   seed-audit <total>               → audit events appended until the chain holds <total>
//   verify-audit                     → stdout: verifyChain() result and its duration
//
// queue-seed and seed-audit write in bulk (the app must be idle or stopped for
// seed-audit): 100,000 rows one HTTP request at a time would take most of the
// run. They still use the product's own encoders (redactor, policy matcher,
// argument digest, the chain's eventHash), so what they write is what the app
// would have written.
import { randomBytes, randomInt, randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { generateSecrets } from "@/lib/local-secrets";
import { db, Prisma } from "@/lib/db/client";
import { env } from "@/lib/env";
import { newId } from "@/lib/ids";
import { requesterKey } from "@/lib/identity/requester-key";
import { argsDigest, canonicalJson } from "@/lib/digest/args-digest";
import { eventHash, type ChainedEvent } from "@/lib/audit/chain";
import { auditDataSchema } from "@/lib/audit/events";
import { loadPolicies } from "@/lib/policies/load-policies";
import { matchPolicy } from "@/lib/policies/match-policy";
import { setPolicy } from "@/lib/policies/set-policy";
import { loadRedactor } from "@/lib/redaction-rules/manage-rules";
import { inTransaction } from "@/lib/db/transaction";
import { createService } from "@/lib/services/manage-services";
import { findServiceForWebhook } from "@/lib/services/service-secrets";
import { addUser } from "@/lib/users/add-user";
import { ingestApproval } from "@/lib/approvals/ingest-approval";
import { approvalRequestedSchema } from "@/lib/approvals/schemas";
import { recordReview } from "@/lib/reviews/record-review";
import { verifyChain } from "@/lib/audit/verify-chain";
import { signWebhookHeaders, unixNow } from "@/lib/webhooks/standard-webhooks";

type Setup = {
  services: Array<{ slug: string; webhook_secret: string; api_token: string }>;
  reviewers: string[];
  /** A reviewer who can sign in (the queue page and the live-update measurements). */
  signIn: { email: string; password: string };
};

// A few agent services, each with its own tools (the realistic mix).
const SERVICES: Record<string, string[]> = {
  "billing-agent": ["payments.refund", "payments.charge", "invoices.send", "subscriptions.cancel"],
  "mail-agent": ["mail.send", "mail.forward", "calendar.invite"],
  "infra-agent": ["db.migrate", "k8s.scale", "dns.update", "secrets.rotate", "files.upload"],
};
const EFFECTS = ["read", "write", "destructive"] as const;

const pick = <T>(xs: readonly T[]): T => xs[randomInt(xs.length)]!;

/** A Luhn-valid 16-digit card number (Visa test range), spaced as people type it. */
function cardNumber(): string {
  const digits = [4, ...Array.from({ length: 14 }, () => randomInt(10))];
  let sum = 0;
  for (let i = 0; i < 15; i++) {
    let d = digits[14 - i]!;
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  digits.push((10 - (sum % 10)) % 10);
  return digits.join("").replace(/(\d{4})(?=\d)/g, "$1 ");
}

const email = () =>
  `${pick(["ana", "bo", "chen", "dee", "eli", "fatima", "gus"])}.${randomBytes(3).toString("hex")}@${pick(["example.com", "corp.example", "mail.test"])}`;

/** Target size of the arguments' JSON: log-uniform between 100 B and 64 KiB. */
function targetSize(): number {
  const min = Math.log(100);
  const max = Math.log(64 * 1024);
  return Math.round(Math.exp(min + Math.random() * (max - min)));
}

const WORDS =
  "please refund the customer for order invoice shipment delayed account review quarterly report attached see notes below thanks regards".split(" ");
function prose(bytes: number): string {
  let s = "";
  while (s.length < bytes) s += pick(WORDS) + (randomInt(12) === 0 ? ". " : " ");
  return s.slice(0, Math.max(0, bytes));
}

/** Arguments for a tool, with secrets to redact, padded to about `size` bytes of JSON. */
function argumentsFor(tool: string, size: number): Record<string, unknown> {
  const base: Record<string, unknown> = (() => {
    switch (tool.split(".")[0]) {
      case "payments":
      case "invoices":
      case "subscriptions":
        return { customer: email(), amount: randomInt(1, 500_000) / 100, currency: pick(["EUR", "USD", "GBP"]), card: cardNumber() };
      case "mail":
      case "calendar":
        return { to: [email(), email()], subject: prose(30), body: "" };
      default:
        return { target: `prod-${randomBytes(2).toString("hex")}`, api_key: `sk_live_${randomBytes(18).toString("base64url")}`, owner: email() };
    }
  })();
  if (size < 100) return base;
  // Larger payloads: nested records with more secrets (emails, tokens, cards), then prose.
  if (size > 2000) {
    const rows: unknown[] = [];
    const rowsBudget = Math.floor(size / 3);
    let used = 0;
    while (used < rowsBudget) {
      const row = {
        id: randomUUID(),
        contact: email(),
        note: prose(randomInt(20, 200)),
        ...(randomInt(4) === 0 ? { password: randomBytes(9).toString("base64url") } : {}),
        ...(randomInt(6) === 0 ? { card: cardNumber() } : {}),
      };
      used += JSON.stringify(row).length + 1;
      rows.push(row);
    }
    base.records = rows;
  }
  const current = JSON.stringify(base).length;
  const pad = size - current - 12;
  if (pad > 0) base.notes = prose(pad);
  return base;
}

function readSetup(path: string): Setup {
  return JSON.parse(readFileSync(path, "utf8")) as Setup;
}

async function setup(out: string) {
  const services: Setup["services"] = [];
  for (const slug of Object.keys(SERVICES)) {
    const created = await createService({ slug }, "cli");
    services.push({ slug, webhook_secret: created.webhook_secret, api_token: created.api_token });
  }
  // The default 600/min per service would turn the load into 429s; the bench
  // measures ingestion, so the limit is raised (an admin setting, not code).
  await db().service.updateMany({ data: { rateLimitPerMinute: 100_000_000 } });
  // The realistic mix: four-eyes on money and destructive infrastructure
  // changes, the default policy (one reviewer, 1 h) for the rest.
  await setPolicy({ name: "payments-four-eyes", tool: "payments.*", roles: ["reviewer"], quorum: 2, ttl: 24 * 3600 }, "cli");
  await setPolicy(
    { name: "infra-destructive", tool: "*", service: "infra-agent", effects: "destructive", roles: ["reviewer", "sre"], quorum: 2, ttl: 4 * 3600 },
    "cli",
  );
  const reviewers: string[] = [];
  const password = randomBytes(18).toString("base64url");
  for (const name of ["rev1", "rev2", "rev3"]) {
    const u = await addUser({ email: `${name}@bench.example`, roles: ["reviewer"], ...(name === "rev1" ? { password } : {}) }, "cli");
    reviewers.push(u.id);
  }
  writeFileSync(out, JSON.stringify({ services, reviewers, signIn: { email: "rev1@bench.example", password } } satisfies Setup));
}

function realisticEvent(slug: string) {
  const tool = pick(SERVICES[slug]!);
  const args = argumentsFor(tool, targetSize());
  return {
    type: "approval.requested" as const,
    data: {
      run_id: `run_${randomUUID()}`,
      call_id: `call_${randomUUID()}`,
      tool,
      arguments: args,
      requested_by: `agent-${slug}@example.com`,
      effects: pick(EFFECTS),
      summary: `${tool} for ${email()}: ${prose(randomInt(10, 160))}`,
      environment: pick(["production", "staging"]),
    },
  };
}

async function webhooks(setupPath: string, n: number, out: string) {
  const { services } = readSetup(setupPath);
  const now = unixNow();
  const reqs = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const svc = services[i % services.length]!;
    const body = JSON.stringify(realisticEvent(svc.slug));
    bytes += Buffer.byteLength(body);
    const headers = signWebhookHeaders({ secret: svc.webhook_secret, id: `msg_bench_${randomUUID()}`, timestamp: now, body });
    reqs.push({ path: `/api/v1/webhooks/${svc.slug}`, headers: { ...headers, "content-type": "application/json" }, body });
  }
  writeFileSync(out, JSON.stringify(reqs));
  process.stdout.write(JSON.stringify({ requests: n, mean_body_bytes: Math.round(bytes / n) }) + "\n");
}

async function consumes(setupPath: string, n: number, out: string) {
  const { services, reviewers } = readSetup(setupPath);
  const auths = await Promise.all(services.map(async (s) => ({ ...s, auth: (await findServiceForWebhook(db(), s.slug))! })));
  const result = [];
  for (let i = 0; i < n; i++) {
    const svc = auths[i % auths.length]!;
    const event = approvalRequestedSchema.parse(realisticEvent(svc.slug));
    const created = await ingestApproval(svc.auth, `msg_bench_${randomUUID()}`, event);
    const id = created.body.approval_id;
    for (const reviewer of reviewers) {
      const outcome = await recordReview(reviewer, { approvalId: id, decision: "approve" });
      if (outcome.status === "approved") break;
    }
    const a = await db().approval.findUniqueOrThrow({ where: { id } });
    if (a.status !== "approved") throw new Error(`approval ${id} is ${a.status}, not approved (policy needs roles the bench reviewers lack?)`);
    result.push({
      id,
      token: svc.api_token,
      binding: { run_id: a.runId, call_id: a.callId, tool: a.tool, args_digest: a.argsDigest },
    });
  }
  writeFileSync(out, JSON.stringify(result));
}

/**
 * Pending requests, written in bulk, until `total` are pending. The rows are
 * what ingestApproval would store for realistic webhooks (a pool of them,
 * each redacted, digested and policy-matched by the product's code), with
 * their own run and call ids, spread over the last half hour.
 */
async function queueSeed(total: number, reset: boolean) {
  const t0 = performance.now();
  if (reset) await db().approval.updateMany({ where: { status: "pending" }, data: { status: "cancelled", decidedAt: new Date() } });
  const have = await db().approval.count({ where: { status: "pending", expiresAt: { gt: new Date() } } });
  const services = await db().service.findMany({ select: { id: true, slug: true } });
  const policies = await loadPolicies(db());
  const redactor = await loadRedactor(db());
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
async function seedAudit(total: number) {
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

async function verifyAudit() {
  const t0 = performance.now();
  const r = await verifyChain();
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ ...r, ms }) + "\n");
}

async function main() {
  const [cmd, ...a] = process.argv.slice(2);
  switch (cmd) {
    case "secrets":
      process.stdout.write(JSON.stringify(generateSecrets()) + "\n");
      return;
    case "setup":
      return setup(a[0]!);
    case "webhooks":
      return webhooks(a[0]!, Number(a[1]), a[2]!);
    case "consumes":
      return consumes(a[0]!, Number(a[1]), a[2]!);
    case "queue-seed":
      return queueSeed(Number(a[0]), a.includes("--reset"));
    case "seed-audit":
      return seedAudit(Number(a[0]));
    case "verify-audit":
      return verifyAudit();
    default:
      throw new Error(`unknown subcommand ${cmd ?? "(none)"}`);
  }
}

main()
  .then(async () => {
    if (process.argv[2] !== "secrets") await db().$disconnect();
  })
  .catch(async (e: unknown) => {
    process.stderr.write(`bench helper: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
