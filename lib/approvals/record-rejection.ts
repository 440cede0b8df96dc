// The audit record of a refused webhook (CONTRACT §3, §7): the reason code
// and the service slug as sent, never the payload. Refusals can be driven by
// anyone who can reach the endpoint, so records are capped per slug per
// minute to keep a flood from monopolising the audit chain; the rest only
// reach the log.
import "server-only";
import { db } from "../db/client";
import { inTransaction } from "../db/transaction";
import { appendAuditEvent } from "../audit/append-event";
import { hitRateLimit } from "../rate-limit";
import { errorFields, log } from "../log";
import { isDatabaseUnavailable } from "../db/unavailable";

const RECORDS_PER_MINUTE = 30;

export async function recordWebhookRejection(slug: string, reason: string, status: number): Promise<void> {
  const safeSlug = /^[a-z0-9-]{1,63}$/.test(slug) ? slug : "(invalid)";
  try {
    const budget = await hitRateLimit(db(), `webhook-rejections:${safeSlug}`, RECORDS_PER_MINUTE);
    log.info("webhook rejected", { service: safeSlug, reason, status, audited: budget.allowed });
    if (!budget.allowed) return;
    await inTransaction((tx) =>
      appendAuditEvent(tx, { type: "webhook.rejected", actor: "system", data: { service: safeSlug, reason, status } }),
    );
  } catch (e) {
    // The refusal stands even if its record cannot be written; the database
    // being away is an operational condition (warn), anything else a bug.
    const write = isDatabaseUnavailable(e) ? log.warn : log.error;
    write("could not record webhook rejection", { service: safeSlug, reason, ...errorFields(e) });
  }
}
