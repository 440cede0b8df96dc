// Bench helper (issue: benchmark), run by scripts/bench.mjs through tsx with
// --conditions=react-server, against the same database as the app under test.
// Every subcommand goes through the real domain functions (lib/), writes its
// result as JSON to a file or stdout, and disconnects.
//
//   secrets                          → stdout: fresh secrets (lib/local-secrets)
//   setup <out>                      → services, policies, reviewers; credentials to <out>
//   webhooks <setup> <n> <out>       → n signed, realistic webhook requests
//   events <setup> <n> <out>         → n realistic calls, unsigned (the soak signs each as it sends it)
//   consumes <setup> <n> <out>       → n approved requests, ready to consume
//   quiet-webhooks <setup> <n> <out> → n signed webhooks like `webhooks`, for a tool whose
//                                      policy's reviewers turned every channel off: the same
//                                      ingest with no notification to send
//   auto-approved <setup> <n> <out>  → a standing approval (proposed and approved through
//                                      the domain functions) and n signed webhooks it matches,
//                                      each with the API token and binding to consume it
//   queue-seed <total> [--reset]     → pending requests added until <total> are pending
//                                      (--reset first cancels every pending one)
//   seed-audit <total>               → audit events appended until the chain holds <total>
//   lookalike-run <setup> <n> <bytes>
//                                    → stdout: one run of n pending requests of about <bytes>
//                                      bytes of look-alike arguments each (traffic.ts), ingested
//                                      one by one, with look-alike requested_by, summary and environment
//   verify-audit                     → stdout: verifyChain() result and its duration
//   push-subscribe <email> <endpoint> <p256dh> <auth>
//                                    → the user's browser subscribed to Web Push (the row a
//                                      subscription from /settings makes)
//
// queue-seed and seed-audit write in bulk (bulk-seed.ts; the app must be idle
// or stopped for seed-audit); traffic.ts makes the realistic requests.
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { generateSecrets } from "@/lib/local-secrets";
import { db } from "@/lib/db/client";
import { direct } from "@/lib/db/sql";
import { newId } from "@/lib/ids";
import { setPolicy } from "@/lib/policies/set-policy";
import { createService } from "@/lib/services/manage-services";
import { findServiceForWebhook } from "@/lib/services/service-secrets";
import { addUser } from "@/lib/users/add-user";
import { ingestApproval } from "@/lib/approvals/ingest-approval";
import { approvalRequestedSchema } from "@/lib/approvals/schemas";
import { recordReview } from "@/lib/reviews/record-review";
import { verifyChain } from "@/lib/audit/verify-chain";
import { approveStanding, proposeStanding } from "@/lib/standing/standing-approvals";
import { signWebhookHeaders, unixNow } from "@countersign/client";
import { queueSeed, seedAudit } from "./bulk-seed";
import { SERVICES, lookalikeArguments, lookalikeText, realisticEvent } from "./traffic";

type Setup = {
  services: Array<{ slug: string; webhook_secret: string; api_token: string }>;
  reviewers: string[];
  /** A reviewer who can sign in (the queue page and the live-update measurements). */
  signIn: { email: string; password: string };
};

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
  await setPolicy({ name: "payments-four-eyes", tool: "payments.*", roles: ["reviewer"], quorum: 2, ttl: 24 * 3600 }, "cli", { anyway: true });
  await setPolicy(
    { name: "infra-destructive", tool: "*", service: "infra-agent", effects: "destructive", roles: ["reviewer", "sre"], quorum: 2, ttl: 4 * 3600 },
    "cli",
    { anyway: true },
  );
  const reviewers: string[] = [];
  const password = randomBytes(18).toString("base64url");
  for (const name of ["rev1", "rev2", "rev3"]) {
    const u = await addUser({ email: `${name}@bench.example`, roles: ["reviewer"], ...(name === "rev1" ? { password } : {}) }, "cli");
    reviewers.push(u.id);
  }
  writeFileSync(out, JSON.stringify({ services, reviewers, signIn: { email: "rev1@bench.example", password } } satisfies Setup));
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

