/** The signed `approval.requested` webhook an executor sends (docs/api.md), with its salted digest (docs/security.md). */
import { argsDigest } from "./args-digest.js";
import { generateWebhookId, signWebhookHeaders } from "./standard-webhooks.js";
import { CountersignError } from "./errors.js";
import type { ApprovalRequestInput } from "./options.js";
import type { ApprovalRequestedEvent } from "./types.js";

/** Largest inbound webhook body the contract accepts (docs/api.md). */
export const MAX_WEBHOOK_BODY_BYTES = 256 * 1024;

/** "2026-11-29T18:00:00Z": ISO 8601 to the second, as in the contract's example. */
function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * The body and headers of the webhook, signed with every secret given.
 * @throws CanonicalJsonError when the arguments have no RFC 8785 form.
 * @throws CountersignError "too-large" (status 0) when the body exceeds 256 KiB.
 */
export function signedApprovalRequest(
  input: ApprovalRequestInput,
  salt: string,
  secrets: readonly string[],
  webhookId: string = generateWebhookId(),
): { body: Buffer; headers: Record<string, string> } {
  const event: ApprovalRequestedEvent = {
    type: "approval.requested",
    timestamp: isoSeconds(new Date()),
    data: { ...input, args_salt: salt, args_digest: argsDigest(input.arguments, salt) },
  };
  const body = Buffer.from(JSON.stringify(event), "utf8");
  if (body.length > MAX_WEBHOOK_BODY_BYTES) {
    throw new CountersignError({
      code: "too-large",
      status: 0,
      message: `the request body is ${body.length} bytes; the limit is ${MAX_WEBHOOK_BODY_BYTES}`,
    });
  }
  const signed = signWebhookHeaders({ secret: secrets, id: webhookId, body });
  return { body, headers: { ...signed, "content-type": "application/json" } };
}
