// `npm run demo:agent`: an agent's executor, for trying Countersign by hand.
// Sends a few requests, waits for people to decide them in the browser,
// consumes each decision once and prints the verified receipts.
//
// Credentials: COUNTERSIGN_URL, COUNTERSIGN_SLUG, COUNTERSIGN_WEBHOOK_SECRET,
// COUNTERSIGN_API_TOKEN, or the demo service that `npm start` seeded locally
// (data/demo-credentials.json).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { CountersignClient } from "@countersign/client";

const demoFile = z.object({ service: z.object({ slug: z.string(), webhook_secret: z.string(), api_token: z.string() }) });

function config() {
  const e = process.env;
  if (e.COUNTERSIGN_SLUG && e.COUNTERSIGN_WEBHOOK_SECRET && e.COUNTERSIGN_API_TOKEN) {
    return {
      baseUrl: e.COUNTERSIGN_URL ?? "http://localhost:3000",
      slug: e.COUNTERSIGN_SLUG,
      secret: e.COUNTERSIGN_WEBHOOK_SECRET,
      token: e.COUNTERSIGN_API_TOKEN,
    };
  }
  const path = join(e.COUNTERSIGN_DATA_DIR ?? "./data", "demo-credentials.json");
  try {
    const { service } = demoFile.parse(JSON.parse(readFileSync(path, "utf8")));
    return {
      baseUrl: e.COUNTERSIGN_URL ?? `http://localhost:${e.PORT ?? 3000}`,
      slug: service.slug,
      secret: service.webhook_secret,
      token: service.api_token,
    };
  } catch {
    throw new Error(
      `no credentials: set COUNTERSIGN_SLUG, COUNTERSIGN_WEBHOOK_SECRET and COUNTERSIGN_API_TOKEN, or run npm start once to create ${path}`,
    );
  }
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
    const created = await client.requestApproval({ run_id: run, requested_by: "agent@example.com", environment: "demo", ...call });
    console.log(`requested ${call.tool}: ${created.review_url}`);
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
    if (taken.decision === "approved") console.log(`  → running ${call.tool} now (once).`);
  }
}

main().catch((e: unknown) => {
  console.error(`demo agent: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