/**
 * The same realistic requests, under a policy whose two reviewers turned
 * email, push and Slack off: ingested like the others (the notice trigger,
 * the fan-out worked out), but with nothing to send.
 */
async function quietWebhooks(setupPath: string, n: number, out: string) {
  const { services } = readSetup(setupPath);
  await setPolicy({ name: "quiet", tool: "quiet.*", roles: ["quiet-reviewer"], quorum: 1, ttl: 3600 }, "cli", { anyway: true });
  for (const name of ["quiet1", "quiet2"]) {
    const u = await addUser({ email: `${name}@bench.example`, roles: ["quiet-reviewer"] }, "cli");
    await db().user.update({ where: { id: u.id }, data: { notifyEmail: false, notifyPush: false, notifySlack: false } });
  }
  const now = unixNow();
  const reqs = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const svc = services[i % services.length]!;
    const event = realisticEvent(svc.slug);
    // Effects "write": no other policy of the set-up (destructive infrastructure) can match instead.
    const body = JSON.stringify({ ...event, data: { ...event.data, tool: `quiet.${event.data.tool}`, effects: "write" } });
    bytes += Buffer.byteLength(body);
    const headers = signWebhookHeaders({ secret: svc.webhook_secret, id: `msg_bench_${randomUUID()}`, timestamp: now, body });
    reqs.push({ path: `/api/v1/webhooks/${svc.slug}`, headers: { ...headers, "content-type": "application/json" }, body });
  }
  writeFileSync(out, JSON.stringify(reqs));
  process.stdout.write(JSON.stringify({ requests: n, mean_body_bytes: Math.round(bytes / n) }) + "\n");
}

/** Unsigned realistic calls, for a sender that signs each as it sends it (the soak runs longer than a signature lives). */
async function events(setupPath: string, n: number, out: string) {
  const { services } = readSetup(setupPath);
  const calls = Array.from({ length: n }, (_, i) => {
    const svc = services[i % services.length]!;
    return { slug: svc.slug, data: realisticEvent(svc.slug).data };
  });
  writeFileSync(out, JSON.stringify(calls));
  process.stdout.write(JSON.stringify({ calls: n }) + "\n");
}

