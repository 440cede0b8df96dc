// Demo data for a fresh local install (never in production): an admin, two
// reviewers, a requester, a demo service and a four-eyes policy for
// payments.*. Runs only against an empty database (no users). The pending
// demo requests are sent over real HTTP once the server is up (sendDemoRequests).
import "server-only";
import { randomBytes, randomUUID } from "node:crypto";
import { db } from "../db/client";
import { addUser } from "../users/add-user";
import { createService, type CreatedService } from "../services/manage-services";
import { setPolicy } from "../policies/set-policy";
import { CountersignClient } from "@countersign/client";

export const DEMO_USERS = {
  admin: { email: "admin@example.com", name: "Demo Admin", roles: ["admin", "reviewer"] },
  reviewer1: { email: "ria@example.com", name: "Ria Reviewer", roles: ["reviewer"] },
  reviewer2: { email: "rex@example.com", name: "Rex Reviewer", roles: ["reviewer"] },
  requester: { email: "ana@example.com", name: "Ana Requester", roles: [] },
} as const;

export const DEMO_SERVICE_SLUG = "demo-agent";

export async function databaseIsEmpty(): Promise<boolean> {
  return (await db().user.count()) === 0;
}

/** Creates the demo users (one fresh random password), service and policy. */
export async function seedDemo(): Promise<{ password: string; service: CreatedService }> {
  const password = randomBytes(12).toString("base64url");
  for (const u of Object.values(DEMO_USERS)) {
    await addUser({ email: u.email, name: u.name, password, roles: [...u.roles] }, "system");
  }
  const service = await createService({ slug: DEMO_SERVICE_SLUG }, "system");
  await setPolicy({ name: "payments-four-eyes", tool: "payments.*", roles: ["reviewer"], quorum: 2, ttl: 24 * 3600 }, "system");
  return { password, service };
}

/** A few realistic pending requests, signed and sent like an agent would. */
export async function sendDemoRequests(baseUrl: string, service: CreatedService): Promise<string[]> {
  const client = new CountersignClient({ baseUrl, serviceSlug: service.slug, webhookSecret: service.webhook_secret, apiToken: service.api_token });
  const run = `demo-run-${randomUUID().slice(0, 8)}`;
  const requests = [
    {
      call_id: "c1",
      tool: "payments.refund",
      effects: "destructive" as const,
      requested_by: DEMO_USERS.requester.email,
      summary: "Refund order 1234 to the customer's card after a damaged delivery.",
      arguments: { order: "1234", amount: 129.9, currency: "EUR", card: "4111 1111 1111 1111", customer_email: "jo@example.org" },
    },
    {
      call_id: "c2",
      tool: "email.send",
      effects: "write" as const,
      requested_by: DEMO_USERS.requester.email,
      summary: "Tell the customer the refund is on its way.",
      arguments: {
        to: "jo@example.org",
        subject: "Your refund",
        body: "Hi Jo, your refund of 129.90 EUR is on its way.",
        api_key: "sk-live-0123456789abcdefghij",
      },
    },
    {
      call_id: "c3",
      tool: "crm.records.delete",
      effects: "destructive" as const,
      requested_by: DEMO_USERS.requester.email,
      summary: "Delete the duplicate CRM record for Jo.",
      arguments: { record_id: "CRM-88121", reason: "duplicate" },
    },
  ];
  const ids: string[] = [];
  for (const r of requests) ids.push((await client.requestApproval({ run_id: run, environment: "demo", ...r })).approval_id);
  return ids;
}
