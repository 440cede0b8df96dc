// `npm run demo:agent`: an agent's executor, for trying Countersign by hand.
// Sends a few requests, says how long each lives, waits for people to decide
// them in the browser, consumes each decision once, prints the verified
// receipts, "runs" what was approved and reports how that went, so the
// execution shows on the request's page and nothing is left unreported.
//
// Credentials: COUNTERSIGN_URL, COUNTERSIGN_SLUG, COUNTERSIGN_WEBHOOK_SECRET,
// COUNTERSIGN_API_TOKEN, or the demo service that `npm start` seeded locally
// (data/demo-credentials.json), sent to the server that data directory
// belongs to (data/instance.json: lib/startup/data-dir.ts).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { CountersignClient, CountersignError, resultDigest } from "@countersign/client";

const demoFile = z.object({ service: z.object({ slug: z.string(), webhook_secret: z.string(), api_token: z.string() }) });
const instanceFile = z.object({ app_url: z.string() });

function config() {
  const e = process.env;
  if (e.COUNTERSIGN_SLUG && e.COUNTERSIGN_WEBHOOK_SECRET && e.COUNTERSIGN_API_TOKEN) {
    return {
      baseUrl: e.COUNTERSIGN_URL ?? "http://localhost:3000",
      slug: e.COUNTERSIGN_SLUG,
      secret: e.COUNTERSIGN_WEBHOOK_SECRET,
      token: e.COUNTERSIGN_API_TOKEN,
      from: "the environment",
    };
  }
  const dir = e.COUNTERSIGN_DATA_DIR ?? "./data";
  const path = join(dir, "demo-credentials.json");
  let service: z.infer<typeof demoFile>["service"];
  try {
    ({ service } = demoFile.parse(JSON.parse(readFileSync(path, "utf8"))));
  } catch {
    throw new Error(
      `no credentials: set COUNTERSIGN_SLUG, COUNTERSIGN_WEBHOOK_SECRET and COUNTERSIGN_API_TOKEN, or run npm start once to create ${path}`,
    );
  }
  // The server this data directory belongs to, as npm start recorded it.
  let instanceUrl: string | undefined;
  try {
    instanceUrl = instanceFile.parse(JSON.parse(readFileSync(join(dir, "instance.json"), "utf8"))).app_url;
  } catch {
    instanceUrl = undefined;
  }
  return {
    baseUrl: e.COUNTERSIGN_URL ?? instanceUrl ?? `http://localhost:${e.PORT ?? 3000}`,
    slug: service.slug,
    secret: service.webhook_secret,
    token: service.api_token,
    from: path,
  };
}

/** "in 60 minutes (at 14:05)" */
function lifetime(expiresAt: string): string {
  const at = new Date(expiresAt);
  const minutes = Math.max(0, Math.round((at.getTime() - Date.now()) / 60_000));
  return `in ${minutes} minute${minutes === 1 ? "" : "s"} (at ${at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })})`;
}

/** What the demo's tools "do": nothing leaves this process. */
function runTool(tool: string, args: Record<string, unknown>): Record<string, unknown> {
  return {
    tool,
    done: true,
    ...(tool === "payments.pay"
      ? { payment_id: `pay_${randomUUID().slice(0, 8)}`, amount: args.amount }
      : { message_id: `msg_${randomUUID().slice(0, 8)}` }),
  };
}

async function main() {
  const c = config();
  const client = new CountersignClient({ baseUrl: c.baseUrl, serviceSlug: c.slug, webhookSecret: c.secret, apiToken: c.token });
  const run = `agent-run-${randomUUID().slice(0, 8)}`;
  const calls = [
    {
      call_id: "c1",
      tool: "payments.pay",
      effects: "destructive" as const,
      summary: "Pay invoice INV-2026-118",
      arguments: { invoice: "INV-2026-118", amount: 480, iban: "DE89370400440532013000" },
    },
    {
      call_id: "c2",
      tool: "email.send",
      effects: "write" as const,
      summary: "Send the payment confirmation",
      arguments: { to: "ap@example.com", subject: "Paid INV-2026-118" },
    },
  ];
  for (const call of calls) {
    let created;
    try {
      created = await client.requestApproval({ run_id: run, requested_by: "agent@example.com", environment: "demo", ...call });
    } catch (e) {
      if (e instanceof CountersignError && e.status === 401)
        throw new Error(
          `${c.baseUrl} refused the demo service's signature: the credentials from ${c.from} belong to another Countersign instance. ` +
            `Point COUNTERSIGN_URL at the server that data directory belongs to, or COUNTERSIGN_DATA_DIR at that server's data directory.`,
          { cause: e },
        );
      throw e;
    }
    console.log(`requested ${call.tool}: ${created.review_url}`);
    console.log(`  waiting for a decision; the request expires ${lifetime(created.expires_at)}`);
    const state = await client.waitForDecision(created.approval_id, { timeoutMs: 15 * 60_000 });
    if (state.status === "pending") {
      console.log(`  still pending after 15 minutes; cancelling`);
      await client.cancel(created.approval_id);
      continue;
    }
    const taken = await client.consume(created.approval_id, { run_id: run, call_id: call.call_id, tool: call.tool, arguments: call.arguments });
    const receipt = await client.verifyReceipt(taken.receipt);
    console.log(`  ${taken.decision} by ${taken.decided_by.join(", ") || "(nobody: it expired)"}; receipt verified:`);
    console.log(`  ${JSON.stringify(receipt)}`);
    if (taken.decision === "approved") {
      console.log(`  → running ${call.tool} now (once).`);
      const result = runTool(call.tool, call.arguments);
      // A digest of the result, salted with the call's salt: the result itself never leaves the executor.
      const recorded = await client.reportExecution(created.approval_id, {
        status: "succeeded",
        result_digest: resultDigest(result, created.args_salt),
        finished_at: new Date().toISOString(),
      });
      console.log(`  reported: ${recorded.status} (result digest ${recorded.result_digest})`);
    }
  }
}

main().catch((e: unknown) => {
  console.error(`demo agent: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