async function consumes(setupPath: string, n: number, out: string) {
  const { services, reviewers } = readSetup(setupPath);
  const auths = await Promise.all(services.map(async (s) => ({ ...s, auth: (await findServiceForWebhook(direct(), s.slug))! })));
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

/** The auto-approved round trip's tool: small refunds, allowed standing approvals by their own policy. */
const AUTO_TOOL = "payments.refund_small";

function smallRefund(i: number) {
  return {
    order_id: `ord_${randomUUID()}`,
    amount: 1 + (i % 100),
    currency: "EUR",
    customer_email: `customer${i}@example.com`,
    note: `Refund for a late delivery, ticket ${i}`,
  };
}

async function autoApproved(setupPath: string, n: number, out: string) {
  const { services, reviewers } = readSetup(setupPath);
  const svc = services.find((s) => s.slug === "billing-agent")!;
  const auth = (await findServiceForWebhook(direct(), svc.slug))!;
  await setPolicy(
    { name: "small-refunds", tool: AUTO_TOOL, service: svc.slug, roles: ["reviewer"], quorum: 2, ttl: 3600, standing_max_ttl: 86_400 },
    "cli",
  );
  // The request a reviewer proposes it from, then a second reviewer approves it (four-eyes).
  const source = approvalRequestedSchema.parse({
    type: "approval.requested",
    data: {
      run_id: `run_${randomUUID()}`,
      call_id: "call_source",
      tool: AUTO_TOOL,
      arguments: smallRefund(0),
      requested_by: "agent-billing@example.com",
      effects: "write",
    },
  });
  const created = await ingestApproval(auth, `msg_bench_${randomUUID()}`, source);
  const proposed = await proposeStanding(reviewers[0]!, {
    approvalId: created.body.approval_id,
    pins: [
      { path: "/currency", op: "eq" },
      { path: "/amount", op: "lte", value: 100 },
    ],
    expiresInSeconds: 3600,
    reason: "small refunds in euros for an hour",
  });
  const approved = await approveStanding(reviewers[1]!, proposed.id);
  if (approved.status !== "active") throw new Error(`the bench's standing approval is ${approved.status}, not active`);

  const now = unixNow();
  const reqs = [];
  for (let i = 0; i < n; i++) {
    const data = {
      run_id: `run_${randomUUID()}`,
      call_id: `call_${i}`,
      tool: AUTO_TOOL,
      arguments: smallRefund(i + 1),
      requested_by: "agent-billing@example.com",
      effects: "write",
      summary: `Refund order for customer${i}@example.com`,
    };
    const body = JSON.stringify({ type: "approval.requested", data });
    const headers = signWebhookHeaders({ secret: svc.webhook_secret, id: `msg_bench_${randomUUID()}`, timestamp: now, body });
    reqs.push({
      path: `/api/v1/webhooks/${svc.slug}`,
      headers: { ...headers, "content-type": "application/json" },
      body,
      token: svc.api_token,
      binding: { run_id: data.run_id, call_id: data.call_id, tool: data.tool },
    });
  }
  writeFileSync(out, JSON.stringify(reqs));
}

/** The run-page scenario (render.mjs): one run of n large look-alike requests, each through ingestApproval. */
async function lookalikeRun(setupPath: string, n: number, bytes: number) {
  const { services } = readSetup(setupPath);
  const svc = services[0]!;
  const auth = (await findServiceForWebhook(direct(), svc.slug))!;
  const runId = `run_${randomUUID()}`;
  const ids: string[] = [];
  let argBytes = 0;
  for (let i = 0; i < n; i++) {
    const args = lookalikeArguments(bytes);
    argBytes += Buffer.byteLength(JSON.stringify(args));
    const event = approvalRequestedSchema.parse({
      type: "approval.requested",
      data: {
        run_id: runId,
        call_id: `call_${i}`,
        tool: "docs.publish",
        effects: "write",
        arguments: args,
        // A look-alike requester (Cyrillic о), summary and environment: escaped and marked like the arguments.
        requested_by: "agent-dоcs@bench.example",
        summary: lookalikeText(400),
        environment: "prоduction",
      },
    });
    ids.push((await ingestApproval(auth, `msg_bench_${randomUUID()}`, event)).body.approval_id);
  }
  process.stdout.write(JSON.stringify({ service: svc.slug, run_id: runId, ids, mean_arg_bytes: Math.round(argBytes / n) }) + "\n");
}

async function verifyAudit() {
  const t0 = performance.now();
  const r = await verifyChain();
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ ...r, ms }) + "\n");
}

async function pushSubscribe(email: string, endpoint: string, p256dh: string, auth: string) {
  const user = await db().user.findUniqueOrThrow({ where: { email }, select: { id: true } });
  await db().pushSubscription.create({ data: { id: newId("psb"), userId: user.id, endpoint, p256dh, auth, userAgent: "bench" } });
  process.stdout.write(JSON.stringify({ subscribed: email }) + "\n");
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
    case "events":
      return events(a[0]!, Number(a[1]), a[2]!);
    case "consumes":
      return consumes(a[0]!, Number(a[1]), a[2]!);
    case "quiet-webhooks":
      return quietWebhooks(a[0]!, Number(a[1]), a[2]!);
    case "auto-approved":
      return autoApproved(a[0]!, Number(a[1]), a[2]!);
    case "queue-seed":
      return queueSeed(Number(a[0]), a.includes("--reset"));
    case "seed-audit":
      return seedAudit(Number(a[0]));
    case "lookalike-run":
      return lookalikeRun(a[0]!, Number(a[1]), Number(a[2]));
    case "verify-audit":
      return verifyAudit();
    case "push-subscribe":
      return pushSubscribe(a[0]!, a[1]!, a[2]!, a[3]!);
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
