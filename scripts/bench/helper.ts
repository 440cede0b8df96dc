// Bench helper (issue: benchmark), run by scripts/bench.mjs through tsx with
// --conditions=react-server, against the same database as the app under test.
// Every subcommand goes through the real domain functions (lib/), writes its
// result as JSON to a file or stdout, and disconnects.
//
//   secrets                          → stdout: fresh secrets (lib/local-secrets)
//   setup <out>                      → services + reviewers; credentials to <out>
//   webhooks <setup> <n> <out>       → n signed, realistic webhook requests
//   consumes <setup> <n> <out>       → n approved requests, ready to consume
//   seed-audit <total>               → audit events appended until the chain holds <total>
//   verify-audit                     → stdout: verifyChain() result and its duration
import { randomBytes, randomInt, randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { generateSecrets } from "@/lib/local-secrets";
import { db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { createService } from "@/lib/services/manage-services";
import { findServiceForWebhook } from "@/lib/services/service-secrets";
import { addUser } from "@/lib/users/add-user";
import { ingestApproval } from "@/lib/approvals/ingest-approval";
import { approvalRequestedSchema } from "@/lib/approvals/schemas";
import { recordReview } from "@/lib/reviews/record-review";
import { appendAuditEvent } from "@/lib/audit/append-event";
import { verifyChain } from "@/lib/audit/verify-chain";
import { signWebhookHeaders, unixNow } from "@/lib/webhooks/standard-webhooks";

type Setup = {
  services: Array<{ slug: string; webhook_secret: string; api_token: string }>;
  reviewers: string[];
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

const email = () => `${pick(["ana", "bo", "chen", "dee", "eli", "fatima", "gus"])}.${randomBytes(3).toString("hex")}@${pick(["example.com", "corp.example", "mail.test"])}`;

/** Target size of the arguments' JSON: log-uniform between 100 B and 64 KiB. */
function targetSize(): number {
  const min = Math.log(100);
  const max = Math.log(64 * 1024);
  return Math.round(Math.exp(min + Math.random() * (max - min)));
}

const WORDS = "please refund the customer for order invoice shipment delayed account review quarterly report attached see notes below thanks regards".split(" ");
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
      const row = { id: randomUUID(), contact: email(), note: prose(randomInt(20, 200)), ...(randomInt(4) === 0 ? { password: randomBytes(9).toString("base64url") } : {}), ...(randomInt(6) === 0 ? { card: cardNumber() } : {}) };
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
  const reviewers: string[] = [];
  for (const name of ["rev1", "rev2", "rev3"]) {
    const u = await addUser({ email: `${name}@bench.example`, roles: ["reviewer"] }, "cli");
    reviewers.push(u.id);
  }
  writeFileSync(out, JSON.stringify({ services, reviewers } satisfies Setup));
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
      requested_by: `agent:${slug}`,
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

async function seedAudit(total: number) {
  const head = await db().auditHead.findUnique({ where: { id: 1 } });
  let have = head?.seq ?? 0;
  while (have < total) {
    const batch = Math.min(500, total - have);
    await inTransaction(async (tx) => {
      for (let i = 0; i < batch; i++) {
        const slug = pick(Object.keys(SERVICES));
        await appendAuditEvent(tx, {
          type: "approval.requested",
          actor: `service:${slug}`,
          approvalId: `apr_seed_${randomBytes(8).toString("hex")}`,
          data: { service: slug, run_id: `run_${randomUUID()}`, call_id: `call_${randomUUID()}`, tool: pick(SERVICES[slug]!), effects: pick(EFFECTS), quorum: 2 },
        });
      }
    });
    have += batch;
  }
  process.stdout.write(JSON.stringify({ events: have }) + "\n");
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
