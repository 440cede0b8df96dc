// Real objects through the real domain functions: users, services, policies
// and pending requests, each with unique names.
import { randomBytes, randomUUID } from "node:crypto";
import { db } from "@/lib/db/client";
import { direct } from "@/lib/db/sql";
import { newId } from "@/lib/ids";
import { addUser } from "@/lib/users/add-user";
import { createService } from "@/lib/services/manage-services";
import { findServiceForWebhook } from "@/lib/services/service-secrets";
import { ingestApproval } from "@/lib/approvals/ingest-approval";
import { approvalRequestedSchema } from "@/lib/approvals/schemas";

export const uid = () => randomBytes(5).toString("hex");

/** A user holding `roles`, whether or not a policy uses them yet (tests make the policy after the reviewers). */
export async function makeUser(roles: string[] = ["reviewer"], email = `u-${uid()}@example.com`) {
  return addUser({ email, roles }, "cli", { anyway: true });
}

export async function makeService() {
  const created = await createService({ slug: `svc-${uid()}` }, "cli");
  const auth = (await findServiceForWebhook(direct(), created.slug))!;
  return { ...created, auth };
}

export async function makePolicy(p: { tool: string; roles: string[]; quorum: number; ttlSeconds?: number; service?: string }) {
  return db().policy.create({
    data: {
      id: newId("pol"),
      name: `p-${uid()}`,
      serviceSlug: p.service ?? null,
      toolPattern: p.tool,
      roles: JSON.stringify(p.roles),
      quorum: p.quorum,
      ttlSeconds: p.ttlSeconds ?? 3600,
    },
  });
}

export async function makeApproval(
  service: Awaited<ReturnType<typeof makeService>>,
  data: {
    tool: string;
    requested_by?: string;
    expires_in?: number;
    effects?: string;
    arguments?: Record<string, unknown>;
    summary?: string;
    environment?: string;
    run_id?: string;
  },
) {
  const event = approvalRequestedSchema.parse({
    type: "approval.requested",
    data: { run_id: `run_${randomUUID()}`, call_id: "c1", arguments: { amount: 1 }, ...data },
  });
  const r = await ingestApproval(service.auth, `msg_${randomUUID()}`, event);
  return r.body;
}
